// Where a command's outputs go: a file, written atomically (a temporary file renamed, so a
// failed run never leaves half a file), or standard output for "-".
#pragma once

#include <functional>
#include <ostream>
#include <string>

namespace fathom::report {

// True when `path` names standard output.
inline bool is_stdout(const std::string& path) { return path == "-"; }

// Writes `write`'s output to `path`, or to standard output for "-".
void write_output(const std::string& path, const std::function<void(std::ostream&)>& write);

}  // namespace fathom::report
