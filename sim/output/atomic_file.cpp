#include "sim/output/atomic_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <exception>
#include <stdexcept>
#include <streambuf>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

namespace fathom::sim {

namespace {

std::string errno_text(int err) { return std::error_code(err, std::generic_category()).message(); }

// A write-only stream buffer on a POSIX file descriptor. std::ofstream would do the
// writing, but it can neither create the file exclusively (O_EXCL, so two writers never
// share a temporary) nor fsync it, and it does not report why a write failed; this
// remembers the errno of the first failed write(2) so the error message can say
// "No space left on device".
class FdWriteBuffer : public std::streambuf {
 public:
  explicit FdWriteBuffer(int fd) : fd_(fd), buffer_(kBufferBytes) { reset_put_area(); }

  int error() const { return error_; }

 protected:
  int_type overflow(int_type ch) override {
    if (!drain()) return traits_type::eof();
    if (!traits_type::eq_int_type(ch, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(ch);
      pbump(1);
    }
    return traits_type::not_eof(ch);
  }

  int sync() override { return drain() ? 0 : -1; }

 private:
  static constexpr std::size_t kBufferBytes = 1 << 16;

  void reset_put_area() { setp(buffer_.data(), buffer_.data() + buffer_.size()); }

  bool drain() {
    if (error_ != 0) return false;
    const char* p = pbase();
    auto left = static_cast<std::size_t>(pptr() - pbase());
    while (left > 0) {
      const ssize_t n = ::write(fd_, p, left);
      if (n < 0) {
        if (errno == EINTR) continue;
        error_ = errno;
        return false;
      }
      p += n;
      left -= static_cast<std::size_t>(n);
    }
    reset_put_area();
    return true;
  }

  int fd_;
  int error_ = 0;
  std::vector<char> buffer_;
};

// Owns the temporary until it is renamed: closes and unlinks it on every other way out.
class TemporaryFile {
 public:
  TemporaryFile(int fd, std::filesystem::path path) : fd_(fd), path_(std::move(path)) {}
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;
  ~TemporaryFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!committed_) ::unlink(path_.c_str());
  }

  int fd() const { return fd_; }
  const std::filesystem::path& path() const { return path_; }

  // close(2) can report a deferred write error (NFS, quotas), so its result matters.
  int close() {
    const int rc = ::close(fd_);
    fd_ = -1;
    return rc;
  }
  void commit() { committed_ = true; }

 private:
  int fd_;
  std::filesystem::path path_;
  bool committed_ = false;
};

[[noreturn]] void fail(const std::filesystem::path& path, const std::string& reason) {
  throw std::runtime_error("cannot write '" + path.string() + "': " + reason);
}

TemporaryFile create_temporary(const std::filesystem::path& path) {
  // The pid separates concurrent fathom processes, the counter concurrent writers in one
  // process; O_EXCL settles any remaining collision (a stale file left by a killed run
  // with a recycled pid) by moving on to the next counter value.
  static std::atomic<std::uint64_t> counter{0};
  constexpr int kAttempts = 100;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    std::filesystem::path tmp = path;
    tmp += ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter.fetch_add(1));
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) return TemporaryFile(fd, std::move(tmp));
    if (errno != EEXIST) fail(path, "cannot create the temporary file '" + tmp.string() + "': " + errno_text(errno));
  }
  fail(path, "cannot find an unused temporary file name after " + std::to_string(kAttempts) + " attempts");
}

}  // namespace

void write_file_atomically(const std::filesystem::path& path, const std::function<void(std::ostream&)>& write) {
  TemporaryFile tmp = create_temporary(path);
  FdWriteBuffer buffer(tmp.fd());
  std::ostream out(&buffer);

  try {
    write(out);
  } catch (const std::exception& e) {
    std::throw_with_nested(std::runtime_error("cannot write '" + path.string() + "': " + e.what()));
  } catch (...) {
    std::throw_with_nested(std::runtime_error("cannot write '" + path.string() + "': unknown exception"));
  }

  out.flush();
  if (!out) {
    fail(path,
         buffer.error() != 0 ? errno_text(buffer.error()) : "the writer left the output stream in a failed state");
  }
  // Without fsync a crash shortly after the rename could leave an empty file under the
  // new name on some file systems (ext4 delayed allocation), i.e. exactly the partial
  // output this function exists to prevent.
  if (::fsync(tmp.fd()) != 0) fail(path, "fsync failed: " + errno_text(errno));
  if (tmp.close() != 0) fail(path, "close failed: " + errno_text(errno));

  std::error_code ec;
  std::filesystem::rename(tmp.path(), path, ec);
  if (ec) fail(path, "cannot rename '" + tmp.path().string() + "' over it: " + ec.message());
  tmp.commit();
}

}  // namespace fathom::sim
