// fabric-parts-bench: the parallel scheduler on a real scenario. A traffic scenario's flows are
// split into independent parts, each its own network LP (docs/network.md); this times
// net::simulate_transfers on the scenario's flows at 1, 2, 4 ... threads, several rounds in one
// run, and prints each thread count's best time, its speed-up over one thread, and whether
// the fingerprint and every finish match one thread's. Routing is done once, before the timing.
//   build/bench/fabric-parts-bench [SCENARIO] [--threads 1,2,4] [--rounds 3]
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "models/network/flow_transfer.hpp"
#include "report/traffic/traffic_run.hpp"
#include "scenarios/scenario.hpp"

int main(int argc, char** argv) {
  using namespace fathom;
  std::string file = "scenarios/examples/moe-all-to-all-nvlink-2048-nodes.yaml";
  std::vector<unsigned> threads{1, 2, 4};
  int rounds = 3;
  CLI::App app{"Speed-up of a traffic scenario's independent network parts on the parallel scheduler"};
  app.add_option("scenario", file, "a traffic scenario");
  app.add_option("--threads", threads, "thread counts to time")->delimiter(',');
  app.add_option("--rounds", rounds, "runs per thread count (the best is kept)")->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);

  const report::PreparedTraffic p = report::prepare_traffic(scenario::load_scenario(file));
  std::printf("%s: %zu flows\n\n", file.c_str(), p.flows.size());
  std::printf("| threads | parts | partitions | events | best wall s | speed-up | same output |\n");
  std::printf("|---|---|---|---|---|---|---|\n");
  net::TransferResult first;
  double one = 0;
  for (unsigned t : threads) {
    double best = 1e300;
    net::TransferResult result;
    for (int r = 0; r < rounds; ++r) {
      const auto started = std::chrono::steady_clock::now();
      result = net::simulate_transfers(p.topology, p.flows, p.routes, p.scenario.seed, false, t);
      best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
    }
    if (one == 0) {
      one = best;
      first = result;
    }
    bool same = result.fingerprint == first.fingerprint && result.events == first.events;
    for (std::size_t i = 0; same && i < result.flows.size(); ++i)
      same = result.flows[i].finish == first.flows[i].finish;
    std::printf("| %u | %u | %u | %llu | %.3f | %.2f | %s |\n", t, result.parts, result.partitions,
                static_cast<unsigned long long>(result.events), best, one / best, same ? "yes" : "NO");
  }
  return 0;
}
