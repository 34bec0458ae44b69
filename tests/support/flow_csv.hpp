// Reads the three CSVs fathom writes for a flow-level run, as another simulator would:
// `fathom topology --links` (name,from,to,bytes_per_s,latency_ns), `--routes` (id,links: link
// names joined by `;`, each with `*fraction` when the flow is spread over several paths) and
// `fathom simulate --flows-out` (id,src,dst,bytes,start_s,finish_s). The replay programs
// (replay-reference, replay-simgrid) share it, so both read exactly the same flows.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

namespace fathom::test {

struct CsvLink {
  std::string name;
  double bytes_per_s = 0;
  double latency_s = 0;
};

struct CsvFlow {
  std::string id;
  std::vector<std::uint32_t> route;  // indices into FlowCsv::links
  std::vector<double> fractions;     // empty: the whole flow crosses every link
  double bytes = 0;
  double start_s = 0;
  double fathom_finish_s = 0;
};

struct FlowCsv {
  std::vector<CsvLink> links;
  std::vector<CsvFlow> flows;
};

namespace flow_csv_detail {

inline std::vector<std::vector<std::string>> read_rows(const std::string& path, const std::string& header) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::string line;
  std::getline(in, line);
  if (line != header) throw std::runtime_error(path + ": header is not " + header);
  std::vector<std::vector<std::string>> rows;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::stringstream s(line);
    std::string cell;
    while (std::getline(s, cell, ',')) cells.push_back(cell);
    rows.push_back(cells);
  }
  return rows;
}

}  // namespace flow_csv_detail

inline FlowCsv read_flow_csv(const std::string& links_path, const std::string& routes_path,
                             const std::string& flows_path) {
  using flow_csv_detail::read_rows;
  FlowCsv out;
  std::unordered_map<std::string, std::uint32_t> link_id;
  for (const auto& l : read_rows(links_path, "name,from,to,bytes_per_s,latency_ns")) {
    link_id[l.at(0)] = static_cast<std::uint32_t>(out.links.size());
    out.links.push_back({l.at(0), std::stod(l.at(3)), std::stod(l.at(4)) * 1e-9});
  }
  std::unordered_map<std::string, std::pair<std::vector<std::uint32_t>, std::vector<double>>> route_of;
  for (const auto& r : read_rows(routes_path, "id,links")) {
    auto& [route, fractions] = route_of[r.at(0)];
    if (r.size() > 1) {
      std::stringstream s(r[1]);
      std::string name;
      while (std::getline(s, name, ';')) {
        const auto star = name.find('*');
        route.push_back(link_id.at(name.substr(0, star)));
        if (star != std::string::npos) fractions.push_back(std::stod(name.substr(star + 1)));
      }
    }
    if (!fractions.empty() && fractions.size() != route.size()) {
      throw std::runtime_error("route " + r[0] + ": some links have a fraction and some not");
    }
  }
  for (const auto& f : read_rows(flows_path, "id,src,dst,bytes,start_s,finish_s")) {
    const auto& [route, fractions] = route_of.at(f.at(0));
    out.flows.push_back({f.at(0), route, fractions, std::stod(f.at(3)), std::stod(f.at(4)), std::stod(f.at(5))});
  }
  return out;
}

// Compares finish times flow by flow: a flow agrees when it is within 1e-6 relative or 1 us of
// `expected`, whichever is larger. Prints the first few disagreements and a summary line;
// returns the number of flows that disagree.
inline std::size_t compare_finishes(const FlowCsv& csv, const std::vector<double>& expected, const char* other) {
  double worst_abs = 0, worst_rel = 0;
  std::size_t bad = 0;
  for (std::size_t i = 0; i < csv.flows.size(); ++i) {
    const double fathom = csv.flows[i].fathom_finish_s;
    const double diff = std::abs(fathom - expected[i]);
    worst_abs = std::max(worst_abs, diff);
    worst_rel = std::max(worst_rel, expected[i] > 0 ? diff / expected[i] : 0.0);
    if (!(diff <= std::max(1e-6 * expected[i], 1e-6))) {
      if (bad++ < 5) {
        std::printf("flow %s: fathom %.9g s, %s %.9g s\n", csv.flows[i].id.c_str(), fathom, other, expected[i]);
      }
    }
  }
  std::printf("flows=%zu mismatches=%zu max_abs_error_s=%.3g max_rel_error=%.3g\n", csv.flows.size(), bad, worst_abs,
              worst_rel);
  return bad;
}

}  // namespace fathom::test
