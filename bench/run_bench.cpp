// How the whole-run model's cost grows: the Llama 3 table on 16,384 GPUs (2,048 nodes, 16,384
// NICs), an 8 s step checkpointed every 32 steps, for 54 days and for 10x and 100x that, 100
// replications each, on 1 thread and on all of them. Each replication is a sequence of
// interruptions, so wall time / (replications x interruptions) should stay flat, and the
// threads should divide it.
//
//   build/bench/run-bench --repeats 3
#include <tbb/global_control.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>

#include "models/reliability/whole_run.hpp"

using namespace fathom;

int main(int argc, char** argv) {
  CLI::App app{"whole-run model: cost against simulated days and threads"};
  int repeats = 3;
  app.add_option("--repeats", repeats, "timings per size (the median is kept)")->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::printf("%8s %8s %14s %10s %16s\n", "days", "threads", "interruptions", "wall_s", "ns/interruption");
  for (int days : {54, 540, 5400}) {
    for (int threads : {1, cores}) {
      rel::RunInputs in;
      in.failures = rel::default_failures();
      in.units = {16'384, 2'048, 16'384};
      in.gpus = 16'384;
      in.spares = 1'024;
      in.tokens_per_step = 16e6;
      in.step_ns = std::int64_t{8'000'000'000};
      in.duration_ns = std::int64_t{days} * 86'400 * 1'000'000'000;
      in.checkpoint_interval = 32;
      in.checkpoint_block_ns = std::int64_t{3'000'000'000};
      in.restore_ns = std::int64_t{54'000'000'000};
      in.replications = 100;
      std::vector<double> walls;
      double interruptions = 0;
      for (int r = 0; r < repeats; ++r) {
        tbb::global_control limit(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads));
        const auto t0 = std::chrono::steady_clock::now();
        const rel::RunResult result = rel::simulate_run(in);
        walls.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        interruptions = 0;
        for (double n : result.interruptions_by_component) interruptions += n;
      }
      std::sort(walls.begin(), walls.end());
      const double wall = walls[walls.size() / 2];
      std::printf("%8d %8d %14.0f %10.4f %16.1f\n", days, threads, interruptions, wall,
                  wall * 1e9 / (interruptions * in.replications));
    }
  }
  return 0;
}
