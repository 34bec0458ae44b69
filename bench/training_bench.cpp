// How the training-step model's cost grows with the cluster: one step of Llama 3 405B (TP 8,
// PP 16, sequence 8,192, 16 sequences per replica, full recomputation) on DGX H100 nodes, with
// the data-parallel degree scaled so that the cluster goes from 1,024 to 16,384 GPUs, on a
// 2-tier fat-tree of 64-port leaves. Each size is timed `--repeats` times, interleaved, and
// the median is kept; the exponent of wall time against GPUs is fitted on log-log. The fabric's
// routing (ECMP by default) and the flows per connection (collectives.flows_per_connection) can be
// set, to time what each costs.
//
//   build/bench/training-bench --repeats 3 [--routing ecmp|d-mod-k|adaptive] [--flows-per-connection 2]
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "models/workloads/training/step_model.hpp"
#include "scenarios/accelerator_catalog.hpp"
#include "scenarios/hardware_catalog.hpp"
#include "scenarios/model_catalog.hpp"

using namespace fathom;

namespace {

struct Case {
  train::TrainingSpec spec;
  topo::ClusterSpec cluster;
};

Case make_case(int gpus, topo::Routing routing) {
  Case c;
  c.cluster.nodes = gpus / 8;
  c.cluster.node = scenario::find_catalog_node("dgx-h100")->node;
  c.cluster.fabric.kind = topo::FabricKind::kFatTree;
  c.cluster.fabric.tiers = 2;
  c.cluster.fabric.hosts_per_leaf = 64;
  c.cluster.fabric.spines = 64;
  c.cluster.fabric.tier = {{50e9, 1000}, {50e9, 1000}};
  c.cluster.fabric.routing = routing;
  train::TrainingSpec& s = c.spec;
  s.model = *scenario::find_catalog_model("llama3-405b");
  s.gpus = gpus;
  s.parallel.tp = 8;
  s.parallel.pp = 16;
  s.parallel.dp = gpus / 128;
  s.parallel.sequence_parallel = true;
  s.sequence = 8192;
  s.global_batch = 16 * s.parallel.dp;
  s.micro_batch = 1;
  s.recompute = train::Recompute::kFull;
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"fathom training-step model: wall time of one simulated step against GPU count"};
  int repeats = 3;
  app.add_option("--repeats", repeats, "timed runs per size (median kept)")->check(CLI::Range(1, 50));
  std::string routing_name = "ecmp";
  app.add_option("--routing", routing_name, "the fabric's routing")
      ->check(CLI::IsMember({"ecmp", "d-mod-k", "adaptive"}));
  coll::CollectiveParams params;
  app.add_option("--flows-per-connection", params.flows_per_connection, "ECMP flows per point-to-point transfer")
      ->check(CLI::Range(1, 256));
  CLI11_PARSE(app, argc, argv);
  const topo::Routing routing = routing_name == "d-mod-k"    ? topo::Routing::kDestination
                                : routing_name == "adaptive" ? topo::Routing::kAdaptive
                                                             : topo::Routing::kEcmpHash;
  const auto& accelerator = *scenario::find_catalog_accelerator("h100-sxm");
  const std::vector<int> sizes{1024, 2048, 4096, 8192, 16384};
  std::vector<std::vector<double>> wall(sizes.size());
  std::vector<double> step(sizes.size());
  for (int r = 0; r < repeats; ++r) {
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      const Case c = make_case(sizes[i], routing);
      const auto t0 = std::chrono::steady_clock::now();
      const train::TrainingResult result = train::simulate_training_step(c.spec, accelerator, c.cluster, params, 1);
      wall[i].push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      step[i] = result.step_seconds;
    }
  }
  std::printf("%8s %10s %12s %14s\n", "gpus", "step_s", "median_wall_s", "wall/1024-GPU");
  std::vector<double> median(sizes.size());
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    std::sort(wall[i].begin(), wall[i].end());
    median[i] = wall[i][wall[i].size() / 2];
    std::printf("%8d %10.3f %12.3f %14.2f\n", sizes[i], step[i], median[i], median[i] / median[0]);
  }
  // Least-squares slope of log(wall) on log(gpus).
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  const double n = static_cast<double>(sizes.size());
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const double x = std::log(sizes[i]), y = std::log(median[i]);
    sx += x;
    sy += y;
    sxx += x * x;
    sxy += x * y;
  }
  std::printf("exponent: wall time grows as gpus^%.2f\n", (n * sxy - sx * sy) / (n * sxx - sx * sx));
  return 0;
}
