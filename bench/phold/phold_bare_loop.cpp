// phold-bare-loop: PHOLD with no engine at all, the yardstick fathom's engine is held to.
//
// One std::priority_queue of {double time, uint64 seq, uint32 lp} ordered by time then
// seq, one std::mt19937_64 and std::exponential_distribution: the least machinery that
// runs the same workload as fathom-phold (same parameters, same ROSS semantics). Compare
// their events/s side by side in one run (bench/RESULTS.md); never across machines.
#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <queue>
#include <random>
#include <vector>

namespace {

struct BareEvent {
  double time;
  std::uint64_t seq;
  std::uint32_t lp;
};

struct Later {
  bool operator()(const BareEvent& a, const BareEvent& b) const {
    return a.time != b.time ? a.time > b.time : a.seq > b.seq;
  }
};

}  // namespace

int main(int argc, char** argv) {
  std::uint32_t lps = 1024, events_per_lp = 16;
  double mean = 1.0, lookahead = 0.1, remote = 0.1, end = 1000.0;
  std::uint64_t seed = 1;
  CLI::App app{"PHOLD with no engine: std::priority_queue, std::mt19937_64, std::exponential_distribution"};
  app.add_option("--lps", lps)->capture_default_str();
  app.add_option("--events-per-lp", events_per_lp)->capture_default_str();
  app.add_option("--mean", mean)->capture_default_str();
  app.add_option("--lookahead", lookahead)->capture_default_str();
  app.add_option("--remote", remote)->capture_default_str();
  app.add_option("--end", end)->capture_default_str();
  app.add_option("--seed", seed)->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  std::mt19937_64 rng(seed);
  std::exponential_distribution<double> increment(1.0 / (mean - lookahead));
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::uniform_int_distribution<std::uint32_t> any_lp(0, lps - 1);
  std::priority_queue<BareEvent, std::vector<BareEvent>, Later> queue;
  std::uint64_t seq = 0;

  const auto started = std::chrono::steady_clock::now();
  for (std::uint32_t lp = 0; lp < lps; ++lp) {
    for (std::uint32_t i = 0; i < events_per_lp; ++i) queue.push({lookahead + increment(rng), seq++, lp});
  }
  std::uint64_t committed = 0;
  while (!queue.empty() && queue.top().time < end) {
    const BareEvent e = queue.top();
    queue.pop();
    ++committed;
    const std::uint32_t dest = unit(rng) < remote ? any_lp(rng) : e.lp;
    queue.push({e.time + lookahead + increment(rng), seq++, dest});
  }
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::printf("committed=%llu wall_s=%.3f events_per_s=%.0f\n", static_cast<unsigned long long>(committed), wall_s,
              wall_s > 0 ? static_cast<double>(committed) / wall_s : 0.0);
  return 0;
}
