// NCCL's tuner (nccl_tuner.hpp): its estimates by hand from NCCL's constants, its choice, and
// the simulated time of that choice never falling as the message grows.
#include "models/collectives/nccl_tuner.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <string>

#include "models/collectives/collective_timer.hpp"
#include "tests/models/collectives/dgx_cluster.hpp"
#include "tests/support/csv_cells.hpp"

namespace {

using fathom::coll::Algorithm;
using fathom::coll::CollectiveParams;
using fathom::coll::CollectiveTimer;
using fathom::coll::nccl_choice;
using fathom::coll::nccl_estimates;
using fathom::coll::Op;
using fathom::coll::Protocol;
using fathom::coll::TunerEstimate;
using fathom::coll::TunerGroup;
using fathom::coll::testing::dgx_cluster;
using fathom::coll::testing::dgx_spec;
using fathom::coll::testing::gpus;

constexpr double kKiB = 1024;
constexpr double kMiB = 1024 * 1024;
constexpr std::uint64_t kSeed = 7;

// The estimate of one pair, microseconds.
double micros(const std::vector<TunerEstimate>& all, Algorithm a, Protocol p) {
  for (const auto& e : all) {
    if (e.algorithm == a && e.protocol == p) return e.seconds() * 1e6;
  }
  FAIL("no estimate for " << to_string(a) << "/" << to_string(p));
  return 0;
}

}  // namespace

TEST_CASE("tuner_group(): the rates NCCL's model reads, off the cluster") {
  const auto one = dgx_cluster(1, /*nvls=*/true);
  const TunerGroup g1 = fathom::coll::tuner_group(one, gpus(one, 8));
  CHECK(g1.nvlink);
  CHECK(g1.intra_bytes_per_s == 450e9);
  CHECK(g1.inter_bytes_per_s == 0);  // one node
  CHECK(g1.channels == 16);          // 8 NICs, two channels each
  const auto two = dgx_cluster(2, true);
  const TunerGroup g2 = fathom::coll::tuner_group(two, gpus(two, 16));
  CHECK(g2.inter_bytes_per_s == 8 * 50e9);  // 8 NICs of 50 GB/s (their PCIe links carry 64)
  // One GPU per node: its own NIC only.
  const TunerGroup rail = fathom::coll::tuner_group(two, {two.at("n0.gpu3"), two.at("n1.gpu3")});
  CHECK(rail.inter_bytes_per_s == 50e9);
  CHECK(rail.channels == 2);
}

TEST_CASE("NCCL's estimates on one node of 8 H100, by hand") {
  const auto t = dgx_cluster(1, /*nvls=*/true);
  const TunerGroup g = fathom::coll::tuner_group(t, gpus(t, 8));
  const double bytes = 128 * kKiB;
  const auto all = nccl_estimates(Op::kAllReduce, bytes, g);
  // Ring, 14 steps: LL's bus bandwidth 450/4 capped at 87.7 GB/s, x 8/14; latency 6.6 + 14 x 0.6.
  const double ring_ll = 6.6 + 14 * 0.6 + bytes / 1e3 / (87.7 * 8 / 14);
  CHECK(micros(all, Algorithm::kRing, Protocol::kLL) == doctest::Approx(ring_ll).epsilon(1e-12));
  // LL128: 450 x 0.92 x 8/14; 14 + 14 x 1.9. Simple: 450 x 8/14; 8.4 + 14 x 3.4 (no plateau on one node).
  CHECK(micros(all, Algorithm::kRing, Protocol::kLL128) ==
        doctest::Approx(14 + 14 * 1.9 + bytes / 1e3 / (450 * 0.92 * 8 / 14)).epsilon(1e-12));
  CHECK(micros(all, Algorithm::kRing, Protocol::kSimple) ==
        doctest::Approx(8.4 + 14 * 3.4 + bytes / 1e3 / (450.0 * 8 / 14)).epsilon(1e-12));
  // Tree under LL: min(450 x 0.92 / 3.8, 87.7) x 0.5 x the correction at log2(128 KiB / 64) = 11, 0.5;
  // latency 6.8 + 2 x 7 x 0.6.
  CHECK(micros(all, Algorithm::kDoubleBinaryTree, Protocol::kLL) ==
        doctest::Approx(6.8 + 2 * 7 * 0.6 + bytes / 1e3 / (87.7 * 0.5 * 0.5)).epsilon(1e-12));
  // NVLS: 23 us, 450 x 5/6.
  CHECK(micros(all, Algorithm::kNvls, Protocol::kSimple) ==
        doctest::Approx(23 + bytes / 1e3 / (450.0 * 5 / 6)).epsilon(1e-12));
  CHECK(std::none_of(all.begin(), all.end(), [](const auto& e) { return e.algorithm == Algorithm::kNvlsTree; }));
  // The choice: ring LL while 15 + S / 50.1 < 23 + S / 375, i.e. below 462.8 kB; NVLS above.
  CHECK(nccl_choice(Op::kAllReduce, 128 * kKiB, g)->protocol == Protocol::kLL);
  CHECK(nccl_choice(Op::kAllReduce, 448 * kKiB, g)->algorithm == Algorithm::kRing);
  CHECK(nccl_choice(Op::kAllReduce, 456 * kKiB, g)->algorithm == Algorithm::kNvls);
  // NCCL_PROTO and NCCL_ALGO narrow the choice.
  CHECK(nccl_choice(Op::kAllReduce, 64 * kMiB, g, Protocol::kLL)->algorithm == Algorithm::kRing);
  CHECK(nccl_choice(Op::kAllReduce, 64 * kMiB, g, std::nullopt, Algorithm::kRing)->protocol == Protocol::kSimple);
  CHECK_FALSE(nccl_choice(Op::kAllReduce, 64 * kMiB, g, std::nullopt, Algorithm::kHierarchical));
  // Other collectives: rings only (all-gather of 8: 7 steps, LL at 1/3 of the bus bandwidth).
  const auto gather = nccl_estimates(Op::kAllGather, bytes, g);
  CHECK(std::all_of(gather.begin(), gather.end(), [](const auto& e) { return e.algorithm == Algorithm::kRing; }));
  CHECK(micros(gather, Algorithm::kRing, Protocol::kLL) ==
        doctest::Approx(6.6 + 7 * 0.6 + bytes / 1e3 / (87.7 * 8 / 7)).epsilon(1e-12));
}

TEST_CASE("NCCL's estimates across two nodes, by hand") {
  const auto t = dgx_cluster(2, /*nvls=*/true);
  const TunerGroup g = fathom::coll::tuner_group(t, gpus(t, 16));
  // Ring, Simple: 30 steps, 4 of them network steps (2 x nodes), the rest at max(3.4, 3 x 1 us of
  // network overhead); x 1.4 once each channel's share per rank reaches 64 B. Bus 400 GB/s (the
  // NICs bind), x 16/30.
  const double big = 64 * kMiB;
  const auto at_big = nccl_estimates(Op::kAllReduce, big, g);
  CHECK(micros(at_big, Algorithm::kRing, Protocol::kSimple) ==
        doctest::Approx((8.4 + 26 * 3.4 + 4 * 14) * 1.4 + big / 1e3 / (400.0 * 16 / 30)).epsilon(1e-12));
  // NVLS-tree: 23 + 2 x log2(2) x 14; min(450, 400) x 5/6.
  CHECK(micros(at_big, Algorithm::kNvlsTree, Protocol::kSimple) ==
        doctest::Approx(23 + 2 * 14 + big / 1e3 / (400.0 * 5 / 6)).epsilon(1e-12));
  CHECK(nccl_choice(Op::kAllReduce, big, g)->algorithm == Algorithm::kNvlsTree);
  // Tree under LL at 1 KiB: min(400 x 0.92 / 3.8, 39) x 0.5 x 0.9 (log2(1 KiB / 64) = 4);
  // latency 6.8 + 2 (7 x 0.6 + 1 x 5.0). The smallest sizes run it.
  const auto at_small = nccl_estimates(Op::kAllReduce, kKiB, g);
  CHECK(micros(at_small, Algorithm::kDoubleBinaryTree, Protocol::kLL) ==
        doctest::Approx(6.8 + 2 * (7 * 0.6 + 5.0) + kKiB / 1e3 / (39 * 0.5 * 0.9)).epsilon(1e-12));
  const auto small = nccl_choice(Op::kAllReduce, kKiB, g);
  CHECK(small->algorithm == Algorithm::kDoubleBinaryTree);
  CHECK(small->protocol == Protocol::kLL);
  // Without NVLS the large sizes go to the ring.
  const auto plain = dgx_cluster(2, /*nvls=*/false);
  CHECK(nccl_choice(Op::kAllReduce, big, fathom::coll::tuner_group(plain, gpus(plain, 16)))->algorithm ==
        Algorithm::kRing);
}

TEST_CASE("NCCL's choice, simulated: a larger message takes no less time, but at NCCL's switch to NVLS") {
  // The pair NCCL's model picks at each size, timed by fathom's simulation, for every collective
  // NCCL tunes, on 1, 2 and 4 nodes with and without NVLS, 1 KiB to 64 MiB:
  //  - 256 KiB never takes less time than 128 KiB (issue 46's case: a decode iteration's
  //    all-reduce);
  //  - while the pair stays the same, no size takes less time than the one before (each
  //    algorithm and protocol alone is monotone);
  //  - without NVLS, no size takes less time than the one before at all, the switches between
  //    ring and tree and between protocols included;
  //  - with NVLS, where NCCL's model moves to NVLS (one node) or NVLS-tree (two nodes) the time
  //    drops: fathom's uncalibrated NVLS is faster at mid sizes than NCCL's model believes
  //    (and than the Azure ND H100 v5 sweep measured), docs/collectives.md. Printed, not asserted.
  for (bool nvls : {true, false}) {
    for (int nodes : {1, 2, 4}) {
      CollectiveTimer timer(dgx_spec(nodes, nvls), CollectiveParams{}, kSeed);
      const auto ranks = gpus(timer.topology(), 8 * nodes);
      for (Op op : {Op::kAllReduce, Op::kReduceScatter, Op::kAllGather}) {
        CAPTURE(nvls);
        CAPTURE(nodes);
        CAPTURE(to_string(op));
        CHECK(timer.time(op, ranks, 256 * kKiB).seconds >= timer.time(op, ranks, 128 * kKiB).seconds);
        fathom::coll::CollectiveTiming previous;
        for (double bytes = kKiB; bytes <= 64 * kMiB; bytes *= 2) {
          CAPTURE(bytes);
          const auto t = timer.time(op, ranks, bytes);
          CAPTURE(to_string(t.algorithm));
          CAPTURE(to_string(t.protocol));
          const bool same = t.algorithm == previous.algorithm && t.protocol == previous.protocol;
          if (same || !nvls) CHECK(t.seconds >= previous.seconds * (1 - 1e-4));
          if (t.seconds < previous.seconds * (1 - 1e-4)) {
            MESSAGE(nodes << " node(s), " << to_string(op) << ": " << to_string(previous.algorithm) << "/"
                          << to_string(previous.protocol) << " at " << bytes / 2 << " B takes "
                          << previous.seconds * 1e6 << " us, " << to_string(t.algorithm) << "/" << to_string(t.protocol)
                          << " at " << bytes << " B " << t.seconds * 1e6 << " us");
          }
          previous = t;
        }
      }
    }
  }
}

TEST_CASE("NCCL's switch from the ring to NVLS on 8 H100 where the measured profile changes regime") {
  // Vidur's NCCL all-reduce profile of an H100 DGX (data/calibration-data/vidur-operator-profiles/
  // network/h100_dgx/all_reduce.csv: 8 workers, sizes every 8 KiB up to 1 MiB, the least of its
  // repetitions in ms). Up to about 480 kB some repetition runs in about 20 us (a ring under LL);
  // from there none runs faster than the floor the sizes from 512 KiB to 1 MiB share (30 us, NVLS):
  // the regime changes between the last size with a repetition below that floor and the next.
  // NCCL's model, on the same node's rates, moves from the ring under LL to NVLS within 5% of it.
  std::ifstream file(std::string(FATHOM_SOURCE_DIR) +
                     "/data/calibration-data/vidur-operator-profiles/network/h100_dgx/all_reduce.csv");
  REQUIRE(file.good());
  std::string line;
  std::getline(file, line);
  REQUIRE(line.rfind(",time_stats.all_reduce.min,", 0) == 0);
  std::map<double, double> fastest;  // size (B) -> least time (s), 8 workers
  while (std::getline(file, line)) {
    const auto c = fathom::test::first_cells(line, 9);
    REQUIRE(c.size() == 9);
    if (c[7] != "8") continue;
    const double size = std::stod(c[8]);
    const double seconds = std::stod(c[1]) * 1e-3;
    const auto it = fastest.find(size);
    fastest[size] = it == fastest.end() ? seconds : std::min(it->second, seconds);
  }
  double floor = 1;
  for (const auto& [size, s] : fastest) {
    if (size >= 512 * kKiB && size <= kMiB) floor = std::min(floor, s);
  }
  double last_fast = 0, next = 0;
  for (const auto& [size, s] : fastest) {
    if (size < 512 * kKiB && s < floor) last_fast = size;
  }
  for (const auto& [size, s] : fastest) {
    if (size > last_fast) {
      next = size;
      break;
    }
  }
  const double measured = (last_fast + next) / 2;
  const auto t = dgx_cluster(1, /*nvls=*/true);
  const TunerGroup g = fathom::coll::tuner_group(t, gpus(t, 8));
  double model = 0;  // the least size NCCL's model gives to NVLS, to 1 kB
  for (double bytes = 256e3; bytes <= 1e6; bytes += 1e3) {
    if (nccl_choice(Op::kAllReduce, bytes, g)->algorithm == Algorithm::kNvls) {
      model = bytes;
      break;
    }
  }
  MESSAGE("measured: the regime changes between " << last_fast << " and " << next << " B (floor " << floor * 1e6
                                                  << " us); NCCL's model moves to NVLS at " << model << " B");
  CHECK(std::abs(model - measured) <= 0.05 * measured);

  // fathom's simulated times of NCCL's choice beside the profile's, uncalibrated (printed: the
  // defaults' ring under LL pays 10 us of launch and 14 steps of 2 us; docs/collectives.md).
  CollectiveTimer timer(dgx_spec(1, true), CollectiveParams{}, kSeed);
  const auto ranks = gpus(timer.topology(), 8);
  for (double size : {67584.0, 264192.0, 460800.0, 518144.0, 1048576.0, 4194304.0, 16777216.0, 67108864.0}) {
    REQUIRE(fastest.count(size) == 1);
    const auto sim = timer.time(Op::kAllReduce, ranks, size);
    MESSAGE(size << " B: measured " << fastest[size] * 1e6 << " us, fathom " << sim.seconds * 1e6 << " us ("
                 << to_string(sim.algorithm) << "/" << to_string(sim.protocol) << ", "
                 << (sim.seconds / fastest[size] - 1) * 100 << "%)");
  }
}
