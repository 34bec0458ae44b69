// OutputSet: paths checked before any work, outputs committed all or none, temporaries removed
// whatever happens (and those of a killed run by the next one); the interrupt flag it relies on.
#include "sim/output/output_set.hpp"

#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/interrupt/interrupt.hpp"
#include "tests/sim/scratch_dir.hpp"

using fathom::sim::OutputSet;
using fathom::test::entries;
using fathom::test::read_file;
using fathom::test::ScratchDir;
namespace fs = std::filesystem;

namespace {

void put(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

// The message of the std::invalid_argument that declare() throws, or "" when it accepts.
std::string refusal(OutputSet& set, const std::string& flag, const fs::path& path) {
  try {
    set.declare(flag, path);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// A pid that no process has: a child that has exited and been reaped.
pid_t dead_pid() {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ::waitpid(child, nullptr, 0);
  return child;
}

}  // namespace

TEST_CASE("output set: each path is checked when declared, with the flag in the message") {
  ScratchDir dir;
  OutputSet set;
  CHECK(refusal(set, "--json", "") == "");
  CHECK(refusal(set, "--json", "-") == "");
  CHECK(contains(refusal(set, "--json", dir.path() / "missing" / "a.json"), "--json "));
  CHECK(contains(refusal(set, "--json", dir.path() / "missing" / "a.json"), "/missing' does not exist"));
  CHECK(contains(refusal(set, "--trace", dir.path()), "--trace " + dir.path().string() + ": it is a folder"));
  CHECK(contains(refusal(set, "--json", "/dev/null"), "--json /dev/null: it is a character device"));
  put(dir.path() / "file", "x");
  CHECK(contains(refusal(set, "-o", dir.path() / "file" / "a.json"), "is not a folder"));
  // Two outputs on one file, however spelled, are refused; the first is accepted.
  CHECK(refusal(set, "--json", dir.path() / "a.json") == "");
  CHECK(contains(refusal(set, "--trace", dir.path() / "." / "a.json"),
                 "--trace " + (dir.path() / "." / "a.json").string() + ": the same file as --json"));
  CHECK(refusal(set, "--trace", dir.path() / "b.json") == "");
  CHECK(entries(dir.path()) == std::vector<std::string>{"file"});  // declaring writes nothing
}

TEST_CASE("output set: staged outputs replace their targets only at commit, all together") {
  ScratchDir dir;
  const fs::path a = dir.path() / "a.json", b = dir.path() / "b.json";
  put(a, "old a");
  {
    OutputSet set;
    set.stage(a, [](std::ostream& out) { out << "new a"; });
    set.stage(b, [](std::ostream& out) { out << "new b"; });
    CHECK(read_file(a) == "old a");
    CHECK_FALSE(fs::exists(b));
    CHECK(entries(dir.path()).size() == 3);  // a.json and two temporaries
    CHECK(set.staged() == std::vector<fs::path>{a, b});
    set.commit();
    CHECK(set.staged().empty());
  }
  CHECK(read_file(a) == "new a");
  CHECK(read_file(b) == "new b");
  auto names = entries(dir.path());
  std::sort(names.begin(), names.end());
  CHECK(names == std::vector<std::string>{"a.json", "b.json"});
}

TEST_CASE("output set: a set never committed (an error, an interrupt) leaves the targets and no temporary") {
  ScratchDir dir;
  const fs::path a = dir.path() / "a.json";
  put(a, "old a");
  {
    OutputSet set;
    set.stage(a, [](std::ostream& out) { out << "new a"; });
    set.stage(dir.path() / "b.json", [](std::ostream& out) { out << "new b"; });
    CHECK_THROWS_AS(set.stage(dir.path() / "c.json",
                              [](std::ostream& out) {
                                out << "half";
                                throw std::runtime_error("writer failed");
                              }),
                    std::runtime_error);
  }
  CHECK(entries(dir.path()) == std::vector<std::string>{"a.json"});
  CHECK(read_file(a) == "old a");
}

TEST_CASE("output set: a rename that fails undoes the ones before it") {
  ScratchDir dir;
  const fs::path a = dir.path() / "a.json", b = dir.path() / "b.json", c = dir.path() / "c.json";
  put(a, "old a");
  OutputSet set;
  set.stage(a, [](std::ostream& out) { out << "new a"; });
  set.stage(b, [](std::ostream& out) { out << "new b"; });
  set.stage(c, [](std::ostream& out) { out << "new c"; });
  // A non-empty folder appears where c.json goes: its rename fails after a's and b's.
  fs::create_directories(c / "keep");
  try {
    set.commit();
    FAIL("no exception");
  } catch (const std::runtime_error& e) {
    CHECK(contains(e.what(), c.string()));
    CHECK(contains(e.what(), "the outputs renamed before it were restored"));
  }
  CHECK(read_file(a) == "old a");  // its old content, back
  CHECK_FALSE(fs::exists(b));      // absent before, absent again
  CHECK(fs::is_directory(c / "keep"));
  fs::remove_all(c);
  CHECK(entries(dir.path()) == std::vector<std::string>{"a.json"});  // backups and temporaries gone
}

TEST_CASE("output set: staging removes the temporaries of runs that no longer exist, and only those") {
  ScratchDir dir;
  const fs::path a = dir.path() / "a.json";
  const std::string dead = std::to_string(dead_pid()), alive = std::to_string(::getppid());
  for (const std::string& name :
       {"a.json.tmp-" + dead + "-0", "a.json.tmp-" + dead + "-12", "a.json.tmp-" + alive + "-0",
        "b.json.tmp-" + dead + "-0", "a.json.tmp-" + dead, std::string("a.json.tmp-x-1")}) {
    put(dir.path() / name, "left behind");
  }
  OutputSet set;
  set.stage(a, [](std::ostream& out) { out << "a"; });
  set.commit();
  auto names = entries(dir.path());
  std::sort(names.begin(), names.end());
  std::vector<std::string> kept{"a.json", "a.json.tmp-" + dead, "a.json.tmp-" + alive + "-0", "a.json.tmp-x-1",
                                "b.json.tmp-" + dead + "-0"};
  std::sort(kept.begin(), kept.end());
  CHECK(names == kept);
}

TEST_CASE("interrupt: a signal is recorded by the handler and raised at the next poll, once cleared no more") {
  fathom::sim::install_interrupt_handlers();
  CHECK(fathom::sim::pending_interrupt() == 0);
  CHECK_NOTHROW(fathom::sim::poll_interrupt());
  std::raise(SIGTERM);
  CHECK(fathom::sim::pending_interrupt() == SIGTERM);
  try {
    fathom::sim::poll_interrupt();
    FAIL("no exception");
  } catch (const fathom::sim::Interrupted& e) {
    CHECK(e.signal() == SIGTERM);
    CHECK(std::string(e.what()) == "interrupted by SIGTERM");
  }
  fathom::sim::clear_interrupt();
  CHECK_NOTHROW(fathom::sim::poll_interrupt());
  // The handler gave the signal back its default action; the test process must not keep it.
  std::signal(SIGTERM, SIG_DFL);
  std::signal(SIGINT, SIG_DFL);
}
