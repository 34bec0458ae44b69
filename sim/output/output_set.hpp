// OutputSet: a run's output files, checked before the run and committed together after it.
//
// A failed or interrupted run never leaves half a file, nor a new JSON beside an old trace
// (DESIGN.md, "Scenarios and units"). So every output is:
//  - declared before any work, which checks its path: the folder exists and is writable, the
//    target is a regular file or absent (never a device, a folder or a pipe), and no two outputs
//    share a path;
//  - staged: written whole to a temporary file beside its target and flushed to disk;
//  - committed with the others at the end: each temporary renamed over its target, and if one
//    rename fails the targets already replaced get their old content back, so the set lands
//    all or none. A staged output that is never committed (an error, an interrupt) has its
//    temporary removed.
// Temporaries are named "<target>.tmp-<pid>-<n>". A run killed outright (SIGKILL) cannot remove
// its own, so staging a target first removes those whose process no longer exists.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace fathom::sim {

class OutputSet {
 public:
  OutputSet();
  ~OutputSet();  // removes every temporary not committed
  OutputSet(const OutputSet&) = delete;
  OutputSet& operator=(const OutputSet&) = delete;

  // Checks the output `path` that `flag` (e.g. "--json") asked for, before any work; throws
  // std::invalid_argument naming the flag, the path and what is wrong. An empty path (no
  // output) and "-" (standard output) are not files and are not checked.
  void declare(const std::string& flag, const std::filesystem::path& path);

  // Writes `write`'s output into a new temporary file beside `path`, flushed to disk, to replace
  // `path` at commit(). On failure (the writer throws, the disk is full) the temporary is removed
  // and std::runtime_error is thrown naming `path` and the reason; an exception from `write` is
  // nested inside it (std::rethrow_if_nested recovers it).
  void stage(const std::filesystem::path& path, const std::function<void(std::ostream&)>& write);

  // Renames every staged temporary over its target, in the order staged: all of them, or, when a
  // rename fails, none (the targets already replaced are restored) and std::runtime_error.
  void commit();

  // The targets staged and not yet committed.
  std::vector<std::filesystem::path> staged() const;

 private:
  struct Staged;
  std::vector<std::pair<std::string, std::filesystem::path>> declared_;  // flag, canonical path
  std::vector<std::unique_ptr<Staged>> staged_;
};

// Removes, beside `path`, the temporaries of fathom runs whose process no longer exists.
void remove_stale_temporaries(const std::filesystem::path& path);

}  // namespace fathom::sim
