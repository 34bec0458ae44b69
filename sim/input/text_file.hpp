// Reading an input file (a scenario, a catalog, a flows CSV, a measurement log) whole, with the
// checks every reader needs before it parses anything: the path is a regular file (a folder, a
// device such as /dev/zero or a pipe would be read forever or as nothing), no larger than the
// reader's limit, and readable. Line endings are made uniform, so that a file saved with CR
// (classic Mac) or CRLF (Windows) line endings is read line by line like one with LF.
#pragma once

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

namespace fathom::sim {

// Why an input file cannot be read, in the terms of a located error: what was expected of the
// file and what was found instead. Each reader rethrows it as its own error, with the file.
class InputFileError : public std::runtime_error {
 public:
  InputFileError(std::string expected, std::string found)
      : std::runtime_error("expected " + expected + ", found " + found),
        expected_(std::move(expected)),
        found_(std::move(found)) {}
  const std::string& expected() const { return expected_; }
  const std::string& found() const { return found_; }

 private:
  std::string expected_;
  std::string found_;
};

// The largest input files fathom reads. A YAML file becomes a node tree of about 250 times its
// size in memory (yaml-cpp), so scenarios, catalogs and profiles are held to 16 MiB; flows and
// measurement files are read line by line, up to 1 GiB.
inline constexpr std::uint64_t kMaxYamlBytes = std::uint64_t{16} << 20;
inline constexpr std::uint64_t kMaxTableBytes = std::uint64_t{1} << 30;

// The whole text of `path`, with CRLF and lone CR line endings turned into LF; InputFileError
// when it is not a regular file, is larger than `max_bytes`, or cannot be read.
std::string read_text_file(const std::filesystem::path& path, std::uint64_t max_bytes);

// The same for a file that may be gzip-compressed (a trace as its archive ships it, `.swf.gz`):
// when it starts with gzip's magic bytes it is decompressed first, every member of it, and
// `max_bytes` bounds the decompressed text too; InputFileError as above, or for a corrupt or
// truncated stream.
std::string read_text_file_or_gzip(const std::filesystem::path& path, std::uint64_t max_bytes);

// The decompressed contents of gzip data (one or more members, as `gzip` writes and `cat` joins
// them); InputFileError for data that is not gzip, is corrupt or truncated, or would inflate to
// more than `max_bytes`.
std::string gunzip(std::string_view data, std::uint64_t max_bytes);

// `text` with CRLF and lone CR line endings turned into LF.
std::string uniform_line_endings(std::string text);

}  // namespace fathom::sim
