// network-bench: speed of the flow-level max-min network on fat-tree traffic.
//
// For each fabric size (2-tier leaf-spine, 32 hosts per leaf at 100 Gb/s, 8 spines at
// 400 Gb/s per leaf uplink, 1 us per link) it runs a random permutation of 10^8-byte flows
// all starting at 0, and an all-to-all among the first 64 hosts with 10^7-byte flows
// starting uniformly in [0, 10 ms), and prints flows completed per second, max-min
// re-ratings per second and flows re-rated per second (wall clock), then the exponent of
// cost against hosts fitted between the smallest and largest size. Usage:
//   build/bench/network-bench [--hosts 1024,4096,16384]
#include <CLI/CLI.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "models/network/flow_transfer.hpp"
#include "models/workloads/traffic/traffic_pattern.hpp"
#include "topologies/cluster.hpp"
#include "topologies/routing.hpp"

namespace {

using namespace fathom;

topo::ClusterSpec fabric(int hosts) {
  topo::ClusterSpec spec;
  spec.nodes = hosts;
  spec.node.gpus = 0;
  spec.node.nics = 1;
  spec.node.nic_bytes_per_s = 12.5e9;
  spec.fabric.kind = topo::FabricKind::kFatTree;
  spec.fabric.tiers = 2;
  spec.fabric.hosts_per_leaf = 32;
  spec.fabric.leaves = hosts / 32;
  spec.fabric.spines = 8;
  spec.fabric.tier = {{12.5e9, 1000}, {50e9, 1000}};
  return spec;
}

struct Measured {
  double wall_s;
  std::size_t flows;
  net::TransferResult result;
};

Measured run(const topo::Topology& topology, const workload::TrafficSpec& traffic) {
  std::vector<topo::VertexId> endpoints;
  for (topo::VertexId v = 0; v < topology.vertices().size(); ++v) {
    if (topology.vertex(v).kind == topo::VertexKind::kNic) endpoints.push_back(v);
  }
  const auto started = std::chrono::steady_clock::now();
  const auto flows = workload::generate_traffic(traffic, endpoints, 1);
  topo::Router router(topology);
  const auto routes = net::route_flows(topology, router, flows, 1);
  auto result = net::simulate_transfers(topology, flows, routes, 1);
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return {wall_s, flows.size(), std::move(result)};
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> sizes{1024, 4096, 16384};
  CLI::App app{"Flow-level max-min network speed on fat-tree traffic"};
  app.add_option("--hosts", sizes, "fabric sizes (multiples of 32)")->delimiter(',');
  CLI11_PARSE(app, argc, argv);

  std::printf("| workload | hosts | flows | wall s | flows/s | re-ratings/s | flows re-rated/s | makespan s |\n");
  std::printf("|---|---|---|---|---|---|---|---|\n");
  std::vector<double> perm_wall;
  for (int hosts : sizes) {
    const auto topology = topo::build_cluster(fabric(hosts));
    workload::TrafficSpec perm;
    perm.pattern = workload::TrafficPattern::kPermutation;
    perm.bytes_per_flow = 1e8;
    workload::TrafficSpec a2a;
    a2a.pattern = workload::TrafficPattern::kAllToAll;
    a2a.endpoints = 64;
    a2a.bytes_per_flow = 1e7;
    a2a.start_window = sim::SimTime::from_ns(10'000'000);
    for (const auto& [name, spec] : {std::pair{"permutation", perm}, std::pair{"all-to-all 64", a2a}}) {
      const Measured m = run(topology, spec);
      std::printf("| %s | %d | %zu | %.3f | %.0f | %.0f | %.0f | %.6f |\n", name, hosts, m.flows, m.wall_s,
                  static_cast<double>(m.flows) / m.wall_s, static_cast<double>(m.result.component_updates) / m.wall_s,
                  static_cast<double>(m.result.flow_rerates) / m.wall_s, m.result.makespan.to_seconds());
      if (std::string(name) == "permutation") perm_wall.push_back(m.wall_s);
    }
  }
  if (sizes.size() >= 2 && perm_wall.front() > 0) {
    const double exponent = std::log(perm_wall.back() / perm_wall.front()) /
                            std::log(static_cast<double>(sizes.back()) / static_cast<double>(sizes.front()));
    std::printf("\npermutation: wall time grows as hosts^%.2f between %d and %d hosts\n", exponent, sizes.front(),
                sizes.back());
  }
  return 0;
}
