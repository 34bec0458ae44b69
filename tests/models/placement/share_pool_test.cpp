// The GPU-sharing pool, FGD's fragmentation measure on a node worked out by hand, each placement
// policy's choice on a two-node pool, and the packing experiment's closed forms and invariants.
#include "models/placement/share_pool.hpp"

#include <doctest/doctest.h>

#include <vector>

#include "models/placement/share_placement.hpp"
#include "models/workloads/jobs/packing_experiment.hpp"

using namespace fathom;
using jobs::ShareDemand;
using place::SharePolicy;

TEST_CASE("a share pool counts what tasks take, and refuses what does not fit") {
  place::SharePool pool({{10'000, 1'000, 4, 0}, {4'000, 500, 0, 0}});
  CHECK(pool.total_gpu_milli() == 4'000);
  CHECK(pool.fits(0, {1'000, 10, 1, 300}));
  CHECK_FALSE(pool.fits(1, {1'000, 10, 1, 300}));  // no GPU
  CHECK(pool.fits(1, {4'000, 500, 0, 0}));         // a CPU task fills it exactly
  pool.take(0, 2, {1'000, 10, 1, 300});
  pool.take(0, -1, {1'000, 10, 2, 1000});  // the two lowest idle GPUs: 0 and 1
  CHECK(std::vector<std::int32_t>(pool.gpu_free(0).begin(), pool.gpu_free(0).end()) ==
        std::vector<std::int32_t>{0, 0, 700, 1000});
  CHECK(pool.idle_gpus(0) == 1);
  CHECK(pool.allocated_gpu_milli() == 2'300);
  CHECK(pool.cpu_free(0) == 8'000);
  CHECK_FALSE(pool.fits(0, {1'000, 10, 2, 1000}));  // one idle GPU left
  CHECK_THROWS_AS(pool.take(0, 2, {1'000, 10, 1, 800}), std::logic_error);
  CHECK_THROWS_AS(pool.take(1, -1, {5'000, 10, 0, 0}), std::logic_error);
}

// A node with 10 cores, GPUs free 1000, 500, 200 and 0 thousandths, against a mix of
// A: a 300-thousandth share (half the arrivals), B: two whole GPUs (a quarter), C: a CPU task of
// 20 cores (a quarter). A fits, and only the GPUs with less than 300 free (200 and 0) are lost
// to it: 200. B does not fit (one idle GPU): all 1,700 free are lost to it. C does not fit
// either: 1,700. F = 0.5 x 200 + 0.25 x 1,700 + 0.25 x 1,700 = 950.
TEST_CASE("FGD's fragmentation of a node, by hand") {
  place::TaskMix mix;
  mix.demands = {{1'000, 10, 1, 300}, {1'000, 10, 2, 1000}, {20'000, 10, 0, 0}};
  mix.weights = {0.5, 0.25, 0.25};
  const std::vector<std::int32_t> free{1000, 500, 200, 0};
  CHECK(place::SharePool::fragmentation(10'000, 1'000, free, mix) == doctest::Approx(950));
  // A CPU task that fits loses nothing; an empty node loses nothing to whole-GPU tasks.
  mix.demands = {{1'000, 10, 0, 0}};
  mix.weights = {1};
  CHECK(place::SharePool::fragmentation(10'000, 1'000, free, mix) == 0);
  mix.demands = {{1'000, 10, 1, 1000}};
  const std::vector<std::int32_t> idle{1000, 1000};
  CHECK(place::SharePool::fragmentation(10'000, 1'000, idle, mix) == 0);
  // The mix of a list: distinct demands by first appearance, weighted by frequency.
  const std::vector<ShareDemand> list{{1, 1, 1, 500}, {1, 1, 0, 0}, {1, 1, 1, 500}, {1, 1, 1, 500}};
  const place::TaskMix m = place::mix_of(list);
  REQUIRE(m.demands.size() == 2);
  CHECK(m.weights[0] == 0.75);
  CHECK(m.weights[1] == 0.25);
}

// Node 0 idle (two GPUs), node 1 with one GPU half used. A 500-thousandth share arrives; the
// expected tasks want whole GPUs. FGD fills node 1's half-used GPU (its fragment disappears:
// -500), where first-fit takes node 0's first GPU (a new fragment: +500).
TEST_CASE("each sharing policy's choice on two nodes") {
  place::SharePool pool({{10'000, 1'000, 2, 0}, {10'000, 1'000, 2, 0}});
  pool.take(1, 0, {0, 0, 1, 500});
  place::TaskMix whole;
  whole.demands = {{1'000, 10, 1, 1000}};
  whole.weights = {1};
  const ShareDemand share{1'000, 10, 1, 500};
  const auto choice = [&](SharePolicy p) { return place::make_share_placer(p, whole, 1)->choose(pool, share); };
  CHECK(choice(SharePolicy::kFirstFit).node == 0);
  CHECK(choice(SharePolicy::kFirstFit).gpu == 0);
  CHECK(choice(SharePolicy::kFgd).node == 1);
  CHECK(choice(SharePolicy::kFgd).gpu == 0);
  CHECK(choice(SharePolicy::kBestFit).node == 1);  // leaves 1,000 free, not 1,500
  CHECK(choice(SharePolicy::kBestFit).gpu == 0);
  CHECK(choice(SharePolicy::kPacking).node == 1);  // a GPU already in use
  CHECK(choice(SharePolicy::kPacking).gpu == 0);
  const place::ShareChoice r = choice(SharePolicy::kRandom);
  CHECK(pool.fits(r.node, share));
  CHECK(pool.gpu_free(r.node)[r.gpu] >= 500);
  // A task no node holds: every policy says so.
  for (const SharePolicy p : {SharePolicy::kFirstFit, SharePolicy::kBestFit, SharePolicy::kRandom,
                              SharePolicy::kPacking, SharePolicy::kFgd}) {
    CHECK(place::make_share_placer(p, whole, 1)->choose(pool, {1'000, 10, 3, 1000}).node == -1);
  }
}

namespace {

std::vector<jobs::ShareTask> tasks_of(const std::vector<ShareDemand>& demands) {
  std::vector<jobs::ShareTask> tasks;
  for (const ShareDemand& d : demands) tasks.push_back({d, {}, {}, {}, jobs::PodPhase::kRunning, 0});
  return tasks;
}

}  // namespace

TEST_CASE("the packing experiment: closed forms and invariants") {
  const std::vector<place::ShareNodeSpec> nodes(10, {64'000, 1'000'000, 8, 0});
  for (const SharePolicy p : {SharePolicy::kFirstFit, SharePolicy::kBestFit, SharePolicy::kRandom,
                              SharePolicy::kPacking, SharePolicy::kFgd}) {
    CAPTURE(place::share_policy_name(p));
    // Only one-GPU tasks, CPU to spare: every policy fills all 80 GPUs, and the 24 beyond
    // (130% of 80 = 104 asked for) fail.
    const auto ones = tasks_of({{1'000, 1'000, 1, 1000}});
    const jobs::PackingRun full = jobs::run_packing(nodes, ones, {1.3, p, 1});
    CHECK(full.arrivals == 104);
    CHECK(full.placed == 80);
    CHECK(full.failed == 24);
    CHECK(full.allocated_at_100 == 1.0);
    CHECK(full.allocated_at_end == 1.0);
    // Each task is 1.25% of the cluster, so each adds a point: (k/80, min(k, 80)/80).
    REQUIRE(full.curve.size() == 104);
    CHECK(full.curve[39].arrived == 0.5);
    CHECK(full.curve[39].allocated == 0.5);
    CHECK(full.curve[99].arrived == 1.25);
    CHECK(full.curve[99].allocated == 1.0);
    // A mix of shares and whole GPUs: the curve never allocates more than arrived, both grow,
    // and the same seed gives the same run.
    const auto mixed = tasks_of({{4'000, 1'000, 1, 250},
                                 {4'000, 1'000, 1, 600},
                                 {8'000, 1'000, 2, 1000},
                                 {16'000, 1'000, 0, 0},
                                 {2'000, 1'000, 1, 1000}});
    const jobs::PackingRun a = jobs::run_packing(nodes, mixed, {1.3, p, 7});
    const jobs::PackingRun b = jobs::run_packing(nodes, mixed, {1.3, p, 7});
    CHECK(a.placed + a.failed == a.arrivals);
    CHECK(a.allocated_at_end == b.allocated_at_end);
    CHECK(a.placed == b.placed);
    for (std::size_t k = 0; k < a.curve.size(); ++k) {
      REQUIRE(a.curve[k].allocated <= a.curve[k].arrived + 1e-12);
      if (k > 0) REQUIRE(a.curve[k].allocated >= a.curve[k - 1].allocated);
    }
    CHECK(a.allocated_at_end <= 1.0);
  }
  CHECK_THROWS_AS(jobs::run_packing(nodes, tasks_of({{1'000, 1'000, 0, 0}}), {1.3, SharePolicy::kFgd, 1}),
                  std::invalid_argument);
}
