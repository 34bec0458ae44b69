// write_file_atomically: the target holds either the old content or the whole new content,
// and no temporary file survives a failure.
#include "sim/output/atomic_file.hpp"

#include <doctest/doctest.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include "tests/sim/scratch_dir.hpp"

using fathom::sim::write_file_atomically;
using fathom::test::entries;
using fathom::test::read_file;
using fathom::test::ScratchDir;
namespace fs = std::filesystem;

TEST_CASE("atomic file: success writes exactly the content") {
  ScratchDir dir;
  const fs::path target = dir.path() / "report.json";
  const std::string content = std::string("{\"a\":1}\n") + std::string("\0\xff binary", 9) + std::string(200000, 'x');
  write_file_atomically(target, [&](std::ostream& out) { out << content; });
  CHECK(read_file(target) == content);
  CHECK(entries(dir.path()) == std::vector<std::string>{"report.json"});

  // A second write replaces the first entirely, even when shorter.
  write_file_atomically(target, [](std::ostream& out) { out << "short"; });
  CHECK(read_file(target) == "short");
  CHECK(entries(dir.path()) == std::vector<std::string>{"report.json"});

  // An empty write gives an empty file, not a missing one.
  write_file_atomically(target, [](std::ostream&) {});
  CHECK(fs::exists(target));
  CHECK(fs::file_size(target) == 0);
}

TEST_CASE("atomic file: a writer that throws midway leaves the old file untouched") {
  ScratchDir dir;
  const fs::path target = dir.path() / "report.json";
  write_file_atomically(target, [](std::ostream& out) { out << "old content"; });

  try {
    write_file_atomically(target, [](std::ostream& out) {
      out << std::string(100000, 'n');  // more than the buffer, so part of it reached the temporary
      throw std::invalid_argument("model produced NaN");
    });
    FAIL("no exception");
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    CHECK(what.find(target.string()) != std::string::npos);
    CHECK(what.find("model produced NaN") != std::string::npos);
    // The original exception stays reachable for callers that want its type.
    CHECK_THROWS_AS(std::rethrow_if_nested(e), std::invalid_argument);
  }
  CHECK(read_file(target) == "old content");
  CHECK(entries(dir.path()) == std::vector<std::string>{"report.json"});
}

TEST_CASE("atomic file: a failed stream is an error, not a silent truncation") {
  ScratchDir dir;
  const fs::path target = dir.path() / "report.json";
  write_file_atomically(target, [](std::ostream& out) { out << "old content"; });
  CHECK_THROWS_AS(write_file_atomically(target,
                                        [](std::ostream& out) {
                                          out << "partial";
                                          out.setstate(std::ios::badbit);
                                        }),
                  std::runtime_error);
  CHECK(read_file(target) == "old content");
  CHECK(entries(dir.path()) == std::vector<std::string>{"report.json"});
}

TEST_CASE("atomic file: a nonexistent directory throws naming the path and the reason") {
  ScratchDir dir;
  const fs::path target = dir.path() / "no" / "such" / "dir" / "report.json";
  bool called = false;
  try {
    write_file_atomically(target, [&](std::ostream&) { called = true; });
    FAIL("no exception");
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    CHECK(what.find(target.string()) != std::string::npos);
    CHECK(what.find(std::error_code(ENOENT, std::generic_category()).message()) != std::string::npos);
  }
  CHECK_FALSE(called);
  CHECK(entries(dir.path()).empty());
}

TEST_CASE("atomic file: a directory in the way of the target is reported and cleaned up") {
  ScratchDir dir;
  const fs::path target = dir.path() / "report.json";
  fs::create_directory(target);
  fs::create_directory(target / "keep");  // a non-empty directory cannot be replaced by rename
  try {
    write_file_atomically(target, [](std::ostream& out) { out << "x"; });
    FAIL("no exception");
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()).find(target.string()) != std::string::npos);
  }
  CHECK(entries(dir.path()) == std::vector<std::string>{"report.json"});
  CHECK(fs::is_directory(target / "keep"));
}
