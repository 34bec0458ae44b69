// Closed forms under adaptive routing: a flow spread evenly over every shortest route loads each
// leaf uplink with a fraction of its bytes, so the uncontended closed form must read the spread,
// not one ECMP path, to equal the simulated DAG.
#include <doctest/doctest.h>

#include "models/collectives/algorithms.hpp"
#include "models/collectives/alpha_beta.hpp"
#include "models/collectives/transfer_dag.hpp"
#include "tests/models/collectives/dgx_cluster.hpp"
#include "topologies/routing.hpp"

using namespace fathom::coll;
using fathom::coll::testing::dgx_spec;
using fathom::coll::testing::gpus;

TEST_CASE("adaptive routing: ring and tree closed forms equal the DAG on a multi-spine fat-tree, as D-mod-K's do") {
  // 4 nodes of 8 NICs on 2 leaves of 16 ports, each leaf up to 4 spines at 200e9: 800e9 up
  // against 800e9 down. Rings cross between the leaves; read as one ECMP path each (hash 0)
  // their uplinks would collide and the closed form came out 1.84 times the DAG's time.
  for (auto routing : {fathom::topo::Routing::kAdaptive, fathom::topo::Routing::kDestination}) {
    fathom::topo::ClusterSpec s = dgx_spec(4, false, 200e9);
    s.fabric.hosts_per_leaf = 16;
    s.fabric.spines = 4;
    s.fabric.routing = routing;
    const fathom::topo::Topology t = fathom::topo::build_cluster(s);
    fathom::topo::Router router(t);
    for (Algorithm a : {Algorithm::kRing, Algorithm::kDoubleBinaryTree}) {
      CollectiveSpec spec;
      spec.ranks = gpus(t, 32);
      spec.bytes = 256.0 * (1 << 20);
      spec.alpha_ns = 1000;
      CAPTURE(to_string(a));
      CAPTURE(static_cast<int>(routing));
      const double sim = run_dag(t, router, build_collective(Op::kAllReduce, a, t, spec), 5).makespan.to_seconds();
      const double closed = alpha_beta_seconds(Op::kAllReduce, a, t, router, spec, 5);
      MESSAGE(to_string(a) << " routing " << static_cast<int>(routing) << ": DAG " << sim << " s, closed form "
                           << closed << " s");
      CHECK(sim == doctest::Approx(closed).epsilon(1e-3));
    }
  }
}
