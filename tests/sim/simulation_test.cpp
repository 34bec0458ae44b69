// The engine's contracts: total order, causality checks, and identical results from the
// sequential scheduler and the parallel one on any thread count and partitioning.
#include "sim/simulation.hpp"

#include <doctest/doctest.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "bench/phold/phold_model.hpp"
#include "sim/errors.hpp"
#include "sim/hash.hpp"

using namespace fathom::sim;
using namespace fathom::sim::literals;

namespace {

// Records the order in which events arrive and reacts in ways that depend on that order,
// so that any difference in order changes the final state. LPs come in groups of four;
// inside a group events may have zero delay, across groups they carry exactly the
// lookahead, so many events from different senders land at the same instant.
class OrderProbe final : public LogicalProcess {
 public:
  static constexpr EventKind kTick = 0, kLocal = 1, kMate = 2, kRemote = 3, kEcho = 4;
  static constexpr SimTime kLookahead = 1_us;

  explicit OrderProbe(LpId id) : id_(id) {}

  void on_start(Context& ctx) override { ctx.send(ctx.self(), 0_ns, kTick); }

  void on_event(const Event& e, Context& ctx) override {
    state_ = hash_combine(state_, e.src);
    state_ = hash_combine(state_, e.kind);
    state_ = hash_combine(state_, static_cast<std::uint64_t>(e.time.ns()));
    state_ = hash_combine(state_, e.payload.as<std::uint64_t>());
    ++received_;
    switch (e.kind) {
      case kTick: {
        const LpId mate = (id_ & ~3u) | ((id_ + 1 + static_cast<LpId>(state_ % 3)) & 3u);
        ctx.send(ctx.self(), 0_ns, kLocal, Payload::of(state_), static_cast<std::uint8_t>(state_ % 4));
        if (mate < ctx.lp_count()) ctx.send(mate, 0_ns, kMate, Payload::of(state_ >> 7));
        const auto remote = static_cast<LpId>(ctx.rng().uniform_below(ctx.lp_count()));
        ctx.send(remote, kLookahead, kRemote, Payload::of(state_ >> 13));
        // Integer multiples of the lookahead: ticks of many LPs coincide.
        ctx.send(ctx.self(), kLookahead * static_cast<std::int64_t>(1 + ctx.rng().uniform_below(3)), kTick);
        break;
      }
      case kMate:
        if (state_ & 1) ctx.send(ctx.self(), 0_ns, kEcho, Payload::of(state_), 1);
        break;
      default:
        break;
    }
  }

  std::uint64_t state() const { return state_; }
  std::uint64_t received() const { return received_; }

 private:
  LpId id_;
  std::uint64_t state_ = 0;
  std::uint64_t received_ = 0;
};

struct Outcome {
  RunResult result;
  std::vector<std::uint64_t> states;
};

Outcome run_order_probe(const RunOptions& options, LpId lps = 64, std::uint64_t seed = 11) {
  Simulation simulation(seed);
  for (LpId i = 0; i < lps; ++i) simulation.add(std::make_unique<OrderProbe>(i), i / 4);
  simulation.set_lookahead(OrderProbe::kLookahead);
  Outcome out{simulation.run(options), {}};
  for (LpId i = 0; i < lps; ++i) out.states.push_back(dynamic_cast<const OrderProbe&>(simulation.lp(i)).state());
  return out;
}

fathom::bench::PholdParams small_phold() {
  fathom::bench::PholdParams p;
  p.lps = 256;
  p.events_per_lp = 4;
  p.end = 50.0;
  p.seed = 5;
  return p;
}

RunResult run_phold(const fathom::bench::PholdParams& p, RunOptions options) {
  auto simulation = fathom::bench::make_phold(p);
  options.end = SimTime::from_ns(static_cast<std::int64_t>(p.end * fathom::bench::kPholdNsPerUnit));
  return simulation->run(options);
}

RunOptions parallel(unsigned threads, unsigned partitions, Partitioning how = Partitioning::kBlock) {
  RunOptions o;
  o.scheduler = Scheduler::kParallel;
  o.threads = threads;
  o.partitions = partitions;
  o.partitioning = how;
  return o;
}

// Sends one event of `kind` to `to` after `delay` when it starts.
class OneShot final : public LogicalProcess {
 public:
  OneShot(LpId to, SimTime delay) : to_(to), delay_(delay) {}
  void on_start(Context& ctx) override { ctx.send(to_, delay_, 7); }
  void on_event(const Event&, Context&) override {}

 private:
  LpId to_;
  SimTime delay_;
};

class Sink final : public LogicalProcess {
 public:
  void on_event(const Event& e, Context&) override { seen.push_back(e); }
  std::vector<Event> seen;
};

}  // namespace

TEST_CASE("the sequential scheduler handles simultaneous events by priority, then sender, then sender's order") {
  // Senders 0..2 each send two events to the sink (LP 3), all at t = 5 us, with priorities
  // chosen so that priority, sender and sequence each decide some pair.
  class Sender final : public LogicalProcess {
   public:
    explicit Sender(std::uint8_t first_priority) : first_priority_(first_priority) {}
    void on_start(Context& ctx) override {
      ctx.send(3, 5_us, 1, {}, first_priority_);
      ctx.send(3, 5_us, 2, {}, 1);
    }
    void on_event(const Event&, Context&) override {}

   private:
    std::uint8_t first_priority_;
  };
  Simulation simulation(1);
  simulation.add(std::make_unique<Sender>(1));
  simulation.add(std::make_unique<Sender>(0));
  simulation.add(std::make_unique<Sender>(1));
  simulation.add(std::make_unique<Sink>());
  const RunResult r = simulation.run({});
  const auto& seen = dynamic_cast<const Sink&>(simulation.lp(3)).seen;
  REQUIRE(seen.size() == 6);
  CHECK(r.committed == 6);
  CHECK(r.last_event_time == 5_us);
  // Expected: priority 0 first (sender 1, kind 1); then priority 1 by sender, then by sequence.
  const std::vector<std::pair<LpId, EventKind>> expected{{1, 1}, {0, 1}, {0, 2}, {1, 2}, {2, 1}, {2, 2}};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    CHECK(seen[i].src == expected[i].first);
    CHECK(seen[i].kind == expected[i].second);
  }
}

TEST_CASE("events at or after the end are left pending, and the count before it is exact") {
  // A chain of events every 10 ns from t = 10 ns: with end = 1,000 ns exactly 99 are handled.
  class Chain final : public LogicalProcess {
   public:
    void on_start(Context& ctx) override { ctx.send(ctx.self(), 10_ns, 0); }
    void on_event(const Event&, Context& ctx) override { ctx.send(ctx.self(), 10_ns, 0); }
  };
  Simulation simulation(1);
  simulation.add(std::make_unique<Chain>());
  RunOptions o;
  o.end = 1000_ns;
  const RunResult r = simulation.run(o);
  CHECK(r.committed == 99);
  CHECK(r.pending == 1);
  CHECK(r.last_event_time == 990_ns);
}

TEST_CASE("the fingerprint depends on the event sequence") {
  RunOptions o;
  o.end = 100_us;
  const RunResult a = run_order_probe(o, 64, 11).result;
  const RunResult b = run_order_probe(o, 64, 11).result;
  const RunResult c = run_order_probe(o, 64, 12).result;
  REQUIRE(a.committed > 1000);
  CHECK(a.fingerprint == b.fingerprint);
  CHECK(a.fingerprint != c.fingerprint);
  CHECK(format_fingerprint(0x00ab) == "00000000000000ab");
}

TEST_CASE("an event between groups below the lookahead is a model error, under either scheduler") {
  for (Scheduler scheduler : {Scheduler::kSequential, Scheduler::kParallel}) {
    Simulation simulation(1);
    simulation.add(std::make_unique<OneShot>(1, 999_ns));
    simulation.add(std::make_unique<Sink>());
    simulation.set_lookahead(1_us);
    RunOptions o;
    o.scheduler = scheduler;
    o.threads = 2;
    std::string message;
    try {
      simulation.run(o);
    } catch (const ModelError& e) {
      message = e.what();
    }
    CHECK(message.find("LP 0") != std::string::npos);
    CHECK(message.find("LP 1") != std::string::npos);
    CHECK(message.find("999 ns") != std::string::npos);
    CHECK(message.find("lookahead of 1000 ns") != std::string::npos);
  }
}

TEST_CASE("zero delay is allowed inside a group, and the past and unknown LPs are rejected") {
  {
    Simulation simulation(1);
    simulation.add(std::make_unique<OneShot>(1, 0_ns), 9);
    simulation.add(std::make_unique<Sink>(), 9);
    simulation.set_lookahead(1_us);
    CHECK(simulation.run({}).committed == 1);
  }
  {
    Simulation simulation(1);
    simulation.add(std::make_unique<OneShot>(0, SimTime::from_ns(-1)));
    CHECK_THROWS_WITH_AS(simulation.run({}), doctest::Contains("in the past"), ModelError);
  }
  {
    Simulation simulation(1);
    simulation.add(std::make_unique<OneShot>(5, 1_ns));
    CHECK_THROWS_WITH_AS(simulation.run({}), doctest::Contains("only 1 LPs"), ModelError);
  }
}

TEST_CASE("impossible run options are refused with a reason") {
  {
    Simulation simulation(1);
    simulation.add(std::make_unique<Sink>());
    simulation.add(std::make_unique<Sink>());
    CHECK_THROWS_WITH_AS(simulation.run(parallel(2, 2)), doctest::Contains("positive lookahead"), ConfigError);
  }
  {
    Simulation simulation(1);
    simulation.add(std::make_unique<Sink>(), 4);
    simulation.add(std::make_unique<Sink>(), 4);
    simulation.set_lookahead(1_ns);
    RunOptions o = parallel(1, 2, Partitioning::kExplicit);
    o.partition_of_lp = {0, 1};
    CHECK_THROWS_WITH_AS(simulation.run(o), doctest::Contains("away from the rest of its group"), ConfigError);
  }
  {
    Simulation simulation(1);
    simulation.add(std::make_unique<Sink>());
    simulation.run({});
    CHECK_THROWS_AS(simulation.run({}), ConfigError);
  }
  CHECK_THROWS_AS(Simulation(1).set_lookahead(SimTime::from_ns(-1)), ConfigError);
}

TEST_SUITE("parallel") {
  TEST_CASE("PHOLD gives the sequential fingerprint on 1, 2 and 4 threads and any partitioning") {
    const auto p = small_phold();
    const RunResult reference = run_phold(p, {});
    REQUIRE(reference.committed > 50'000);
    struct Config {
      unsigned threads, partitions;
      Partitioning how;
    };
    const Config configs[] = {{1, 1, Partitioning::kBlock},    {1, 3, Partitioning::kBlock},
                              {2, 2, Partitioning::kBlock},    {2, 5, Partitioning::kRoundRobin},
                              {4, 4, Partitioning::kBlock},    {4, 16, Partitioning::kRoundRobin},
                              {4, 7, Partitioning::kExplicit}, {2, 300, Partitioning::kBlock}};
    for (const Config& c : configs) {
      CAPTURE(c.threads);
      CAPTURE(c.partitions);
      RunOptions o = parallel(c.threads, c.partitions, c.how);
      if (c.how == Partitioning::kExplicit) {
        RandomStream rng(99, 0);
        for (LpId i = 0; i < p.lps; ++i) o.partition_of_lp.push_back(static_cast<PartitionId>(rng.uniform_below(7)));
      }
      const RunResult r = run_phold(p, o);
      CHECK(r.fingerprint == reference.fingerprint);
      CHECK(r.committed == reference.committed);
      CHECK(r.pending == reference.pending);
      CHECK(r.last_event_time == reference.last_event_time);
      if (c.partitions > 1) CHECK(r.cross_partition_events > 0);
    }
  }

  TEST_CASE("zero-delay and simultaneous events give the sequential result in parallel") {
    RunOptions sequential;
    sequential.end = 300_us;
    const Outcome reference = run_order_probe(sequential);
    REQUIRE(reference.result.committed > 20'000);
    for (unsigned threads : {1u, 2u, 4u}) {
      for (unsigned partitions : {1u, 2u, 3u, 4u, 16u}) {
        for (Partitioning how : {Partitioning::kBlock, Partitioning::kRoundRobin}) {
          CAPTURE(threads);
          CAPTURE(partitions);
          RunOptions o = parallel(threads, partitions, how);
          o.end = sequential.end;
          const Outcome out = run_order_probe(o);
          CHECK(out.result.fingerprint == reference.result.fingerprint);
          CHECK(out.states == reference.states);
          CHECK(out.result.committed == reference.result.committed);
        }
      }
    }
  }

  TEST_CASE("the parallel scheduler skips idle stretches instead of stepping through them") {
    // Two events one second apart with a 1 us lookahead: two windows, not a million.
    Simulation simulation(1);
    simulation.add(std::make_unique<OneShot>(1, 1_s));
    simulation.add(std::make_unique<OneShot>(0, 2_s));
    simulation.set_lookahead(1_us);
    const RunResult r = simulation.run(parallel(2, 2));
    CHECK(r.committed == 2);
    CHECK(r.windows == 2);
  }

  TEST_CASE("a model error inside a parallel window reaches the caller") {
    Simulation simulation(1);
    for (int i = 0; i < 8; ++i) simulation.add(std::make_unique<OneShot>(static_cast<LpId>((i + 1) % 8), 1_us));
    simulation.add(std::make_unique<OneShot>(0, 10_ns));
    simulation.set_lookahead(1_us);
    CHECK_THROWS_AS(simulation.run(parallel(4, 4)), ModelError);
  }
}
