#include "sim/input/text_file.hpp"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <system_error>

#include "sim/input/file_kind.hpp"

namespace fathom::sim {

namespace {

std::string size_text(std::uint64_t bytes) {
  std::ostringstream out;
  if (bytes < (std::uint64_t{1} << 20)) {
    out << bytes << " bytes";
  } else if (bytes >= (std::uint64_t{1} << 30)) {
    out << static_cast<double>(bytes) / static_cast<double>(std::uint64_t{1} << 30) << " GiB";
  } else {
    out << static_cast<double>(bytes) / static_cast<double>(std::uint64_t{1} << 20) << " MiB";
  }
  return out.str();
}

}  // namespace

namespace {

// The file's bytes as they are, with read_text_file's checks.
std::string read_file_bytes(const std::filesystem::path& path, std::uint64_t max_bytes) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (status.type() == std::filesystem::file_type::not_found) throw InputFileError("an existing file", "no such file");
  if (ec) throw InputFileError("a readable file", ec.message());
  if (status.type() != std::filesystem::file_type::regular) {
    throw InputFileError("a regular file", describe_file_type(status.type()));
  }
  const std::uint64_t size = std::filesystem::file_size(path, ec);
  if (ec) throw InputFileError("a readable file", ec.message());
  if (size > max_bytes) {
    throw InputFileError("a file of at most " + size_text(max_bytes), "a file of " + size_text(size));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int error = errno;
    throw InputFileError("a readable file", error != 0 ? std::strerror(error) : "a file that cannot be opened");
  }
  std::string text;
  text.resize(static_cast<std::size_t>(size));
  in.read(text.data(), static_cast<std::streamsize>(size));
  if (in.bad() || static_cast<std::uint64_t>(in.gcount()) != size) {
    throw InputFileError("a readable file", "a read error");
  }
  return text;
}

bool is_gzip(std::string_view data) {
  return data.size() >= 2 && static_cast<unsigned char>(data[0]) == 0x1f && static_cast<unsigned char>(data[1]) == 0x8b;
}

}  // namespace

std::string read_text_file(const std::filesystem::path& path, std::uint64_t max_bytes) {
  return uniform_line_endings(read_file_bytes(path, max_bytes));
}

std::string read_text_file_or_gzip(const std::filesystem::path& path, std::uint64_t max_bytes) {
  std::string bytes = read_file_bytes(path, max_bytes);
  if (is_gzip(bytes)) bytes = gunzip(bytes, max_bytes);
  return uniform_line_endings(std::move(bytes));
}

std::string gunzip(std::string_view data, std::uint64_t max_bytes) {
  if (!is_gzip(data)) throw InputFileError("gzip data", "no gzip header");
  z_stream z{};
  // 16 + 15: a gzip wrapper, the largest window.
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) throw InputFileError("gzip data", "zlib could not start");
  std::string out;
  char buffer[1 << 16];
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(std::min<std::size_t>(data.size(), std::numeric_limits<uInt>::max()));
  std::size_t fed = z.avail_in;
  int status = Z_OK;
  std::string failure;
  while (failure.empty()) {
    z.next_out = reinterpret_cast<Bytef*>(buffer);
    z.avail_out = sizeof buffer;
    status = inflate(&z, Z_NO_FLUSH);
    if (status != Z_OK && status != Z_STREAM_END && status != Z_BUF_ERROR) {
      failure = z.msg != nullptr ? std::string("corrupt data (") + z.msg + ")" : "corrupt data";
      break;
    }
    out.append(buffer, sizeof buffer - z.avail_out);
    if (out.size() > max_bytes) {
      failure = "more than " + size_text(max_bytes) + " once decompressed";
      break;
    }
    if (z.avail_in == 0 && fed < data.size()) {  // inputs over 4 GiB arrive in parts
      const std::size_t more = std::min<std::size_t>(data.size() - fed, std::numeric_limits<uInt>::max());
      z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data() + fed));
      z.avail_in = static_cast<uInt>(more);
      fed += more;
    }
    if (status == Z_STREAM_END) {
      // Another member may follow (files joined with cat); trailing zero padding ends the data.
      const std::size_t used = fed - z.avail_in;
      if (!is_gzip(data.substr(used))) {
        if (data.substr(used).find_first_not_of('\0') != std::string_view::npos) failure = "bytes after the gzip data";
        break;
      }
      inflateReset(&z);
    } else if (status == Z_BUF_ERROR && z.avail_in == 0 && fed == data.size()) {
      failure = "a truncated stream";
    }
  }
  inflateEnd(&z);
  if (!failure.empty()) throw InputFileError("gzip data", failure);
  return out;
}

std::string uniform_line_endings(std::string text) {
  if (text.find('\r') == std::string::npos) return text;
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\r') {
      out.push_back(text[i]);
    } else if (i + 1 < text.size() && text[i + 1] == '\n') {
      // CRLF: the LF that follows ends the line.
    } else {
      out.push_back('\n');
    }
  }
  return out;
}

}  // namespace fathom::sim
