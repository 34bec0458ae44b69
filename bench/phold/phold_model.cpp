#include "bench/phold/phold_model.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include "sim/context.hpp"
#include "sim/stats/counter.hpp"

namespace fathom::bench {

namespace {

constexpr sim::EventKind kPholdEvent = 1;

class PholdLp final : public sim::LogicalProcess {
 public:
  PholdLp(std::uint32_t events, sim::SimTime lookahead, double exp_mean_ns, double remote)
      : events_(events), lookahead_(lookahead), exp_mean_ns_(exp_mean_ns), remote_(remote) {}

  void on_start(sim::Context& ctx) override {
    for (std::uint32_t i = 0; i < events_; ++i) ctx.send(ctx.self(), increment(ctx), kPholdEvent);
  }

  void on_event(const sim::Event& /*event*/, sim::Context& ctx) override {
    sim::LpId dest = ctx.self();
    if (ctx.rng().uniform01() < remote_) {
      dest = static_cast<sim::LpId>(ctx.rng().uniform_below(ctx.lp_count()));
      remote_sends_.increment();
    }
    ctx.send(dest, increment(ctx), kPholdEvent);
  }

  std::uint64_t remote_sends() const { return remote_sends_.value(); }

 private:
  sim::SimTime increment(sim::Context& ctx) {
    const double exp_ns = std::nearbyint(ctx.rng().exponential(exp_mean_ns_));
    return lookahead_ + sim::SimTime::from_ns(static_cast<std::int64_t>(exp_ns));
  }

  std::uint32_t events_;
  sim::SimTime lookahead_;
  double exp_mean_ns_;
  double remote_;
  sim::Counter remote_sends_;
};

}  // namespace

void validate(const PholdParams& p) {
  auto bad = [](const std::string& what) { throw std::invalid_argument("phold: " + what); };
  if (p.lps == 0) bad("--lps must be at least 1");
  if (!(p.mean > 0) || !std::isfinite(p.mean)) bad("--mean must be a positive number, got " + std::to_string(p.mean));
  if (!(p.lookahead > 0) || !(p.lookahead <= p.mean)) {
    bad("--lookahead must be in (0, mean], got " + std::to_string(p.lookahead) + " with mean " +
        std::to_string(p.mean));
  }
  if (!(p.remote >= 0 && p.remote <= 1)) bad("--remote must be a fraction in [0, 1], got " + std::to_string(p.remote));
  if (!(p.end >= 0) || !(p.end * kPholdNsPerUnit < 9e18))
    bad("--end must be in [0, 9e12], got " + std::to_string(p.end));
}

std::unique_ptr<sim::Simulation> make_phold(const PholdParams& p) {
  validate(p);
  auto simulation = std::make_unique<sim::Simulation>(p.seed);
  const auto lookahead =
      sim::SimTime::from_ns(static_cast<std::int64_t>(std::nearbyint(p.lookahead * kPholdNsPerUnit)));
  const double exp_mean_ns = (p.mean - p.lookahead) * kPholdNsPerUnit;
  for (std::uint32_t i = 0; i < p.lps; ++i) {
    simulation->add(std::make_unique<PholdLp>(p.events_per_lp, lookahead, exp_mean_ns, p.remote));
  }
  simulation->set_lookahead(lookahead);
  return simulation;
}

std::uint64_t phold_remote_sends(const sim::Simulation& simulation, sim::LpId lp) {
  return dynamic_cast<const PholdLp&>(simulation.lp(lp)).remote_sends();
}

}  // namespace fathom::bench
