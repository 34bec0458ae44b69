// fathom-phold: runs PHOLD on fathom's engine and prints its rate and fingerprint.
//
// The last line is machine-readable:
//   committed=<n> wall_s=<x> events_per_s=<y> fingerprint=<16 hex digits>
// Wall-clock figures are for people; the fingerprint is the same for any thread count.
#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <exception>
#include <map>
#include <string>

#include "bench/phold/phold_model.hpp"

int main(int argc, char** argv) {
  using fathom::sim::Scheduler;
  fathom::bench::PholdParams params;
  fathom::sim::RunOptions options;
  std::string partitioning = "block";

  CLI::App app{"PHOLD, the standard parallel discrete-event benchmark, on fathom's engine (ROSS semantics)"};
  app.add_option("--lps", params.lps, "number of logical processes")->capture_default_str();
  app.add_option("--events-per-lp", params.events_per_lp, "initial events per LP")->capture_default_str();
  app.add_option("--mean", params.mean, "mean time increment per event (1.0 = 1,000,000 ns)")->capture_default_str();
  app.add_option("--lookahead", params.lookahead, "least increment per event, also the parallel window")
      ->capture_default_str();
  app.add_option("--remote", params.remote, "fraction of events sent to a uniformly random LP")->capture_default_str();
  app.add_option("--end", params.end, "end time; events before it are committed")->capture_default_str();
  app.add_option("--seed", params.seed, "random seed (a whole number below 2^64)")
      ->capture_default_str()
      ->check([](const std::string& text) {
        // CLI11 would clamp an out-of-range number to 2^64 - 1; refuse it instead.
        const bool digits = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
        const bool fits = digits && (text.size() < 20 || (text.size() == 20 && text <= "18446744073709551615"));
        return fits ? std::string() : "expected a whole number from 0 to 18446744073709551615, found \"" + text + "\"";
      });
  app.add_option("--threads", options.threads, "threads for the parallel scheduler")->capture_default_str();
  app.add_option("--partitions", options.partitions, "partitions for the parallel scheduler (default: threads)");
  app.add_option("--partitioning", partitioning, "how LPs are dealt to partitions")
      ->check(CLI::IsMember({"block", "round-robin"}))
      ->capture_default_str();
  std::string scheduler = "sequential";
  app.add_option("--scheduler", scheduler, "sequential or parallel")
      ->check(CLI::IsMember({"sequential", "parallel"}))
      ->capture_default_str();
  app.set_version_flag("--version", FATHOM_VERSION);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "fathom-phold: error: %s (see --help)\n", e.what());
    return 2;
  }

  options.scheduler = scheduler == "parallel" ? Scheduler::kParallel : Scheduler::kSequential;
  options.partitioning =
      partitioning == "round-robin" ? fathom::sim::Partitioning::kRoundRobin : fathom::sim::Partitioning::kBlock;
  try {
    auto simulation = fathom::bench::make_phold(params);
    options.end = fathom::sim::SimTime::from_seconds(params.end * fathom::bench::kPholdNsPerUnit * 1e-9);
    std::printf("PHOLD: %u LPs x %u events, mean %g, lookahead %g, remote %g, end %g, seed %llu\n", params.lps,
                params.events_per_lp, params.mean, params.lookahead, params.remote, params.end,
                static_cast<unsigned long long>(params.seed));
    std::printf("scheduler: %s", scheduler.c_str());
    if (options.scheduler == Scheduler::kParallel) {
      std::printf(", %u threads, %u partitions (%s)", options.threads,
                  options.partitions == 0 ? options.threads : options.partitions, partitioning.c_str());
    }
    std::printf("\n");
    std::fflush(stdout);

    const auto started = std::chrono::steady_clock::now();
    const fathom::sim::RunResult r = simulation->run(options);
    const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

    std::uint64_t remote = 0;
    for (fathom::sim::LpId i = 0; i < simulation->lp_count(); ++i)
      remote += fathom::bench::phold_remote_sends(*simulation, i);
    std::printf("pending at end: %llu events, %.1f bytes of queue storage per pending event (event: %zu bytes)\n",
                static_cast<unsigned long long>(r.pending),
                r.pending ? static_cast<double>(r.queue_bytes) / static_cast<double>(r.pending) : 0.0,
                sizeof(fathom::sim::Event));
    std::printf("remote sends: %llu (%.2f%% of committed)\n", static_cast<unsigned long long>(remote),
                r.committed ? 100.0 * static_cast<double>(remote) / static_cast<double>(r.committed) : 0.0);
    if (options.scheduler == Scheduler::kParallel) {
      std::printf("windows: %llu, cross-partition events: %llu, committed per partition:",
                  static_cast<unsigned long long>(r.windows),
                  static_cast<unsigned long long>(r.cross_partition_events));
      for (auto c : r.committed_per_partition) std::printf(" %llu", static_cast<unsigned long long>(c));
      std::printf("\n");
      if (r.windows > 0) {
        const auto& w = r.events_per_window;
        std::printf("events per window: mean %.1f, p50 %llu, p99 %llu, max %llu\n", w.mean(),
                    static_cast<unsigned long long>(w.p50()), static_cast<unsigned long long>(w.p99()),
                    static_cast<unsigned long long>(w.max()));
      }
    }
    std::printf("committed=%llu wall_s=%.3f events_per_s=%.0f fingerprint=%s\n",
                static_cast<unsigned long long>(r.committed), wall_s,
                wall_s > 0 ? static_cast<double>(r.committed) / wall_s : 0.0,
                fathom::sim::format_fingerprint(r.fingerprint).c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fathom-phold: error: %s\n", e.what());
    return 2;
  }
  return 0;
}
