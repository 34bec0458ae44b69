// A command's outputs: every file it was asked for, checked before the command does any work and
// written together when it has finished (sim/output/output_set.hpp), or none of them when it
// fails or is interrupted. What goes to standard output ("-") is printed as it comes.
#pragma once

#include <cstdio>
#include <functional>
#include <initializer_list>
#include <ostream>
#include <string>
#include <utility>

#include "sim/output/output_set.hpp"

namespace fathom::cli {

class Outputs {
 public:
  // Checks each (flag, path) now: std::invalid_argument naming the flag when a folder is
  // missing or not writable, a target is not a regular file, or two outputs share a path.
  Outputs(std::initializer_list<std::pair<std::string, std::string>> declared);

  // The command's main output, printed by `write`: into `path` (-o FILE), else on standard
  // output, or standard error when another output took standard output (`stdout_taken`);
  // nothing with --quiet unless -o names a file.
  void report(const std::string& path, bool stdout_taken, const std::function<void(std::FILE*)>& write);

  // A file output (--json, --flows-out, ...), or standard output for "-".
  void file(const std::string& path, const std::function<void(std::ostream&)>& write);

  // Writes every file output into place, all or none; a signal received before this (Ctrl-C)
  // stops here with sim::Interrupted and nothing is written. Notes each file with --verbose.
  void commit();

 private:
  sim::OutputSet set_;
};

}  // namespace fathom::cli
