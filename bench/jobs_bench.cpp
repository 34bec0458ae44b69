// How the job cluster's cost grows with the trace: synthetic traces of n jobs on 16,384 GPUs
// (2,048 nodes of 8), n from 125,000 to 1,000,000, under EASY backfilling with first-fit placement.
// The trace comes from jobs::generate_jobs: arrivals are Poisson; sizes are 1, 2, 4 or 8 GPUs
// (70/10/10/5%) or 16 to 256 GPUs in powers of two (1% each); run times are log-uniform from 1
// minute to 1 day, in whole seconds; the arrival rate is set for an
// offered load of `--load` of the GPUs, so the queue stays bounded and each job should cost the
// same: wall time / (n log2 n) should not grow with n. Each size is timed `--repeats` times,
// interleaved, and the median is kept.
//
// With --modelled every job is a modelled training job (jobs::ModelledStep: a 1 s step whose 0.3
// s gradient reduction ends with the pipeline, as many steps as the traced seconds) on the
// production example's fabric (2,048 nodes of 2 x 100 Gb/s NICs, 16 nodes a leaf, 8 spines of
// 400 Gb/s): each start and end of a job on several nodes re-shares the fabric among all such
// jobs running (jobs::FabricShare), so a change costs the running jobs' flows and wall time / n
// should stay flat at a steady load. Sizes 5,000 to 40,000 jobs.
//
//   build/bench/jobs-bench --repeats 3 [--load 0.9] [--backfill easy|conservative|none] [--modelled]
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "models/workloads/jobs/fabric_share.hpp"
#include "models/workloads/jobs/job_cluster.hpp"
#include "models/workloads/jobs/job_generator.hpp"
#include "topologies/cluster.hpp"

using namespace fathom;

namespace {

constexpr int kNodes = 2048, kGpusPerNode = 8;

std::vector<jobs::TraceJob> synthetic_trace(std::size_t n, double load, std::uint64_t seed) {
  using Kind = jobs::Distribution::Kind;
  jobs::JobGeneratorSpec spec;
  spec.jobs = static_cast<std::int64_t>(n);
  spec.gpus = {Kind::kEmpirical, 0, 0, {1, 2, 4, 8, 16, 32, 64, 128, 256}, {70, 10, 10, 5, 1, 1, 1, 1, 1}};
  spec.run_s = {Kind::kLogUniform, 60, 86400, {}, {}};
  // Gaps for the offered load: GPUs per job x run time per job / (load x GPUs).
  const double gap = spec.gpus.mean() * spec.run_s.mean() / (load * kNodes * kGpusPerNode);
  spec.interarrival_s = {Kind::kExponential, gap, 0, {}, {}};
  return jobs::generate_jobs(spec, seed);
}

// The production example's cluster (scenarios/examples/production-2048-nodes.yaml).
topo::ClusterSpec production_cluster() {
  topo::ClusterSpec c;
  c.nodes = kNodes;
  c.node.nics = 2;
  c.node.nic_bytes_per_s = 12.5e9;
  c.fabric.hosts_per_leaf = 32;
  c.fabric.leaves = 128;
  c.fabric.spines = 8;
  c.fabric.tier = {{12.5e9, 1000}, {50e9, 1000}};
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"the job cluster's wall time against the trace's length"};
  int repeats = 3;
  double load = 0.9;
  std::string backfill = "easy";
  app.add_option("--repeats", repeats, "timings per size; the median is kept")->check(CLI::Range(1, 99));
  app.add_option("--load", load, "offered load, a fraction of the GPUs")->check(CLI::Range(0.01, 0.99));
  app.add_option("--backfill", backfill, "none, easy or conservative")
      ->check(CLI::IsMember({"none", "easy", "conservative"}));
  bool modelled = false;
  app.add_flag("--modelled", modelled, "modelled training jobs sharing the production example's fabric");
  CLI11_PARSE(app, argc, argv);

  jobs::JobClusterSpec spec;
  spec.gpus_per_node.assign(kNodes, kGpusPerNode);
  for (int n = 0; n < kNodes; ++n) spec.leaf_of_node.push_back(n / 32);
  spec.scheduler.backfill = backfill == "none"   ? sched::Backfill::kNone
                            : backfill == "easy" ? sched::Backfill::kEasy
                                                 : sched::Backfill::kConservative;
  const std::vector<std::size_t> sizes = modelled ? std::vector<std::size_t>{5'000, 10'000, 20'000, 40'000}
                                                  : std::vector<std::size_t>{125'000, 250'000, 500'000, 1'000'000};
  const topo::Topology topology = topo::build_cluster(production_cluster());
  jobs::FabricShare fabric(topology, 1);
  if (modelled) {
    spec.leaf_of_node.clear();
    for (int n = 0; n < kNodes; ++n) spec.leaf_of_node.push_back(n / 16);
    spec.fabric = &fabric;
  }
  std::vector<std::vector<jobs::TraceJob>> traces;
  std::vector<std::vector<sim::SimTime>> estimates;
  for (const std::size_t n : sizes) {
    traces.push_back(synthetic_trace(n, load, 1));
    estimates.emplace_back();
    for (const auto& j : traces.back()) estimates.back().push_back(j.run);
  }
  // Per trace: each job's modelled step and its ring rate on the cluster's first nodes.
  std::vector<std::vector<jobs::ModelledStep>> steps(sizes.size());
  std::vector<std::vector<double>> reference(sizes.size());
  for (std::size_t k = 0; modelled && k < sizes.size(); ++k) {
    for (const auto& j : traces[k]) {
      steps[k].push_back({1.0, 0.3, 0.0, 0.0, std::max<std::int64_t>(1, std::llround(j.run.to_seconds()))});
      std::vector<std::int32_t> first;
      for (std::int32_t n = 0; n * kGpusPerNode < j.gpus; ++n) first.push_back(n);
      reference[k].push_back(fabric.ring_rates({&first, 1}).front());
    }
  }
  std::vector<std::vector<double>> wall(sizes.size());
  std::vector<jobs::JobClusterRun> last(sizes.size());
  for (int r = 0; r < repeats; ++r) {
    for (std::size_t k = 0; k < sizes.size(); ++k) {
      spec.modelled = steps[k];
      spec.reference_rate = reference[k];
      const auto t0 = std::chrono::steady_clock::now();
      last[k] = jobs::run_job_cluster(traces[k], estimates[k], spec, 1);
      wall[k].push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
  }
  std::printf("16,384 GPUs, backfill %s, offered load %.2f, %d repeats (median)%s\n", backfill.c_str(), load, repeats,
              modelled ? ", modelled training jobs" : "");
  std::printf("%10s %10s %12s %10s %12s %18s%s\n", "jobs", "wall_s", "events", "max_queue", "mean_wait_s",
              "wall/(n log n) rel", modelled ? "    wall/n rel  mean_interference" : "");
  double base = 0, base_linear = 0;
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    std::sort(wall[k].begin(), wall[k].end());
    const double median = wall[k][wall[k].size() / 2];
    const double n = static_cast<double>(sizes[k]);
    const double per = median / (n * std::log2(n));
    if (k == 0) base = per;
    if (k == 0) base_linear = median / n;
    std::uint32_t max_queue = 0;
    for (const auto& c : last[k].timeline) max_queue = std::max(max_queue, c.queued);
    double wait = 0;
    for (std::size_t i = 0; i < traces[k].size(); ++i) {
      wait += (last[k].jobs[i].start - traces[k][i].submit).to_seconds() / n;
    }
    std::printf("%10zu %10.3f %12llu %10u %12.1f %18.3f", sizes[k], median,
                static_cast<unsigned long long>(last[k].events), max_queue, wait, per / base);
    if (modelled) {
      double interference = 0;
      for (const auto& r : last[k].jobs) interference += r.interference / n;
      std::printf(" %13.3f %18.4f", median / n / base_linear, interference);
    }
    std::printf("\n");
  }
  return 0;
}
