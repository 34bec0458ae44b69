// The GPU pool's counts, and which GPUs each placement policy picks, on pools small enough to
// work out by hand.
#include "models/placement/placement.hpp"

#include <doctest/doctest.h>

#include <stdexcept>
#include <vector>

#include "models/placement/gpu_pool.hpp"

using namespace fathom::place;

namespace {

// Four nodes of 8 GPUs on two leaves, with 2, 8, 5 and 0 GPUs free.
GpuPool part_used_pool() {
  GpuPool pool({8, 8, 8, 8}, {0, 0, 1, 1});
  const std::vector<NodeShare> used{{0, 6}, {2, 3}, {3, 8}};
  pool.take(used);
  return pool;
}

}  // namespace

TEST_CASE("a GPU pool counts free and stranded GPUs as shares come and go") {
  GpuPool pool({8, 8, 4}, {0, 0, 1});
  CHECK(pool.total_gpus() == 20);
  CHECK(pool.largest_node() == 8);
  CHECK(pool.total_free() == 20);
  CHECK(pool.free_on_partial_nodes() == 0);
  const std::vector<NodeShare> a{{0, 3}, {2, 4}};
  pool.take(a);
  CHECK(pool.total_free() == 13);
  CHECK(pool.free(0) == 5);
  CHECK(pool.free_on_partial_nodes() == 5);  // node 0's 5; node 2 is full, node 1 whole
  const std::vector<NodeShare> b{{1, 1}};
  pool.take(b);
  CHECK(pool.free_on_partial_nodes() == 12);
  pool.give(a);
  CHECK(pool.free_on_partial_nodes() == 7);
  CHECK(pool.total_free() == 19);
  const std::vector<NodeShare> too_many{{1, 8}};
  CHECK_THROWS_AS(pool.take(too_many), std::logic_error);
  CHECK_THROWS_AS(pool.give(too_many), std::logic_error);
  CHECK(pool.total_free() == 19);
  CHECK_THROWS_AS(GpuPool({8, 8}, {0}), std::invalid_argument);
}

TEST_CASE("first-fit takes the lowest-numbered nodes' free GPUs") {
  const GpuPool pool = part_used_pool();
  std::vector<NodeShare> out;
  REQUIRE(place_first_fit(pool, 9, out));
  CHECK(out == std::vector<NodeShare>{{0, 2}, {1, 7}});
  out.clear();
  REQUIRE(place_first_fit(pool, 15, out));
  CHECK(out == std::vector<NodeShare>{{0, 2}, {1, 8}, {2, 5}});
  out = {{9, 9}};
  CHECK_FALSE(place_first_fit(pool, 16, out));   // 15 free
  CHECK(out == std::vector<NodeShare>{{9, 9}});  // left as it was
}

TEST_CASE("best-fit fills the tightest node, and a large job spans the fewest nodes") {
  const GpuPool pool = part_used_pool();
  std::vector<NodeShare> out;
  REQUIRE(place_best_fit(pool, 2, out));
  CHECK(out == std::vector<NodeShare>{{0, 2}});  // node 0's 2 free fit exactly
  out.clear();
  REQUIRE(place_best_fit(pool, 4, out));
  CHECK(out == std::vector<NodeShare>{{2, 4}});  // 5 free is tighter than 8
  out.clear();
  REQUIRE(place_best_fit(pool, 6, out));
  CHECK(out == std::vector<NodeShare>{{1, 6}});
  out.clear();
  // 10: the emptiest node (8), then the tightest for the 2 left (node 0, not node 2's 5).
  REQUIRE(place_best_fit(pool, 10, out));
  CHECK(out == std::vector<NodeShare>{{1, 8}, {0, 2}});
  out.clear();
  CHECK_FALSE(place_best_fit(pool, 16, out));
  CHECK(out.empty());
  // Among equally tight nodes, the lowest-numbered.
  GpuPool even({4, 4, 4}, {0, 0, 0});
  REQUIRE(place_best_fit(even, 3, out));
  CHECK(out == std::vector<NodeShare>{{0, 3}});
}

TEST_CASE("every policy places exactly when enough GPUs are free, and never more than asked") {
  for (const PlacementPolicy policy :
       {PlacementPolicy::kFirstFit, PlacementPolicy::kBestFit, PlacementPolicy::kTopologyAware}) {
    CAPTURE(placement_name(policy));
    for (int gpus = 1; gpus <= 16; ++gpus) {
      const GpuPool pool = part_used_pool();
      std::vector<NodeShare> out;
      const bool placed = place(policy, pool, gpus, out);
      CHECK(placed == (gpus <= pool.total_free()));
      if (!placed) continue;
      int sum = 0;
      for (const NodeShare& s : out) {
        CHECK(s.gpus > 0);
        CHECK(s.gpus <= pool.free(s.node));
        sum += s.gpus;
      }
      CHECK(sum == gpus);
    }
  }
}

TEST_CASE("leaves spanned counts distinct leaves") {
  const GpuPool pool = part_used_pool();
  const std::vector<NodeShare> one{{0, 1}, {1, 1}};
  const std::vector<NodeShare> two{{0, 1}, {2, 1}, {3, 1}};
  CHECK(leaves_spanned(pool, one) == 1);
  CHECK(leaves_spanned(pool, two) == 2);
}

// Two pods of two leaves of two 4-GPU nodes. Free: leaf 0 (nodes 0, 1): 4 + 4; leaf 1 (2, 3):
// 2 + 4; leaf 2 (4, 5, pod 1): 4 + 0; leaf 3 (6, 7): 1 + 1.
TEST_CASE("topology-aware placement keeps a job in the smallest part that holds it") {
  GpuPool pool({4, 4, 4, 4, 4, 4, 4, 4}, {0, 0, 1, 1, 2, 2, 3, 3}, {}, {0, 0, 0, 0, 1, 1, 1, 1});
  const std::vector<NodeShare> used{{2, 2}, {5, 4}, {6, 3}, {7, 3}};
  pool.take(used);
  const auto placed = [&](std::int32_t gpus) {
    std::vector<NodeShare> out;
    REQUIRE(place_topology_aware(pool, gpus, out));
    return out;
  };
  // 3 GPUs fit on one node: the lowest-numbered of the tightest (4 free each).
  CHECK(placed(3) == std::vector<NodeShare>{{0, 3}});
  // 6 fit in no node but in leaves 0 (8) and 1 (6): the tightest, leaf 1, its emptiest node first.
  CHECK(placed(6) == std::vector<NodeShare>{{3, 4}, {2, 2}});
  // 9 fit in no leaf but in pod 0 (14): leaf 0 whole, then 1 GPU on leaf 1's tightest node.
  CHECK(placed(9) == std::vector<NodeShare>{{0, 4}, {1, 4}, {2, 1}});
  // 16 span both pods: pod 0 (14) first, then 2 on pod 1's node with room for both.
  CHECK(placed(16) == std::vector<NodeShare>{{0, 4}, {1, 4}, {3, 4}, {2, 2}, {4, 2}});
  std::vector<NodeShare> out;
  CHECK_FALSE(place_topology_aware(pool, 21, out));
  // First-fit puts the 6-GPU job across two leaves.
  out.clear();
  REQUIRE(place_first_fit(pool, 6, out));
  CHECK(leaves_spanned(pool, out) == 1);  // nodes 0 and 1: still one leaf here
  out.clear();
  REQUIRE(place_first_fit(pool, 9, out));
  CHECK(leaves_spanned(pool, out) == 2);
}
