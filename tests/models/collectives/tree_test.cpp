// The double binary tree and NVLS-tree across nodes, as NCCL builds them: a chain (or the
// NVSwitch) inside every node and the two complementary binary trees over the nodes, each
// carrying half the data, on every rail. Their closed forms against the simulation and the
// DAG's critical path for 2, 3, 4, 8 and 16 nodes, and the bottleneck an interior node's NIC
// makes beyond two nodes.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>
#include <vector>

#include "models/collectives/algorithms.hpp"
#include "models/collectives/alpha_beta.hpp"
#include "models/collectives/dag_builder.hpp"
#include "models/collectives/transfer_dag.hpp"
#include "tests/models/collectives/dgx_cluster.hpp"
#include "topologies/routing.hpp"

using namespace fathom::coll;
using fathom::coll::testing::dgx_cluster;
using fathom::coll::testing::gpus;
using fathom::topo::Router;
using fathom::topo::Topology;
using fathom::topo::VertexId;

namespace {

constexpr std::uint64_t kSeed = 5;

CollectiveSpec spec_for(const Topology& t, int ranks, double bytes, double slice, double nvls_slice,
                        std::int64_t alpha_ns) {
  CollectiveSpec spec;
  spec.ranks = gpus(t, ranks);
  spec.bytes = bytes;
  spec.slice_bytes = slice;
  spec.nvls_slice_bytes = nvls_slice;
  spec.alpha_ns = alpha_ns;
  return spec;
}

// Bytes the DAG sends into and out of every node's NICs (over the links between a NIC and its
// leaf), per NIC: what the flows put on each NIC.
struct NicLoad {
  double max_in = 0, max_out = 0;
};
NicLoad nic_load(const Topology& t, Router& router, const TransferDag& dag) {
  std::map<fathom::topo::LinkId, double> bytes;
  for (const Transfer& tr : dag.transfers()) {
    for (fathom::topo::LinkId l : router.route(tr.src, tr.dst, 0)) bytes[l] += tr.bytes;
  }
  NicLoad load;
  for (const auto& [l, b] : bytes) {
    const auto& link = t.link(l);
    if (t.vertex(link.from).kind == fathom::topo::VertexKind::kNic &&
        t.vertex(link.to).kind == fathom::topo::VertexKind::kSwitch) {
      load.max_out = std::max(load.max_out, b);
    }
    if (t.vertex(link.to).kind == fathom::topo::VertexKind::kNic &&
        t.vertex(link.from).kind == fathom::topo::VertexKind::kSwitch) {
      load.max_in = std::max(load.max_in, b);
    }
  }
  return load;
}

}  // namespace

TEST_CASE("double binary tree parents are NCCL's: tree 1 is tree 0 shifted by one for even n, mirrored for odd") {
  // ncclGetBtree on 4: 0 -> 2 -> {1, 3}. ncclGetDtree, even n: shifted, 1 -> 3 -> {2, 0}.
  const auto four = double_binary_tree_parents(4);
  CHECK(four[0] == std::vector<int>{-1, 2, 0, 2});
  CHECK(four[1] == std::vector<int>{3, -1, 3, 1});
  // Odd n: mirrored (r -> n-1-r). On 3: 0 -> 2 -> 1 and 2 -> 0 -> 1.
  const auto three = double_binary_tree_parents(3);
  CHECK(three[0] == std::vector<int>{-1, 2, 0});
  CHECK(three[1] == std::vector<int>{2, 0, -1});
}

TEST_CASE("tree across nodes: a chain in every node from a head per rail, the trees over the nodes") {
  const Topology t = dgx_cluster(4, false);
  const auto all = gpus(t, 32);
  const auto rails = tree_rails(t, all);
  REQUIRE(rails.size() == 8);
  for (std::size_t r = 0; r < 8; ++r) {
    REQUIRE(rails[r].size() == 4);
    for (std::size_t v = 0; v < 4; ++v) {
      for (std::size_t k = 0; k < 8; ++k) CHECK(rails[r][v][k] == all[8 * v + (r + k) % 8]);
    }
  }
  const std::vector<VertexId> uneven = {all[0], all[1], all[8]};
  CHECK(tree_rails(t, uneven).size() == 1);

  // Every channel (2 trees x 8 rails) carries S/16 over every hop: up and down each chain
  // (7 hops per node) and each tree's 3 edges.
  CollectiveSpec spec = spec_for(t, 32, 64e6, 1e6, 0, 1000);
  const TransferDag dag = tree_all_reduce(t, spec);
  const double hops = 2 * (7 * 4 + 3);
  CHECK(dag.total_bytes() == doctest::Approx(16 * hops * spec.bytes / 16));
  // Each transfer's first slice pays alpha (its zero-byte start), the bytes follow it.
  for (const Transfer& tr : dag.transfers()) CHECK(tr.alpha_ns == (tr.bytes == 0 ? tr.alpha_ns : 0));
  // One node keeps NCCL's two trees over its ranks, as before.
  spec.ranks = gpus(t, 8);
  CHECK(tree_all_reduce(t, spec).size() == double_binary_tree_all_reduce(spec).size());
}

TEST_CASE("trees across 2, 3, 4, 8 and 16 nodes: simulation equals the closed form") {
  for (int nodes : {2, 3, 4, 8, 16}) {
    const Topology t = dgx_cluster(nodes, /*nvls=*/true);
    Router router(t);
    for (Algorithm a : {Algorithm::kDoubleBinaryTree, Algorithm::kNvlsTree}) {
      double worst = 0;
      for (double bytes : {1.0 * (1 << 20), 64.0 * (1 << 20)}) {
        for (double slice : {0.0, 1.0 * (1 << 20)}) {
          for (std::int64_t alpha_ns : {0, 2000}) {
            // NVLS-tree's slices: 256 KiB x 8 GPUs of the message.
            CollectiveSpec spec = spec_for(t, 8 * nodes, bytes, slice, slice / 4, alpha_ns);
            spec.step_ns = slice > 0 ? 300 : 0;
            spec.nvls_step_ns = slice > 0 ? 900 : 0;
            CAPTURE(nodes);
            CAPTURE(to_string(a));
            CAPTURE(bytes);
            CAPTURE(slice);
            CAPTURE(alpha_ns);
            const double sim =
                run_dag(t, router, build_collective(Op::kAllReduce, a, t, spec), kSeed).makespan.to_seconds();
            const double closed = alpha_beta_seconds(Op::kAllReduce, a, t, router, spec, kSeed);
            CHECK(sim == doctest::Approx(closed).epsilon(1e-3));
            worst = std::max(worst, std::abs(sim - closed) / closed);
          }
        }
      }
      MESSAGE(nodes << " nodes, " << to_string(a) << ": worst relative difference " << worst);
    }
  }
}

TEST_CASE("a tree DAG built to run drops the zero-byte starts of slices that cost nothing, and finishes alike") {
  // The closed forms keep a start per slice (they re-time one shape with other costs); the DAG a
  // collective runs drops those whose delay is zero. On 4 nodes, with and without a per-slice
  // step cost: the same makespan to the ns (also when only the makespan is kept), and fewer
  // transfers exactly when the later slices' steps are free.
  const Topology t = dgx_cluster(4, /*nvls=*/true);
  Router router(t);
  for (std::int64_t step_ns : {0, 700}) {
    CAPTURE(step_ns);
    CollectiveSpec spec = spec_for(t, 32, 16.0 * (1 << 20), 1 << 16, 1 << 18, 2000);
    spec.step_ns = step_ns;
    spec.nvls_step_ns = step_ns;
    const auto pieces = detail::nvls_tree_pieces(t, spec);
    const auto cut = detail::node_tree_pieces(t, spec);
    REQUIRE(pieces.first.count >= 8);
    REQUIRE(cut.count >= 8);
    const std::pair<TransferDag, TransferDag> both[] = {
        {detail::nvls_tree_all_reduce(t, spec, pieces.first, pieces.second, detail::FreeStarts::kKeep).dag,
         nvls_tree_all_reduce(t, spec)},
        {detail::node_tree_all_reduce(t, spec, cut, detail::FreeStarts::kKeep).dag, tree_all_reduce(t, spec)}};
    for (const auto& [kept, dropped] : both) {
      if (step_ns == 0) {
        CHECK(dropped.size() < kept.size());
      } else {
        CHECK(dropped.size() == kept.size());
      }
      const auto full = run_dag(t, router, kept, kSeed);
      CHECK(run_dag(t, router, dropped, kSeed).makespan == full.makespan);
      const auto lean = run_dag(t, router, dropped, kSeed, 1, DagRecord::kMakespan);
      CHECK(lean.makespan == full.makespan);
      CHECK(lean.transfers.empty());
    }
  }
}

TEST_CASE("tree closed forms equal the DAG's critical path, also where they extend the pipeline's period") {
  // Small slices give hundreds of slices (up to the caps, 16 x the steps), where the closed form
  // finds the pipeline's period on shorter DAGs and extends it.
  for (int nodes : {2, 3, 4, 8}) {
    const Topology t = dgx_cluster(nodes, true);
    Router router(t);
    for (Algorithm a : {Algorithm::kDoubleBinaryTree, Algorithm::kNvlsTree}) {
      for (double bytes : {3e6, 300e6, 3e9}) {
        for (std::int64_t step_ns : {0, 700}) {
          CollectiveSpec spec = spec_for(t, 8 * nodes, bytes, 200e3, 100e3, 1500);
          spec.step_ns = step_ns;
          spec.nvls_step_ns = 2 * step_ns;
          spec.max_slices = 16;
          CAPTURE(nodes);
          CAPTURE(to_string(a));
          CAPTURE(bytes);
          CAPTURE(step_ns);
          const double closed = alpha_beta_seconds(Op::kAllReduce, a, t, router, spec, kSeed);
          const double path = critical_path_seconds(build_collective(Op::kAllReduce, a, t, spec), t, router, kSeed);
          CHECK(closed == doctest::Approx(path).epsilon(1e-8));
        }
      }
    }
  }
}

TEST_CASE("NVLS-tree: an interior node's NIC carries three streams, so the inter-node bottleneck halves past 2 nodes") {
  // NCCL's tuning model states it as a factor (src/graph/tuning.cc: NVLS_TREE's inter-node
  // bandwidth is bwInter up to 2 nodes and bwInter/2 beyond); here it comes from the flows.
  // On 2 nodes each tree is one edge: a node's NIC on rail j sends half of GPU j's part S/8 up
  // one tree and half down the other, S/8 each way. From 4 nodes a node interior in tree 0
  // receives its two children's halves and its parent's result, and sends its sum up and the
  // result to two children; it is a leaf of tree 1 (one half each way): 2 S/8 each way.
  const double s = 8.0 * (1 << 30);
  std::map<int, double> busbw;
  for (int nodes : {2, 4, 8, 16}) {
    const Topology t = dgx_cluster(nodes, true);
    Router router(t);
    CollectiveSpec spec = spec_for(t, 8 * nodes, s, 512 << 10, 128 << 10, 2000);
    const NicLoad load = nic_load(t, router, nvls_tree_all_reduce(t, spec));
    const double per_direction = nodes == 2 ? s / 8 : 2 * s / 8;
    CHECK(load.max_in == doctest::Approx(per_direction));
    CHECK(load.max_out == doctest::Approx(per_direction));
    const int n = 8 * nodes;
    const double seconds = alpha_beta_seconds(Op::kAllReduce, Algorithm::kNvlsTree, t, router, spec, kSeed);
    busbw[nodes] = bus_bandwidth_bytes_per_s(Op::kAllReduce, n, s, seconds);
    // The busiest link's bound: each NIC (50e9) carries per_direction; each GPU's NVLink
    // (450e9) S into the switch for the reduce-scatter and S/8 for the all-gather.
    const double bound = std::max(per_direction / 50e9, 1.125 * s / 450e9);
    MESSAGE(nodes << " nodes, 8 GiB: NVLS-tree busbw " << busbw[nodes] / 1e9 << " GB/s (busiest-link bound "
                  << bus_bandwidth_bytes_per_s(Op::kAllReduce, n, s, bound) / 1e9 << ")");
    CHECK(seconds >= bound);
    CHECK(seconds < 1.03 * bound);
  }
  // Both NIC-bound: busbw(N) / busbw(2) = [2(8N-1)/(8N) / 2] / [2(16-1)/16] = 0.517 at 4 nodes.
  const double expected = (2.0 * 31 / 32 / 2) / (2.0 * 15 / 16);
  MESSAGE("busbw(4 nodes) / busbw(2 nodes) = " << busbw[4] / busbw[2] << " (expected " << expected << ")");
  CHECK(busbw[4] / busbw[2] == doctest::Approx(expected).epsilon(0.02));
  CHECK(busbw[16] == doctest::Approx(busbw[4]).epsilon(0.04));  // flat beyond: every interior node's NIC the same
}

TEST_CASE("tree across nodes: the interior heads' NICs likewise, and the chains' NVLink") {
  // Channel (t, r) carries S/16. From 4 nodes a head interior in tree t carries 3 x S/16 each
  // way on its NIC and 1 x S/16 for tree 1-t: 2 S/8; on 2 nodes S/8. The chains put 2(g-1)/g
  // x S on every GPU's NVLink each way (28 hops of S/16), which bounds 2 nodes here.
  const double s = 4.0 * (1 << 30);
  for (int nodes : {2, 4, 8}) {
    const Topology t = dgx_cluster(nodes, false);
    Router router(t);
    CollectiveSpec spec = spec_for(t, 8 * nodes, s, 512 << 10, 0, 2000);
    const NicLoad load = nic_load(t, router, tree_all_reduce(t, spec));
    const double per_direction = nodes == 2 ? s / 8 : 2 * s / 8;
    CHECK(load.max_in == doctest::Approx(per_direction));
    CHECK(load.max_out == doctest::Approx(per_direction));
    const double seconds = alpha_beta_seconds(Op::kAllReduce, Algorithm::kDoubleBinaryTree, t, router, spec, kSeed);
    const double bound = std::max(per_direction / 50e9, 1.75 * s / 450e9);
    const int n = 8 * nodes;
    MESSAGE(nodes << " nodes, 4 GiB: tree busbw " << bus_bandwidth_bytes_per_s(Op::kAllReduce, n, s, seconds) / 1e9
                  << " GB/s (busiest-link bound " << bus_bandwidth_bytes_per_s(Op::kAllReduce, n, s, bound) / 1e9
                  << ")");
    CHECK(seconds >= bound);
    CHECK(seconds < 1.05 * bound);
  }
}
