// An M/M/1 queue on fathom's engine: the smallest complete model, and a check of the
// engine against queueing theory.
//
// A source LP sends customers to a server LP with Poisson arrivals (rate lambda); the
// server serves one at a time with exponential service times (rate mu). With
// rho = lambda / mu < 1, the mean number in the system is rho / (1 - rho) and, by Little's
// law, the mean time in the system is 1 / (mu - lambda). The program simulates two seconds
// of simulated time, measures both figures independently (time-weighted occupancy; each
// customer's own sojourn) and prints them beside their closed forms; it exits 1 if
// either is off by more than the tolerance, so the test suite runs it as a check.
//
//   build/docs/examples/mm1_queue [--lambda-per-us 0.5] [--mu-per-us 1.0] [--seconds 2] [--seed 1]
#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <deque>
#include <memory>

#include "sim/context.hpp"
#include "sim/simulation.hpp"
#include "sim/stats/counter.hpp"
#include "sim/stats/time_weighted.hpp"

namespace {

using namespace fathom::sim;

constexpr EventKind kArrival = 1;
constexpr EventKind kDeparture = 2;

SimTime exponential_ns(Context& ctx, double mean_ns) {
  return SimTime::from_ns(std::llround(ctx.rng().exponential(mean_ns)));
}

class Source final : public LogicalProcess {
 public:
  Source(LpId server, double mean_gap_ns) : server_(server), mean_gap_ns_(mean_gap_ns) {}
  void on_start(Context& ctx) override { ctx.send(ctx.self(), exponential_ns(ctx, mean_gap_ns_), kArrival); }
  void on_event(const Event&, Context& ctx) override {
    // The customer reaches the server at once (same group: zero delay is allowed).
    ctx.send(server_, SimTime::zero(), kArrival, Payload::of(ctx.now().ns()));
    ctx.send(ctx.self(), exponential_ns(ctx, mean_gap_ns_), kArrival);
  }

 private:
  LpId server_;
  double mean_gap_ns_;
};

class Server final : public LogicalProcess {
 public:
  explicit Server(double mean_service_ns) : mean_service_ns_(mean_service_ns) {}
  void on_event(const Event& e, Context& ctx) override {
    if (e.kind == kArrival) {
      arrivals_ns_.push_back(e.payload.as<std::int64_t>());
      if (arrivals_ns_.size() == 1) ctx.send(ctx.self(), exponential_ns(ctx, mean_service_ns_), kDeparture);
    } else {
      // First come, first served: the customer leaving is the oldest one.
      sojourn_ns_ += static_cast<double>(ctx.now().ns() - arrivals_ns_.front());
      arrivals_ns_.pop_front();
      served_.increment();
      if (!arrivals_ns_.empty()) ctx.send(ctx.self(), exponential_ns(ctx, mean_service_ns_), kDeparture);
    }
    occupancy_.set(ctx.now(), static_cast<double>(arrivals_ns_.size()));
  }
  const TimeWeightedValue& occupancy() const { return occupancy_; }
  std::uint64_t served() const { return served_.value(); }
  double mean_sojourn_us() const { return sojourn_ns_ / 1e3 / static_cast<double>(served_.value()); }

 private:
  double mean_service_ns_;
  std::deque<std::int64_t> arrivals_ns_;  // customers in the system, by arrival time
  double sojourn_ns_ = 0;
  Counter served_;
  TimeWeightedValue occupancy_;
};

}  // namespace

int main(int argc, char** argv) {
  double lambda_per_us = 0.5, mu_per_us = 1.0, seconds = 2.0, tolerance = 0.03;
  std::uint64_t seed = 1;
  CLI::App app{"M/M/1 queue on fathom's engine, checked against its closed form"};
  app.add_option("--lambda-per-us", lambda_per_us, "arrival rate (customers per microsecond)")->capture_default_str();
  app.add_option("--mu-per-us", mu_per_us, "service rate (customers per microsecond)")->capture_default_str();
  app.add_option("--seconds", seconds, "simulated time")->capture_default_str();
  app.add_option("--tolerance", tolerance, "largest relative error accepted")->capture_default_str();
  app.add_option("--seed", seed, "random seed")->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  if (!(lambda_per_us > 0 && lambda_per_us < mu_per_us)) {
    std::fprintf(stderr, "mm1_queue: need 0 < lambda < mu for a stable queue, got lambda %g, mu %g\n", lambda_per_us,
                 mu_per_us);
    return 2;
  }

  Simulation simulation(seed);
  const LpId server = simulation.add(std::make_unique<Server>(1e3 / mu_per_us), 0);
  simulation.add(std::make_unique<Source>(server, 1e3 / lambda_per_us), 0);
  RunOptions options;
  options.end = SimTime::from_seconds(seconds);
  const RunResult result = simulation.run(options);

  const auto& s = dynamic_cast<const Server&>(simulation.lp(server));
  const double rho = lambda_per_us / mu_per_us;
  const double mean_in_system = s.occupancy().mean(options.end);
  const double expected_in_system = rho / (1 - rho);
  const double mean_time_us = s.mean_sojourn_us();
  const double expected_time_us = 1.0 / (mu_per_us - lambda_per_us);
  const double err_n = std::abs(mean_in_system / expected_in_system - 1);
  const double err_t = std::abs(mean_time_us / expected_time_us - 1);
  std::printf("customers served: %llu in %g s of simulated time (%llu events)\n",
              static_cast<unsigned long long>(s.served()), seconds, static_cast<unsigned long long>(result.committed));
  std::printf("mean number in system: %.4f (closed form %.4f, error %.2f%%)\n", mean_in_system, expected_in_system,
              100 * err_n);
  std::printf("mean time in system:   %.4f us (closed form %.4f us, error %.2f%%)\n", mean_time_us, expected_time_us,
              100 * err_t);
  std::printf("fingerprint=%s\n", format_fingerprint(result.fingerprint).c_str());
  return err_n <= tolerance && err_t <= tolerance ? 0 : 1;
}
