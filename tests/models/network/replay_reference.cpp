// replay-reference LINKS.csv ROUTES.csv FLOWS.csv: replays fathom's own outputs in the
// independent reference solver (tests/support/reference_maxmin.hpp) and checks that every
// flow's finish time agrees within 1e-6 relative or 1 us, whichever is larger. It reads only
// the CSVs, as another simulator would: links by name with capacity and latency, each
// flow's route as link names (each with `*fraction` when the flow is spread over several paths),
// and each flow's bytes, start and fathom's finish.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "tests/support/reference_maxmin.hpp"

namespace {

std::vector<std::vector<std::string>> read_csv(const char* path, const std::string& header) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(std::string("cannot read ") + path);
  std::string line;
  std::getline(in, line);
  if (line != header) throw std::runtime_error(std::string(path) + ": header is not " + header);
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

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: replay-reference LINKS.csv ROUTES.csv FLOWS.csv\n");
    return 2;
  }
  try {
    const auto links = read_csv(argv[1], "name,from,to,bytes_per_s,latency_ns");
    const auto routes = read_csv(argv[2], "id,links");
    const auto flows = read_csv(argv[3], "id,src,dst,bytes,start_s,finish_s");
    std::unordered_map<std::string, std::uint32_t> link_id;
    std::vector<double> capacity, latency_s;
    for (const auto& l : links) {
      link_id[l[0]] = static_cast<std::uint32_t>(capacity.size());
      capacity.push_back(std::stod(l[3]));
      latency_s.push_back(std::stod(l[4]) * 1e-9);
    }
    std::unordered_map<std::string, std::vector<std::uint32_t>> route_of;
    std::unordered_map<std::string, std::vector<double>> fractions_of;
    for (const auto& r : routes) {
      std::vector<std::uint32_t> route;
      std::vector<double> fractions;
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
      route_of[r[0]] = route;
      fractions_of[r[0]] = fractions;
    }
    std::vector<fathom::test::RefFlow> ref;
    std::vector<double> fathom_finish;
    for (const auto& f : flows) {
      ref.push_back({route_of.at(f[0]), std::stod(f[3]), std::stod(f[4]), fractions_of.at(f[0])});
      fathom_finish.push_back(std::stod(f[5]));
    }
    const auto expected = fathom::test::simulate_flows(capacity, latency_s, ref);
    double worst_abs = 0, worst_rel = 0;
    std::size_t bad = 0;
    for (std::size_t i = 0; i < ref.size(); ++i) {
      const double diff = std::abs(fathom_finish[i] - expected[i]);
      worst_abs = std::max(worst_abs, diff);
      worst_rel = std::max(worst_rel, expected[i] > 0 ? diff / expected[i] : 0.0);
      if (diff > std::max(1e-6 * expected[i], 1e-6)) {
        if (bad++ < 5) {
          std::printf("flow %s: fathom %.9g s, reference %.9g s\n", flows[i][0].c_str(), fathom_finish[i], expected[i]);
        }
      }
    }
    std::printf("flows=%zu mismatches=%zu max_abs_error_s=%.3g max_rel_error=%.3g\n", ref.size(), bad, worst_abs,
                worst_rel);
    return bad == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "replay-reference: %s\n", e.what());
    return 2;
  }
}
