// The network as one logical process among many: transfers posted by other LPs by events, its
// lookahead, and the fabric split into independent parts run side by side.
#include "models/network/fabric_lp.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <vector>

#include "models/network/flow_transfer.hpp"
#include "models/network/link_components.hpp"
#include "sim/simulation.hpp"
#include "tests/support/reference_maxmin.hpp"
#include "topologies/topology.hpp"

using fathom::net::Connection;
using fathom::net::FabricLp;
using fathom::net::LinkId;
using fathom::net::PostedTransfer;
using fathom::net::RoutedFlow;
using fathom::sim::SimTime;

namespace {

constexpr fathom::sim::EventKind kWake = 100;

// An LP of its own group that posts transfers to the fabric at given times and notes when each
// delivery notice arrives.
class Poster final : public fathom::sim::LogicalProcess {
 public:
  struct Post {
    SimTime at;
    PostedTransfer transfer;
  };
  Poster(fathom::sim::LpId fabric, SimTime lookahead, std::vector<Post> posts)
      : fabric_(fabric), lookahead_(lookahead), posts_(std::move(posts)), noticed(posts_.size()) {}

  void on_start(fathom::sim::Context& ctx) override {
    for (std::size_t k = 0; k < posts_.size(); ++k) {
      ctx.send(ctx.self(), posts_[k].at, kWake, fathom::sim::Payload::of(static_cast<std::uint64_t>(k)));
    }
  }
  void on_event(const fathom::sim::Event& event, fathom::sim::Context& ctx) override {
    if (event.kind == kWake) {
      FabricLp::post(ctx, fabric_, lookahead_, posts_[event.payload.as<std::uint64_t>()].transfer);
    } else if (event.kind == FabricLp::kDelivered) {
      noticed[event.payload.as<std::uint32_t>()] = ctx.now();
    }
  }

 private:
  fathom::sim::LpId fabric_;
  SimTime lookahead_;
  std::vector<Post> posts_;

 public:
  std::vector<SimTime> noticed;  // by tag
};

// A user inside the fabric's LP that sends transfers at given times and notes each delivery.
class Sender final : public fathom::net::FabricUser {
 public:
  struct Send {
    SimTime at;
    fathom::net::ConnectionId connection;
    double bytes;
  };
  explicit Sender(std::vector<Send> sends) : sends_(std::move(sends)), delivered(sends_.size()) {}
  void on_start(FabricLp& fabric, fathom::sim::Context& ctx) override {
    for (std::size_t k = 0; k < sends_.size(); ++k) {
      fabric.send(ctx, user, sends_[k].connection, sends_[k].bytes, sends_[k].at, false, k);
    }
  }
  void on_delivered(FabricLp& /*fabric*/, std::uint64_t tag, fathom::sim::Context& ctx) override {
    delivered[tag] = ctx.now();
  }
  std::uint32_t user = 0;

 private:
  std::vector<Send> sends_;

 public:
  std::vector<SimTime> delivered;
};

// A user that sends one zero-byte transfer after a delay and, on each delivery, the next of a
// chain of `length` zero-byte transfers that stream with no delay (a DAG's synchronisation edges).
class ZeroChain final : public fathom::net::FabricUser {
 public:
  ZeroChain(fathom::net::ConnectionId connection, std::size_t length) : connection_(connection), delivered(length) {}
  void on_start(FabricLp& fabric, fathom::sim::Context& ctx) override {
    fabric.send(ctx, user, connection_, 0, SimTime::from_ns(5000), false, 0);
  }
  void on_delivered(FabricLp& fabric, std::uint64_t tag, fathom::sim::Context& ctx) override {
    delivered[tag] = ctx.now();
    if (tag + 1 < delivered.size()) fabric.send(ctx, user, connection_, 0, SimTime::zero(), true, tag + 1);
  }
  std::uint32_t user = 0;

 private:
  fathom::net::ConnectionId connection_;

 public:
  std::vector<SimTime> delivered;
};

Connection on_links(std::vector<LinkId> route, std::int64_t latency_ns) {
  return Connection{{RoutedFlow{std::move(route), SimTime::from_ns(latency_ns)}}, SimTime::from_ns(latency_ns)};
}

// Links of 10 GB/s (1 us), 4 GB/s (2 us) and 10 GB/s (1 us).
std::unique_ptr<FabricLp> three_links() {
  return std::make_unique<FabricLp>(
      std::vector<fathom::net::LinkCapacity>{{10e9}, {4e9}, {10e9}},
      std::vector<SimTime>{SimTime::from_ns(1000), SimTime::from_ns(2000), SimTime::from_ns(1000)});
}

}  // namespace

TEST_CASE("the fabric's lookahead is its smallest link latency") {
  CHECK(three_links()->lookahead() == SimTime::from_ns(1000));
  CHECK(FabricLp(std::vector<fathom::net::LinkCapacity>{}, {}).lookahead() == SimTime::zero());
  CHECK_THROWS_AS(FabricLp(std::vector<fathom::net::LinkCapacity>{{1e9}}, {}), std::invalid_argument);
  auto fabric = three_links();
  CHECK_THROWS_AS(fabric->open(Connection{}), std::invalid_argument);
  CHECK_THROWS_AS(fabric->open(on_links({3}, 1000)), std::invalid_argument);
  Connection spread = on_links({0, 1}, 1000);
  spread.flows[0].fractions = {1.0};  // one fraction for two links
  CHECK_THROWS_AS(fabric->open(spread), std::invalid_argument);
}

TEST_CASE("the fabric keeps its own copy of each connection: one Connection object may open many") {
  // One object opened three times, changed in between: a plain route on link 1 (4 GB/s), two
  // flows on links 0 and 2 (10 GB/s each, the bytes split between them), and a flow spread
  // half and half over links 0 and 1. Each transfer of 8e6 bytes, sent at 0 on its own, moves
  // as its connection was when it was opened.
  fathom::sim::Simulation simulation(7);
  auto fabric = three_links();
  Connection c = on_links({1}, 2000);
  const auto plain = fabric->open(c);
  c.flows = {RoutedFlow{{0}, SimTime::from_ns(1000)}, RoutedFlow{{2}, SimTime::from_ns(1000)}};
  c.latency = SimTime::from_ns(1000);
  const auto split = fabric->open(c);
  c.flows = {RoutedFlow{{0, 1}, SimTime::from_ns(1500), {0.5, 0.5}}};
  c.latency = SimTime::from_ns(1500);
  const auto spread = fabric->open(c);
  c.flows.clear();
  CHECK(fabric->connection_count() == 3);
  Sender sender({{SimTime::zero(), plain, 8e6},
                 {SimTime::from_ns(10'000'000), split, 8e6},
                 {SimTime::from_ns(20'000'000), spread, 8e6}});
  sender.user = fabric->add_user(sender);
  simulation.add(std::move(fabric));
  simulation.run({});
  // 8e6 at 4 GB/s after 2 us; 4e6 on each 10 GB/s link after 1 us; 4e6 crossing the 4 GB/s link
  // (the flow runs at 8 GB/s, half its bytes crossing each) after 1.5 us.
  CHECK(sender.delivered[0].ns() == 2000 + 2'000'000);
  CHECK(sender.delivered[1].ns() == 10'000'000 + 1000 + 400'000);
  CHECK(sender.delivered[2].ns() == 20'000'000 + 1500 + 1'000'000);
}

TEST_CASE("a posted transfer moves after its connection's latency and is acknowledged one latency after") {
  for (const unsigned threads : {1U, 2U}) {
    CAPTURE(threads);
    fathom::sim::Simulation simulation(7);
    auto fabric = three_links();
    const auto both = fabric->open(on_links({0, 1}, 3000));
    const SimTime lookahead = fabric->lookahead();
    const auto fabric_id = simulation.add(std::move(fabric));
    // 8e6 bytes at 5 us: it moves from 8 us at the 4 GB/s bottleneck for 2 ms, and the sender
    // hears of it 3 us after its last byte arrives.
    auto* poster = new Poster(fabric_id, lookahead, {{SimTime::from_ns(5000), {both, 0, 8e6}}});
    simulation.add(std::unique_ptr<Poster>(poster));
    simulation.set_lookahead(lookahead);
    fathom::sim::RunOptions options;
    if (threads > 1) {
      options.scheduler = fathom::sim::Scheduler::kParallel;
      options.threads = threads;
    }
    simulation.run(options);
    CHECK(poster->noticed[0].ns() == 5000 + 3000 + 2'000'000 + 3000);
  }
}

TEST_CASE("posted transfers and a user's sends share the links max-min, as one set of flows does") {
  // On link 0 (10 GB/s): the user's 4e6 bytes from 0 and a post of 2e6 bytes at 0; on links 0 and
  // 2, a post of 3e6 bytes at 100 us. The same flows given to simulate_transfers finish alike.
  fathom::sim::Simulation simulation(7);
  auto fabric = three_links();
  const auto one = fabric->open(on_links({0}, 1000));
  const auto two = fabric->open(on_links({0, 2}, 2000));
  Sender sender({{SimTime::zero(), one, 4e6}});
  sender.user = fabric->add_user(sender);
  const SimTime lookahead = fabric->lookahead();
  const auto fabric_id = simulation.add(std::move(fabric));
  auto* poster =
      new Poster(fabric_id, lookahead, {{SimTime::zero(), {one, 0, 2e6}}, {SimTime::from_ns(100'000), {two, 1, 3e6}}});
  simulation.add(std::unique_ptr<Poster>(poster));
  simulation.set_lookahead(lookahead);
  simulation.run({});

  fathom::topo::Topology t;
  for (int l = 0; l < 3; ++l) {
    const auto a = t.add_vertex("a" + std::to_string(l), fathom::topo::VertexKind::kSwitch);
    const auto b = t.add_vertex("b" + std::to_string(l), fathom::topo::VertexKind::kSwitch);
    t.add_link(a, b, l == 1 ? 4e9 : 10e9, l == 1 ? 2000 : 1000, fathom::topo::LinkClass::kLeafSpine);
  }
  const std::vector<fathom::net::FlowRequest> requests{
      {0, 0, 0, 4e6, SimTime::zero()}, {1, 0, 0, 2e6, SimTime::zero()}, {2, 0, 0, 3e6, SimTime::from_ns(100'000)}};
  const std::vector<RoutedFlow> routes{
      {{0}, SimTime::from_ns(1000)}, {{0}, SimTime::from_ns(1000)}, {{0, 2}, SimTime::from_ns(2000)}};
  const auto together = fathom::net::simulate_transfers(t, requests, routes, 7);
  CHECK(sender.delivered[0] == together.flows[0].finish);
  // The poster hears of its transfers one connection latency after their last byte.
  CHECK(poster->noticed[0] == together.flows[1].finish + SimTime::from_ns(1000));
  CHECK(poster->noticed[1] == together.flows[2].finish + SimTime::from_ns(2000));
  // Closed form for the posted 2e6 bytes: 5 GB/s from 1 us to 102 us (505,000 bytes), then a
  // third of link 0 (10/3 GB/s) for the other 1,495,000: 448.5 us more.
  CHECK(together.flows[1].finish.ns() == 102'000 + 448'500);
}

TEST_CASE("a zero-byte transfer is delivered as its first byte would leave, without a flow or a re-rating") {
  // The first waits 5 us and the connection's 3 us; the 200,000 after it stream with no delay,
  // each sent from its predecessor's delivery: all arrive at 8 us, in order, handled one after
  // another rather than nested. The only event of the run is the first one's activation: no
  // flow was added, so no settle was asked for.
  fathom::sim::Simulation simulation(7);
  auto fabric = three_links();
  const auto both = fabric->open(on_links({0, 1}, 3000));
  ZeroChain chain(both, 200'000);
  chain.user = fabric->add_user(chain);
  FabricLp* lp = fabric.get();
  simulation.add(std::move(fabric));
  const auto run = simulation.run({});
  CHECK(run.committed == 1);
  CHECK(lp->in_flight() == 0);
  CHECK(lp->network().active_flows() == 0);
  CHECK(std::all_of(chain.delivered.begin(), chain.delivered.end(),
                    [](SimTime t) { return t == SimTime::from_ns(8000); }));
}

TEST_CASE("independent parts: flows joined by a chain of shared links are one part") {
  const std::vector<RoutedFlow> flows{
      {{0, 1}, SimTime::zero()}, {{2}, SimTime::zero()}, {{1, 3}, SimTime::zero()},
      {{}, SimTime::zero()},     {{4}, SimTime::zero()}, {{3, 5}, SimTime::zero()},
  };
  const auto parts = fathom::net::independent_parts(flows, 6);
  CHECK(parts.parts == 3);
  CHECK(parts.part_of_flow == std::vector<std::uint32_t>{0, 1, 0, 0, 2, 0});
  CHECK_THROWS_AS(fathom::net::independent_parts(flows, 5), std::invalid_argument);
}

TEST_CASE("a fabric in independent parts gives the reference's finishes and one fingerprint on any thread count") {
  // Six groups of four links; each flow stays in its group, so the run has six parts.
  std::mt19937_64 rng(11);
  const std::size_t groups = 6, per_group = 4;
  std::vector<double> capacity, latency_s;
  fathom::topo::Topology t;
  for (std::size_t l = 0; l < groups * per_group; ++l) {
    capacity.push_back(1e9 * static_cast<double>(1 + rng() % 40));
    latency_s.push_back(1e-6 * static_cast<double>(1 + rng() % 3));
    const auto a = t.add_vertex("a" + std::to_string(l), fathom::topo::VertexKind::kSwitch);
    const auto b = t.add_vertex("b" + std::to_string(l), fathom::topo::VertexKind::kSwitch);
    t.add_link(a, b, capacity.back(), std::llround(latency_s.back() * 1e9), fathom::topo::LinkClass::kLeafSpine);
  }
  std::vector<fathom::net::FlowRequest> requests;
  std::vector<RoutedFlow> routes;
  std::vector<fathom::test::RefFlow> ref;
  for (std::uint64_t f = 0; f < 240; ++f) {
    const std::size_t g = rng() % groups;
    std::vector<LinkId> route;
    for (std::size_t k = 0; k < per_group; ++k) {
      if (rng() % 2 == 0 || (route.empty() && k + 1 == per_group))
        route.push_back(static_cast<LinkId>(g * per_group + k));
    }
    std::int64_t latency_ns = 0;
    for (LinkId l : route) latency_ns += t.link(l).latency_ns;
    const double bytes = 1e5 * static_cast<double>(1 + rng() % 500);
    const auto start = SimTime::from_ns(static_cast<std::int64_t>(rng() % 3'000'000));
    requests.push_back({f, 0, 0, bytes, start});
    routes.push_back({route, SimTime::from_ns(latency_ns)});
    ref.push_back({std::vector<std::uint32_t>(route.begin(), route.end()), bytes, start.to_seconds()});
  }
  const auto one = fathom::net::simulate_transfers(t, requests, routes, 3, true, 1);
  const auto many = fathom::net::simulate_transfers(t, requests, routes, 3, true, 4);
  CHECK(one.parts == groups);
  CHECK(many.partitions == 4);
  CHECK(one.fingerprint == many.fingerprint);
  CHECK(one.events == many.events);
  const auto expected = fathom::test::simulate_flows(capacity, latency_s, ref);
  for (std::size_t f = 0; f < requests.size(); ++f) {
    CHECK(one.flows[f].finish == many.flows[f].finish);
    const double got = one.flows[f].finish.to_seconds();
    REQUIRE(std::abs(got - expected[f]) <= std::max(1e-6 * expected[f], 1e-6));
  }
  REQUIRE(one.link_loads.size() == many.link_loads.size());
  for (std::size_t k = 0; k < one.link_loads.size(); ++k) {
    CHECK(one.link_loads[k].time == many.link_loads[k].time);
    CHECK(one.link_loads[k].link == many.link_loads[k].link);
    CHECK(one.link_loads[k].bytes_per_s == many.link_loads[k].bytes_per_s);
  }
}
