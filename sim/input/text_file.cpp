#include "sim/input/text_file.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <system_error>

#include "sim/input/file_kind.hpp"

namespace fathom::sim {

namespace {

std::string size_text(std::uint64_t bytes) {
  std::ostringstream out;
  if (bytes >= (std::uint64_t{1} << 30)) {
    out << static_cast<double>(bytes) / static_cast<double>(std::uint64_t{1} << 30) << " GiB";
  } else {
    out << static_cast<double>(bytes) / static_cast<double>(std::uint64_t{1} << 20) << " MiB";
  }
  return out.str();
}

}  // namespace

std::string read_text_file(const std::filesystem::path& path, std::uint64_t max_bytes) {
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
  return uniform_line_endings(std::move(text));
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
