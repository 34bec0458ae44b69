#include "sim/output/output_set.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <exception>
#include <optional>
#include <stdexcept>
#include <streambuf>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "sim/input/file_kind.hpp"

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
  TemporaryFile(TemporaryFile&& other) noexcept
      : fd_(std::exchange(other.fd_, -1)), path_(other.path_), committed_(std::exchange(other.committed_, true)) {}
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;
  TemporaryFile& operator=(TemporaryFile&&) = delete;
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

constexpr std::string_view kTemporaryTag = ".tmp-";

// A name for a new temporary beside `path`. The pid separates concurrent fathom processes, the
// counter the temporaries of one; O_EXCL settles any remaining collision (a file left by a
// killed run whose pid was recycled) by moving on to the next counter value.
std::filesystem::path temporary_name(const std::filesystem::path& path) {
  static std::atomic<std::uint64_t> counter{0};
  std::filesystem::path tmp = path;
  tmp += std::string(kTemporaryTag) + std::to_string(::getpid()) + "-" + std::to_string(counter.fetch_add(1));
  return tmp;
}

constexpr int kAttempts = 100;

TemporaryFile create_temporary(const std::filesystem::path& path) {
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    std::filesystem::path tmp = temporary_name(path);
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) return TemporaryFile(fd, std::move(tmp));
    if (errno != EEXIST) fail(path, "cannot create the temporary file '" + tmp.string() + "': " + errno_text(errno));
  }
  fail(path, "cannot find an unused temporary file name after " + std::to_string(kAttempts) + " attempts");
}

// A hard link to `path`'s current content under a temporary name, so that a failed commit can
// put it back; none when the file system refuses (the commit then cannot restore this target).
std::optional<std::filesystem::path> link_backup(const std::filesystem::path& path) {
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    std::filesystem::path backup = temporary_name(path);
    if (::link(path.c_str(), backup.c_str()) == 0) return backup;
    if (errno != EEXIST) return std::nullopt;
  }
  return std::nullopt;
}

// The target must be a regular file or absent: renaming over a device node (/dev/null, as root)
// would replace the device with a file.
std::string target_problem(const std::filesystem::path& path) {
  std::error_code ec;
  const auto s = std::filesystem::status(path, ec);
  if (ec && s.type() != std::filesystem::file_type::not_found) return "cannot inspect it: " + ec.message();
  if (s.type() == std::filesystem::file_type::not_found || s.type() == std::filesystem::file_type::regular) return "";
  return "it is " + describe_file_type(s.type()) + "; outputs are regular files, or - for standard output";
}

std::filesystem::path folder_of(const std::filesystem::path& path) {
  return path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
}

std::string folder_problem(const std::filesystem::path& path) {
  const std::filesystem::path folder = folder_of(path);
  std::error_code ec;
  const auto s = std::filesystem::status(folder, ec);
  if (s.type() == std::filesystem::file_type::not_found) return "the folder '" + folder.string() + "' does not exist";
  if (ec) return "cannot inspect the folder '" + folder.string() + "': " + ec.message();
  if (s.type() != std::filesystem::file_type::directory) return "'" + folder.string() + "' is not a folder";
  if (::access(folder.c_str(), W_OK | X_OK) != 0) {
    return "the folder '" + folder.string() + "' is not writable (" + errno_text(errno) + ")";
  }
  return "";
}

// True when the process `pid` is gone (so its temporaries are stale).
bool process_gone(long pid) { return pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH; }

// The pid in `name` when it is "<base>.tmp-<pid>-<n>", else 0.
long temporary_pid(const std::string& name, const std::string& base) {
  const std::string prefix = base + std::string(kTemporaryTag);
  if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) return 0;
  const std::string rest = name.substr(prefix.size());
  const auto dash = rest.find('-');
  if (dash == 0 || dash == std::string::npos || dash + 1 == rest.size() || dash > 9) return 0;
  const auto digits = [](const std::string& s) { return s.find_first_not_of("0123456789") == std::string::npos; };
  if (!digits(rest.substr(0, dash)) || !digits(rest.substr(dash + 1))) return 0;
  return std::stol(rest.substr(0, dash));
}

}  // namespace

// A staged output: its temporary, written and closed, waiting to be renamed over `target`.
struct OutputSet::Staged {
  std::filesystem::path target;
  TemporaryFile temporary;
};

OutputSet::OutputSet() = default;
OutputSet::~OutputSet() = default;  // each Staged's TemporaryFile unlinks what was not renamed

void OutputSet::declare(const std::string& flag, const std::filesystem::path& path) {
  if (path.empty() || path == "-") return;
  const auto refuse = [&](const std::string& why) {
    throw std::invalid_argument(flag + " " + path.string() + ": " + why);
  };
  if (const std::string p = folder_problem(path); !p.empty()) refuse(p);
  if (const std::string p = target_problem(path); !p.empty()) refuse(p);
  std::error_code ec;
  std::filesystem::path canonical = std::filesystem::weakly_canonical(path, ec);
  if (ec) canonical = std::filesystem::absolute(path);
  for (const auto& [other, seen] : declared_) {
    if (seen == canonical) refuse("the same file as " + other + "; each output needs its own path");
  }
  declared_.emplace_back(flag, std::move(canonical));
}

void OutputSet::stage(const std::filesystem::path& path, const std::function<void(std::ostream&)>& write) {
  if (const std::string p = target_problem(path); !p.empty()) fail(path, p);
  remove_stale_temporaries(path);
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
  // Without fsync a crash shortly after the rename could leave an empty file under the new name
  // on some file systems (ext4 delayed allocation): the partial output this exists to prevent.
  if (::fsync(tmp.fd()) != 0) fail(path, "fsync failed: " + errno_text(errno));
  if (tmp.close() != 0) fail(path, "close failed: " + errno_text(errno));
  staged_.push_back(std::make_unique<Staged>(Staged{path, std::move(tmp)}));
}

void OutputSet::commit() {
  // The old content of each target, linked aside, so that a failed rename can be undone.
  struct Replaced {
    const Staged* staged;
    std::optional<std::filesystem::path> backup;
  };
  std::vector<Replaced> done;
  const auto undo = [&] {
    for (auto it = done.rbegin(); it != done.rend(); ++it) {
      if (it->backup) {
        ::rename(it->backup->c_str(), it->staged->target.c_str());
      } else {
        ::unlink(it->staged->target.c_str());
      }
    }
  };
  std::vector<std::optional<std::filesystem::path>> backups;
  for (const auto& s : staged_) {
    std::error_code ec;
    backups.push_back(std::filesystem::is_regular_file(s->target, ec) ? link_backup(s->target) : std::nullopt);
  }
  for (std::size_t i = 0; i < staged_.size(); ++i) {
    Staged& s = *staged_[i];
    if (::rename(s.temporary.path().c_str(), s.target.c_str()) != 0) {
      const std::string why = errno_text(errno);
      const std::filesystem::path target = s.target, temporary = s.temporary.path();
      undo();
      for (const auto& b : backups) {
        if (b) ::unlink(b->c_str());
      }
      staged_.clear();  // removes the temporaries not renamed
      fail(target, "cannot rename '" + temporary.string() + "' over it: " + why +
                       (done.empty() ? "" : "; the outputs renamed before it were restored"));
    }
    s.temporary.commit();
    done.push_back({&s, backups[i]});
  }
  for (const auto& b : backups) {
    if (b) ::unlink(b->c_str());
  }
  staged_.clear();
}

std::vector<std::filesystem::path> OutputSet::staged() const {
  std::vector<std::filesystem::path> targets;
  for (const auto& s : staged_) targets.push_back(s->target);
  return targets;
}

void remove_stale_temporaries(const std::filesystem::path& path) {
  const std::string base = path.filename().string();
  std::error_code ec;
  std::filesystem::directory_iterator it(folder_of(path), ec);
  if (ec) return;
  for (const auto& entry : it) {
    const std::string name = entry.path().filename().string();
    const long pid = temporary_pid(name, base);
    if (pid != 0 && pid != static_cast<long>(::getpid()) && process_gone(pid)) ::unlink(entry.path().c_str());
  }
}

}  // namespace fathom::sim
