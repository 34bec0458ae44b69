// `fathom catalog list` and `fathom catalog show NAME`: what a scenario can name (accelerators,
// switches, nodes, models), built-in and from the user catalogs in scope
// (scenarios/user_catalogs.hpp), each with the file it comes from.
#pragma once

#include <cstdio>
#include <string>

namespace fathom::report {

// Every entry by kind: name, the file it comes from, its source cut to one line.
void write_catalog_list(std::FILE* out);

// One entry's figures, file and source. std::invalid_argument, with a "did you mean", when no
// entry has the name.
void write_catalog_entry(std::FILE* out, const std::string& name);

}  // namespace fathom::report
