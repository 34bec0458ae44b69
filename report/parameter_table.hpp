// docs/parameters.md, generated from the declared parameters (models/params/parameter.hpp):
// every declared key with its quantity, default, calibration name, meaning and source.
// Regenerate with `build/tests/parameter-table > docs/parameters.md`; the ctest
// `parameter_table_docs` fails while the file and the code disagree.
#pragma once

#include <string>

namespace fathom::report {

std::string parameter_tables_markdown();

}  // namespace fathom::report
