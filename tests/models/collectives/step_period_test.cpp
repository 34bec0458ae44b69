// A ring collective timed from its first steps (step_period.hpp) against its whole transfer DAG
// run on the same flow network: equal within 0.1% on every stepped ring collective, fabric and
// size where both run, with and without other traffic beside it.
#include "models/collectives/step_period.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/collectives/algorithms.hpp"
#include "models/collectives/alpha_beta.hpp"
#include "models/collectives/transfer_dag.hpp"
#include "tests/models/collectives/dgx_cluster.hpp"
#include "topologies/cluster.hpp"
#include "topologies/routing.hpp"

using fathom::coll::CollectiveSpec;
using fathom::coll::DagResult;
using fathom::coll::Op;
using fathom::coll::run_by_step_period;
using fathom::coll::StepDag;
using fathom::coll::StepPeriodRun;
using fathom::coll::TransferDag;
using fathom::coll::testing::dgx_spec;
using fathom::coll::testing::gpus;
using fathom::topo::Router;
using fathom::topo::Routing;
using fathom::topo::Topology;

namespace {

constexpr std::uint64_t kSeed = 20261202;
constexpr double kMiB = 1024.0 * 1024.0;

// DGX-like nodes, one per leaf, under 8 spines of one NIC's rate each: the leaf is not
// oversubscribed, but ECMP can hash two of a leaf's flows onto one spine cable (collisions that
// last the whole collective, since a connection keeps its hash).
Topology spine_cluster(int nodes, Routing routing, double cable_bytes_per_s = 50e9) {
  fathom::topo::ClusterSpec spec = dgx_spec(nodes, /*nvls=*/false);
  spec.fabric.spines = 8;
  spec.fabric.tier[1] = {cable_bytes_per_s, 700};
  spec.fabric.routing = routing;
  return fathom::topo::build_cluster(spec);
}

CollectiveSpec ring_spec(const Topology& t, int nodes, double bytes) {
  CollectiveSpec spec;
  spec.ranks = gpus(t, nodes * 8);
  spec.bytes = bytes;
  spec.alpha_ns = 5000;
  spec.slice_bytes = 512 * 1024;
  spec.max_slices = 4;
  spec.step_ns = 300;
  return spec;
}

// The collective's own last finish in a run of its DAG followed by `others` transfers.
std::int64_t own_finish(const DagResult& r, std::size_t own) {
  std::int64_t last = 0;
  for (std::size_t i = 0; i < own; ++i) last = std::max(last, r.transfers[i].finish.ns());
  return last;
}

// The whole ring, then `background` after it (predecessors shifted), run as one DAG.
std::int64_t full_run(const Topology& t, Router& router, Op op, const CollectiveSpec& spec,
                      const TransferDag* background, int flows_per_connection = 1) {
  const int steps = fathom::coll::ring_step_count(op, spec.ranks.size());
  TransferDag dag = fathom::coll::ring_first_steps(op, t, spec, steps).dag;
  const std::size_t own = dag.size();
  if (background != nullptr) dag.append(*background);
  return own_finish(fathom::coll::run_dag(t, router, dag, kSeed, flows_per_connection), own);
}

StepPeriodRun by_period(const Topology& t, Router& router, Op op, const CollectiveSpec& spec,
                        const TransferDag* background, int flows_per_connection = 1) {
  return run_by_step_period(
      t, router, [&](int steps) { return fathom::coll::ring_first_steps(op, t, spec, steps); },
      fathom::coll::ring_step_count(op, spec.ranks.size()), kSeed, flows_per_connection, background);
}

}  // namespace

TEST_CASE("a ring timed by its period equals its whole DAG within 0.1%, extrapolating from a prefix at 1 GiB") {
  for (Routing routing : {Routing::kEcmpHash, Routing::kDestination, Routing::kAdaptive}) {
    for (int nodes : {4, 8, 16}) {
      const Topology t = spine_cluster(nodes, routing);
      Router router(t);
      for (Op op : {Op::kAllReduce, Op::kReduceScatter, Op::kAllGather}) {
        for (double bytes : {8 * kMiB, 1024 * kMiB}) {
          CAPTURE(static_cast<int>(routing));
          CAPTURE(nodes);
          CAPTURE(static_cast<int>(op));
          CAPTURE(bytes);
          const CollectiveSpec spec = ring_spec(t, nodes, bytes);
          const StepPeriodRun run = by_period(t, router, op, spec, nullptr);
          const auto full = static_cast<double>(full_run(t, router, op, spec, nullptr));
          CHECK(static_cast<double>(run.makespan.ns()) == doctest::Approx(full).epsilon(1e-3));
          // At 1 GiB the shortcut is what ran: a prefix, shorter than the whole, with a period.
          // At 8 MiB the steps' bytes are short beside their latencies, a GPU's channels send
          // at different instants (each at its own place in its ring, Transfer::after_sent),
          // and the transient before the steps repeat lasts about the ring's length: the
          // prefix may find no period and the whole DAG runs, as the equality above checks.
          if (bytes >= 1024 * kMiB) {
            CHECK(run.extrapolated);
            CHECK(run.simulated_steps < fathom::coll::ring_step_count(op, spec.ranks.size()));
            CHECK(run.period.ns() > 0);
          }
        }
      }
    }
  }
}

TEST_CASE("a ring with no period within the prefix budget: the prefix scaled by the ring's lattice") {
  // At 8 MiB on 8 and 16 nodes these rings run on latency and show no period in any prefix (on
  // 4 nodes they do, from 16 steps). With a budget that the prefix after `prefix` steps would
  // pass, that prefix is scaled by the lattice's growth over the remaining steps. Measured
  // against the whole DAG: up to 2.0% from 16 steps (16 nodes: 254 steps), 0.5% from 64.
  double worst[2] = {0, 0};
  for (int nodes : {4, 8, 16}) {
    const Topology t = spine_cluster(nodes, Routing::kEcmpHash);
    Router router(t);
    for (Op op : {Op::kAllReduce, Op::kReduceScatter, Op::kAllGather}) {
      const CollectiveSpec spec = ring_spec(t, nodes, 8 * kMiB);
      const int steps = fathom::coll::ring_step_count(op, spec.ranks.size());
      const auto prefix = [&](int m) { return fathom::coll::ring_first_steps(op, t, spec, m); };
      const fathom::coll::StepModel lattice = [&](int k) {
        return fathom::coll::ring_steps_seconds(t, router, spec, k);
      };
      const auto full = static_cast<double>(full_run(t, router, op, spec, nullptr));
      for (int p = 0; p < 2; ++p) {
        const int m = p == 0 ? 16 : 64;
        if (2 * m > steps) continue;
        CAPTURE(nodes);
        CAPTURE(static_cast<int>(op));
        CAPTURE(m);
        const std::size_t budget = 2 * prefix(m).dag.size() - 1;
        const StepPeriodRun run = run_by_step_period(t, router, prefix, steps, kSeed, 1, nullptr, &lattice, budget);
        CHECK(run.simulated_steps <= m);
        CHECK((run.scaled || run.extrapolated));
        CHECK(run.scaled == (nodes > 4));
        const double error = std::abs(static_cast<double>(run.makespan.ns()) / full - 1);
        CHECK(error < (m == 16 ? 0.025 : 0.01));
        worst[p] = std::max(worst[p], error);
      }
      // With the default budget these rings run whole where they show no period: exact.
      const StepPeriodRun whole = run_by_step_period(t, router, prefix, steps, kSeed, 1, nullptr, &lattice);
      CHECK_FALSE(whole.scaled);
      CHECK(static_cast<double>(whole.makespan.ns()) == doctest::Approx(full).epsilon(1e-3));
    }
  }
  MESSAGE("scaled by the lattice: worst error " << worst[0] * 100 << "% from 16 steps, " << worst[1] * 100
                                                << "% from 64, against the whole DAG");
}

TEST_CASE("with several flows per connection and an oversubscribed spine the period still holds") {
  const Topology t = spine_cluster(8, Routing::kEcmpHash, 20e9);
  Router router(t);
  const CollectiveSpec spec = ring_spec(t, 8, 256 * kMiB);
  for (int k : {1, 2, 4}) {
    CAPTURE(k);
    const StepPeriodRun run = by_period(t, router, Op::kAllReduce, spec, nullptr, k);
    const auto full = static_cast<double>(full_run(t, router, Op::kAllReduce, spec, nullptr, k));
    CHECK(static_cast<double>(run.makespan.ns()) == doctest::Approx(full).epsilon(1e-3));
    CHECK(run.extrapolated);
  }
}

TEST_CASE("beside background traffic: equal to the whole DAG with it, extrapolated only after it ends") {
  const int nodes = 8;
  const Topology t = spine_cluster(nodes, Routing::kEcmpHash);
  Router router(t);
  const CollectiveSpec spec = ring_spec(t, nodes, 1024 * kMiB);
  const int steps = fathom::coll::ring_step_count(Op::kAllReduce, spec.ranks.size());
  const double alone = static_cast<double>(full_run(t, router, Op::kAllReduce, spec, nullptr));
  // Other work on every NIC and spine the ring crosses: each GPU sends to the same GPU of the
  // node two ahead.
  const auto background = [&](double bytes) {
    TransferDag dag;
    for (int n = 0; n < nodes; ++n) {
      for (int g = 0; g < 8; ++g) {
        const std::string gpu = ".gpu" + std::to_string(g);
        dag.add({t.at("n" + std::to_string(n) + gpu), t.at("n" + std::to_string((n + 2) % nodes) + gpu), bytes, 0,
                 false, false, 99});
      }
    }
    return dag;
  };
  SUBCASE("traffic that outlasts every prefix: the whole DAG runs") {
    // 1 GB per NIC at no more than 50 GB/s: at least 20 ms beside a ring of about 20 ms.
    const TransferDag heavy = background(1e9);
    const StepPeriodRun run = by_period(t, router, Op::kAllReduce, spec, &heavy);
    const auto full = static_cast<double>(full_run(t, router, Op::kAllReduce, spec, &heavy));
    CHECK(full > alone * 1.05);  // the traffic slows the ring
    CHECK(static_cast<double>(run.makespan.ns()) == doctest::Approx(full).epsilon(1e-3));
    CHECK_FALSE(run.extrapolated);
    CHECK(run.simulated_steps == steps);
  }
  SUBCASE("traffic that ends early in the ring: extrapolated from after it") {
    const TransferDag light = background(20e6);
    const StepPeriodRun run = by_period(t, router, Op::kAllReduce, spec, &light);
    const auto full = static_cast<double>(full_run(t, router, Op::kAllReduce, spec, &light));
    CHECK(full > alone);
    CHECK(static_cast<double>(run.makespan.ns()) == doctest::Approx(full).epsilon(1e-3));
    CHECK(run.extrapolated);
  }
}

TEST_CASE("one prefix that is the whole collective runs it exactly, and bad input is refused") {
  const Topology t = spine_cluster(1, Routing::kEcmpHash);
  Router router(t);
  const CollectiveSpec spec = ring_spec(t, 1, 64 * kMiB);  // 8 ranks: 14 steps, fewer than the first prefix
  const StepPeriodRun run = by_period(t, router, Op::kAllReduce, spec, nullptr);
  CHECK_FALSE(run.extrapolated);
  CHECK(run.simulated_steps == 14);
  CHECK(run.makespan.ns() == full_run(t, router, Op::kAllReduce, spec, nullptr));
  const auto build = [&](int steps) { return fathom::coll::ring_first_steps(Op::kAllReduce, t, spec, steps); };
  CHECK_THROWS_AS(run_by_step_period(t, router, build, 0, kSeed, 1), std::invalid_argument);
  CHECK_THROWS_AS(fathom::coll::ring_first_steps(Op::kAllReduce, t, spec, 15), std::invalid_argument);
  CHECK_THROWS_AS(fathom::coll::ring_first_steps(Op::kBroadcast, t, spec, 1), std::invalid_argument);
  const auto unlabelled = [&](int steps) {
    StepDag d = build(steps);
    d.step.pop_back();
    return d;
  };
  CHECK_THROWS_AS(run_by_step_period(t, router, unlabelled, 14, kSeed, 1), std::logic_error);
}

TEST_CASE("stepped_collective(): rings of two ranks or more are stepped; trees and the rest run whole") {
  using fathom::coll::Algorithm;
  const Topology t = spine_cluster(2, Routing::kEcmpHash);
  const CollectiveSpec spec = ring_spec(t, 2, 64 * kMiB);  // 16 ranks
  const auto all_reduce = fathom::coll::stepped_collective(Op::kAllReduce, Algorithm::kRing, t, spec);
  REQUIRE(all_reduce.has_value());
  CHECK(all_reduce->steps == 30);
  const auto gather = fathom::coll::stepped_collective(Op::kAllGather, Algorithm::kRing, t, spec);
  REQUIRE(gather.has_value());
  CHECK(gather->steps == 15);
  // Its prefix holds as many transfers per step as the whole ring.
  const StepDag first = all_reduce->build(3);
  const TransferDag whole = fathom::coll::build_collective(Op::kAllReduce, Algorithm::kRing, t, spec);
  REQUIRE(first.dag.size() * 10 == whole.size());  // 8 channels x 16 ranks x 3 of 30 steps
  CHECK(first.step.back() == 2);
  CHECK_FALSE(fathom::coll::stepped_collective(Op::kAllReduce, Algorithm::kDoubleBinaryTree, t, spec).has_value());
  CHECK_FALSE(fathom::coll::stepped_collective(Op::kBroadcast, Algorithm::kRing, t, spec).has_value());
  CollectiveSpec one = spec;
  one.ranks.resize(1);
  CHECK_FALSE(fathom::coll::stepped_collective(Op::kAllReduce, Algorithm::kRing, t, one).has_value());
}
