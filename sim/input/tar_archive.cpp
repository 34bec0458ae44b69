#include "sim/input/tar_archive.hpp"

#include <cstdint>
#include <optional>
#include <utility>

#include "sim/input/text_file.hpp"

namespace fathom::sim {

namespace {

constexpr std::size_t kBlock = 512;

// A header's octal field (size, checksum): digits, ended by NUL or blank.
std::optional<std::uint64_t> octal(std::string_view field) {
  std::size_t i = 0;
  while (i < field.size() && field[i] == ' ') ++i;
  std::uint64_t v = 0;
  bool any = false;
  for (; i < field.size() && field[i] >= '0' && field[i] <= '7'; ++i) {
    if (v > (std::uint64_t{1} << 60)) return std::nullopt;
    v = v * 8 + static_cast<std::uint64_t>(field[i] - '0');
    any = true;
  }
  for (; i < field.size(); ++i) {
    if (field[i] != '\0' && field[i] != ' ') return std::nullopt;
  }
  if (!any) return std::nullopt;
  return v;
}

// A NUL-padded text field.
std::string text(std::string_view field) { return std::string(field.substr(0, field.find('\0'))); }

// The `path` record of a pax extended header ("<length> path=<value>\n" records), if any.
std::optional<std::string> pax_path(std::string_view records) {
  while (!records.empty()) {
    const std::size_t space = records.find(' ');
    if (space == std::string_view::npos) return std::nullopt;
    std::size_t length = 0;
    for (std::size_t i = 0; i < space; ++i) {
      if (records[i] < '0' || records[i] > '9') return std::nullopt;
      length = length * 10 + static_cast<std::size_t>(records[i] - '0');
      if (length > records.size()) return std::nullopt;
    }
    if (length <= space + 1 || records[length - 1] != '\n') return std::nullopt;
    const std::string_view record = records.substr(space + 1, length - space - 2);
    if (record.rfind("path=", 0) == 0) return std::string(record.substr(5));
    records.remove_prefix(length);
  }
  return std::nullopt;
}

}  // namespace

std::vector<TarMember> read_tar(std::string_view archive) {
  std::vector<TarMember> members;
  std::optional<std::string> next_name;  // from a pax header, for the member after it
  std::size_t at = 0;
  while (true) {
    if (at + kBlock > archive.size()) {
      // The archive ends with zero blocks; running out of bytes before them is a cut archive,
      // unless nothing at all was there.
      if (at == archive.size() && !members.empty()) break;
      throw InputFileError("a tar archive", at == 0 ? "no tar header" : "an archive cut short");
    }
    const std::string_view header = archive.substr(at, kBlock);
    if (header.find_first_not_of('\0') == std::string_view::npos) break;  // the end-of-archive block
    const auto stored = octal(header.substr(148, 8));
    std::uint64_t sum = 0;
    for (std::size_t i = 0; i < kBlock; ++i) {
      sum += (i >= 148 && i < 156) ? static_cast<std::uint64_t>(' ') : static_cast<unsigned char>(header[i]);
    }
    if (!stored || *stored != sum) {
      throw InputFileError("a tar header with a valid checksum",
                           "a header at byte " + std::to_string(at) + " whose checksum does not match");
    }
    const auto size = octal(header.substr(124, 12));
    if (!size) throw InputFileError("a tar header with a size", "a header at byte " + std::to_string(at) + " without");
    const char type = header[156];
    at += kBlock;
    if (*size > archive.size() - at) throw InputFileError("a tar archive", "a member cut short");
    const std::string_view data = archive.substr(at, *size);
    at += (*size + kBlock - 1) / kBlock * kBlock;
    if (at > archive.size()) at = archive.size();
    if (type == 'x') {
      next_name = pax_path(data);
      continue;
    }
    if (type == 'g') continue;
    std::string name = text(header.substr(0, 100));
    if (header.substr(257, 5) == "ustar") {
      const std::string prefix = text(header.substr(345, 155));
      if (!prefix.empty()) name = prefix + "/" + name;
    }
    if (next_name) name = *std::exchange(next_name, std::nullopt);
    if (type == '0' || type == '\0') members.push_back({std::move(name), data});
  }
  return members;
}

}  // namespace fathom::sim
