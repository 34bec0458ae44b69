#include "report/topology_report.hpp"

#include <algorithm>
#include <map>
#include <string>
#include <utility>

#include "models/cost/census.hpp"
#include "report/terminal.hpp"
#include "scenarios/units.hpp"

namespace fathom::report {

void write_topology_counts(std::FILE* out, const topo::Topology& t) {
  std::map<std::string, std::size_t> vertices, links;
  for (const auto& v : t.vertices()) ++vertices[std::string(topo::to_string(v.kind))];
  for (const auto& l : t.links()) ++links[std::string(topo::to_string(l.cls))];
  std::fprintf(out, "vertices: %zu (", t.vertices().size());
  const char* sep = "";
  for (const auto& [kind, n] : vertices) std::fprintf(out, "%s%zu %s", std::exchange(sep, ", "), n, kind.c_str());
  std::fprintf(out, ")\nlinks:    %zu directed (", t.links().size());
  sep = "";
  for (const auto& [cls, n] : links) std::fprintf(out, "%s%zu %s", std::exchange(sep, ", "), n, cls.c_str());
  std::fprintf(out, ")\n");
}

void write_topology_description(std::FILE* out, const topo::Topology& t) {
  const auto& s = t.summary;
  std::fprintf(out, "%s\n\n", s.description.c_str());
  write_topology_counts(out, t);
  std::fprintf(out, "\n  tier  switches  cables (up to this tier)  oversubscription\n");
  const std::size_t tiers = std::max(s.switches_per_tier.size(), s.cables_per_tier.size());
  for (std::size_t i = 0; i < tiers; ++i) {
    std::fprintf(out, "  %4zu  %8zu  %23zu  %16.2f\n", i, i < s.switches_per_tier.size() ? s.switches_per_tier[i] : 0,
                 i < s.cables_per_tier.size() ? s.cables_per_tier[i] : 0,
                 i < s.oversubscription_per_tier.size() ? s.oversubscription_per_tier[i] : 1.0);
  }
  std::fprintf(out, "\nendpoints: %zu; bisection bandwidth: %s (one direction)\n", s.endpoints,
               scenario::format_bytes_per_s(s.bisection_bytes_per_s).c_str());
  // What the cost model prices: the parts, and the switch ports each tier's cables take.
  std::fprintf(out, "\n%s", cost::to_string(cost::census_of(t)).c_str());
}

}  // namespace fathom::report
