// replay-simgrid LINKS.csv ROUTES.csv FLOWS.csv: replays fathom's own outputs in SimGrid
// (Debian's libsimgrid-dev 3.32), an independent flow-level simulator, and checks that every
// flow's finish time agrees within 1e-6 relative or 1 us, whichever is larger. It also prints
// SimGrid's wall time, from the first platform call to the end of its run, and the process's
// peak memory, for the benchmark beside fathom's own (bench/simgrid_compare.sh).
//
// SimGrid is set to plain max-min, the model fathom implements (docs/network.md):
//   * network/model:CM02 with its factors at 1, 1 and 0 (the default LV08 scales latency and
//     bandwidth and weighs flows by their round-trip time);
//   * network/crosstraffic:0 (by default each flow also loads its reverse route by 5%);
//   * every link has zero latency, and each flow starts at its start plus its route's latency
//     instead: in CM02 a flow's latency also weighs its share, and fathom's flow waits its
//     latency and then shares plainly.
// Each link of the CSV is one SHARED SimGrid link (fathom's links are directed). Each flow gets
// two hosts of its own in a zone of its own, with one route through its links: flows between
// the same two NICs may take different ECMP paths, and one zone for all would hold a route
// table of (2 x flows)^2 entries. Flows spread over several paths (adaptive routing) have no
// SimGrid equivalent and are refused.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <exception>
#include <simgrid/s4u.hpp>
#include <string>
#include <vector>

#include "tests/support/flow_csv.hpp"

namespace sg4 = simgrid::s4u;

namespace {

double route_latency_s(const fathom::test::FlowCsv& csv, const fathom::test::CsvFlow& flow) {
  double latency = 0;
  for (std::uint32_t l : flow.route) latency += csv.links[l].latency_s;
  return latency;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: replay-simgrid LINKS.csv ROUTES.csv FLOWS.csv\n");
    return 2;
  }
  try {
    const auto csv = fathom::test::read_flow_csv(argv[1], argv[2], argv[3]);
    for (const auto& f : csv.flows) {
      if (!f.fractions.empty()) {
        throw std::runtime_error("flow " + f.id + " is spread over several paths; SimGrid routes a flow on one path");
      }
    }
    std::vector<double> finish(csv.flows.size(), 0.0);
    const auto started = std::chrono::steady_clock::now();
    int sg_argc = 1;
    char name[] = "replay-simgrid";
    char* sg_argv[] = {name, nullptr};
    sg4::Engine engine(&sg_argc, sg_argv);
    sg4::Engine::set_config("network/model:CM02");
    sg4::Engine::set_config("network/crosstraffic:0");
    sg4::Engine::set_config("network/TCP-gamma:0");
    auto* root = sg4::create_full_zone("root");
    std::vector<const sg4::Link*> links;
    links.reserve(csv.links.size());
    for (const auto& l : csv.links) {
      links.push_back(root->create_link(l.name, l.bytes_per_s)->set_latency(0)->seal());
    }
    for (std::size_t i = 0; i < csv.flows.size(); ++i) {
      const auto& flow = csv.flows[i];
      const double active_s = flow.start_s + route_latency_s(csv, flow);
      if (flow.route.empty()) {
        finish[i] = flow.start_s;  // source and destination are one endpoint: nothing to share
        continue;
      }
      auto* zone = sg4::create_full_zone("f" + std::to_string(i));
      zone->set_parent(root);
      auto* src = zone->create_host("f" + std::to_string(i) + ".src", 1e9)->seal();
      auto* dst = zone->create_host("f" + std::to_string(i) + ".dst", 1e9)->seal();
      std::vector<sg4::LinkInRoute> hops;
      for (std::uint32_t l : flow.route) hops.emplace_back(links[l]);
      zone->add_route(src->get_netpoint(), dst->get_netpoint(), nullptr, nullptr, hops, false);
      zone->seal();
      sg4::Actor::create("a" + std::to_string(i), src, [&finish, i, src, dst, active_s, bytes = flow.bytes] {
        sg4::this_actor::sleep_until(active_s);
        if (bytes > 0) sg4::Comm::sendto(src, dst, static_cast<std::uint64_t>(bytes));
        finish[i] = sg4::Engine::get_clock();
      });
    }
    root->seal();
    engine.run();
    const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    std::printf("simgrid_wall_s=%.3f simgrid_peak_mib=%.1f\n", wall_s, static_cast<double>(usage.ru_maxrss) / 1024);
    return fathom::test::compare_finishes(csv, finish, "SimGrid") == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "replay-simgrid: %s\n", e.what());
    return 2;
  }
}
