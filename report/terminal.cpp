#include "report/terminal.hpp"

#include <string>

namespace fathom::report {

void print_user_catalog_entries(std::FILE* out, const scenario::Scenario& s) {
  std::string line;
  for (const auto& e : s.catalog_entries) {
    if (e.file.rfind("<built-in>", 0) == 0) continue;
    line += (line.empty() ? "" : ", ") + e.kind + " " + e.name + " from " + e.file;
  }
  if (!line.empty()) std::fprintf(out, "catalogs: %s\n", line.c_str());
}

void print_warnings(const topo::TopologySummary& summary) {
  for (const auto& w : summary.warnings) std::fprintf(stderr, "fathom: warning: %s\n", w.message.c_str());
}

}  // namespace fathom::report
