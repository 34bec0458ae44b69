// replay-reference LINKS.csv ROUTES.csv FLOWS.csv: replays fathom's own outputs in the
// independent reference solver (tests/support/reference_maxmin.hpp) and checks that every
// flow's finish time agrees within 1e-6 relative or 1 us, whichever is larger. It reads only
// the CSVs (tests/support/flow_csv.hpp), as another simulator would: links by name with
// capacity and latency, each flow's route as link names (each with `*fraction` when the flow
// is spread over several paths), and each flow's bytes, start and fathom's finish.
#include <cstdio>
#include <exception>
#include <vector>

#include "tests/support/flow_csv.hpp"
#include "tests/support/reference_maxmin.hpp"

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: replay-reference LINKS.csv ROUTES.csv FLOWS.csv\n");
    return 2;
  }
  try {
    const auto csv = fathom::test::read_flow_csv(argv[1], argv[2], argv[3]);
    std::vector<double> capacity, latency_s;
    for (const auto& l : csv.links) {
      capacity.push_back(l.bytes_per_s);
      latency_s.push_back(l.latency_s);
    }
    std::vector<fathom::test::RefFlow> ref;
    for (const auto& f : csv.flows) ref.push_back({f.route, f.bytes, f.start_s, f.fractions});
    const auto expected = fathom::test::simulate_flows(capacity, latency_s, ref);
    return fathom::test::compare_finishes(csv, expected, "reference") == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "replay-reference: %s\n", e.what());
    return 2;
  }
}
