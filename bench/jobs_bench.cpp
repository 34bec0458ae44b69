// How the job cluster's cost grows with the trace: synthetic traces of n jobs on 16,384 GPUs
// (2,048 nodes of 8), n from 125,000 to 1,000,000, under EASY backfilling with first-fit placement.
// The trace comes from jobs::generate_jobs: arrivals are Poisson; sizes are 1, 2, 4 or 8 GPUs
// (70/10/10/5%) or 16 to 256 GPUs in powers of two (1% each); run times are log-uniform from 1
// minute to 1 day, in whole seconds; the arrival rate is set for an
// offered load of `--load` of the GPUs, so the queue stays bounded and each job should cost the
// same: wall time / (n log2 n) should not grow with n. Each size is timed `--repeats` times,
// interleaved, and the median is kept.
//
//   build/bench/jobs-bench --repeats 3 [--load 0.9] [--backfill easy|conservative|none]
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "models/workloads/jobs/job_cluster.hpp"
#include "models/workloads/jobs/job_generator.hpp"

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
  CLI11_PARSE(app, argc, argv);

  jobs::JobClusterSpec spec;
  spec.gpus_per_node.assign(kNodes, kGpusPerNode);
  for (int n = 0; n < kNodes; ++n) spec.leaf_of_node.push_back(n / 32);
  spec.scheduler.backfill = backfill == "none"   ? sched::Backfill::kNone
                            : backfill == "easy" ? sched::Backfill::kEasy
                                                 : sched::Backfill::kConservative;
  const std::vector<std::size_t> sizes{125'000, 250'000, 500'000, 1'000'000};
  std::vector<std::vector<jobs::TraceJob>> traces;
  std::vector<std::vector<sim::SimTime>> estimates;
  for (const std::size_t n : sizes) {
    traces.push_back(synthetic_trace(n, load, 1));
    estimates.emplace_back();
    for (const auto& j : traces.back()) estimates.back().push_back(j.run);
  }
  std::vector<std::vector<double>> wall(sizes.size());
  std::vector<jobs::JobClusterRun> last(sizes.size());
  for (int r = 0; r < repeats; ++r) {
    for (std::size_t k = 0; k < sizes.size(); ++k) {
      const auto t0 = std::chrono::steady_clock::now();
      last[k] = jobs::run_job_cluster(traces[k], estimates[k], spec, 1);
      wall[k].push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
  }
  std::printf("16,384 GPUs, backfill %s, offered load %.2f, %d repeats (median)\n", backfill.c_str(), load, repeats);
  std::printf("%10s %10s %12s %10s %12s %18s\n", "jobs", "wall_s", "events", "max_queue", "mean_wait_s",
              "wall/(n log n) rel");
  double base = 0;
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    std::sort(wall[k].begin(), wall[k].end());
    const double median = wall[k][wall[k].size() / 2];
    const double n = static_cast<double>(sizes[k]);
    const double per = median / (n * std::log2(n));
    if (k == 0) base = per;
    std::uint32_t max_queue = 0;
    for (const auto& c : last[k].timeline) max_queue = std::max(max_queue, c.queued);
    double wait = 0;
    for (std::size_t i = 0; i < traces[k].size(); ++i) {
      wait += (last[k].jobs[i].start - traces[k][i].submit).to_seconds() / n;
    }
    std::printf("%10zu %10.3f %12llu %10u %12.1f %18.3f\n", sizes[k], median,
                static_cast<unsigned long long>(last[k].events), max_queue, wait, per / base);
  }
  return 0;
}
