// Closed forms of the ZeRO-3 / FSDP pass timeline (sharded_parameters.hpp) and of tensor-parallel
// communication pipelined against its GEMM (tp_overlap.hpp).
#include "models/workloads/training/sharded_parameters.hpp"

#include <doctest/doctest.h>

#include <vector>

#include "models/workloads/training/tp_overlap.hpp"

using namespace fathom::train;

namespace {
std::vector<ModuleCost> equal(int n, double c, double a, double r) { return std::vector<ModuleCost>(n, {c, a, r}); }
}  // namespace

TEST_CASE("ZeRO-3 on demand: every gather, module and scatter one after another, L (a + c + r)") {
  for (int layers : {1, 4, 16}) {
    CHECK(pass_seconds(equal(layers, 3.0, 1.0, 0.0), 0) == doctest::Approx(layers * 4.0));
    CHECK(pass_seconds(equal(layers, 3.0, 1.0, 0.5), 0) == doctest::Approx(layers * 4.5));
  }
}

TEST_CASE("ZeRO-3 prefetched forward: a + (L - 1) max(a, c) + c, compute- or communication-bound") {
  for (int layers : {1, 2, 8, 32}) {
    for (auto [c, a] : {std::pair{3.0, 1.0}, {1.0, 3.0}, {2.0, 2.0}}) {
      CAPTURE(layers);
      CAPTURE(c);
      CAPTURE(a);
      const double closed = a + (layers - 1) * std::max(a, c) + c;
      CHECK(pass_seconds(equal(layers, c, a, 0.0), 1) == doctest::Approx(closed));
      // A deeper prefetch cannot beat the stream's bandwidth or the compute.
      CHECK(pass_seconds(equal(layers, c, a, 0.0), 3) <= doctest::Approx(closed));
      CHECK(pass_seconds(equal(layers, c, a, 0.0), 3) >= doctest::Approx(std::max(layers * a + c, a + layers * c)));
    }
  }
}

TEST_CASE("ZeRO-3 prefetched backward: hidden when a + r <= c, communication-bound when not") {
  // Compute-bound: only the first gather and the last scatter show.
  CHECK(pass_seconds(equal(10, 5.0, 1.0, 2.0), 1) == doctest::Approx(1.0 + 10 * 5.0 + 2.0));
  // Communication-bound: the stream carries L (a + r) and the last module's compute still runs.
  const double bound = pass_seconds(equal(10, 1.0, 2.0, 2.0), 1);
  CHECK(bound >= 10 * 4.0 - 1e-9);
  CHECK(bound <= 10 * 4.0 + 1.0 + 2.0 + 1e-9);
  // Prefetching never makes it slower than gathering on demand.
  CHECK(bound <= pass_seconds(equal(10, 1.0, 2.0, 2.0), 0) + 1e-9);
}

TEST_CASE("ZeRO-3 overlap is not free: compute beside the stream runs 1 + stretch times as long") {
  // H100-like: 16 channels of 132 SMs, stretch 16 / 116. Prefetched forward, a <= c: every
  // module but the last computes beside the next one's gather, for a seconds of wall time, doing
  // a / (1 + stretch) of its work there: a + L c + (L - 1) a stretch / (1 + stretch).
  const double stretch = 16.0 / 116.0;
  for (int layers : {1, 2, 8, 32}) {
    for (auto [c, a] : {std::pair{3.0, 1.0}, {2.0, 2.0}, {5.0, 0.5}}) {
      CAPTURE(layers);
      CAPTURE(c);
      CAPTURE(a);
      const double closed = a + layers * c + (layers - 1) * a * stretch / (1 + stretch);
      CHECK(pass_seconds(equal(layers, c, a, 0.0), 1, stretch) == doctest::Approx(closed));
    }
  }
  // On demand nothing runs beside the compute in a forward pass: L (a + c) as before.
  CHECK(pass_seconds(equal(8, 3.0, 1.0, 0.0), 0, stretch) == doctest::Approx(8 * 4.0));
  // Backward on demand: module i computes beside the scatter of module i - 1 (r <= a: the scatter
  // ends before the gather it precedes, so nothing overlaps either): L (a + c + r).
  CHECK(pass_seconds(equal(8, 3.0, 1.0, 0.5), 0, stretch) == doctest::Approx(8 * 4.5));
  // The communication-bound pass is bounded by its stream, whatever the stretch.
  const double bound = pass_seconds(equal(10, 1.0, 2.0, 2.0), 1, stretch);
  CHECK(bound >= 10 * 4.0 - 1e-9);
  CHECK(bound <= 10 * 4.0 + 1.0 * (1 + stretch) + 2.0 + 1e-9);
  // A stretch never speeds a pass up, and 0 is the free overlap.
  for (double k : {0.0, 0.05, 0.5, 2.0}) {
    CHECK(pass_seconds(equal(6, 2.0, 1.5, 1.0), 1, k) >= pass_seconds(equal(6, 2.0, 1.5, 1.0), 1) - 1e-12);
  }
  CHECK(pass_seconds(equal(6, 2.0, 1.5, 1.0), 1, 0.0) == pass_seconds(equal(6, 2.0, 1.5, 1.0), 1));
}

TEST_CASE("ZeRO-3 with no communication is the sum of the modules") {
  CHECK(pass_seconds(equal(7, 2.0, 0.0, 0.0), 1) == doctest::Approx(14.0));
  CHECK(pass_seconds({}, 1) == 0);
}

TEST_CASE("TP overlap: c + (n - 1) max(c, g) + g - G exposed for n chunks") {
  // GEMM longer than the communication: one chunk of the communication shows.
  CHECK(tp_overlap_exposed_seconds(4.0, 8.0, 8) == doctest::Approx(0.5));
  // Communication longer: all that the GEMM cannot cover, plus one chunk of GEMM.
  CHECK(tp_overlap_exposed_seconds(8.0, 4.0, 4) == doctest::Approx(8.0 - 4.0 + 1.0));
  // Equal: one chunk.
  CHECK(tp_overlap_exposed_seconds(4.0, 4.0, 4) == doctest::Approx(1.0));
  // No chunks to pipeline, or nothing to hide behind: all of it.
  CHECK(tp_overlap_exposed_seconds(4.0, 8.0, 1) == doctest::Approx(4.0));
  CHECK(tp_overlap_exposed_seconds(4.0, 0.0, 8) == doctest::Approx(4.0));
  CHECK(tp_overlap_exposed_seconds(0.0, 8.0, 8) == 0);
  // Never more than without overlap while the GEMM keeps its speed.
  for (double g : {0.5, 1.0, 2.0, 16.0}) CHECK(tp_overlap_exposed_seconds(3.0, g, 8) <= 3.0 + 1e-12);
}

TEST_CASE("TP overlap is not free: the GEMM beside the collective runs on the SMs it leaves") {
  // H100: 132 SMs; the attention projection's reduce-scatter (NeMo's proj_fprop: pipeline, 4
  // splits, 24 SMs with an SM margin) slows its GEMM by 132 / 108.
  const double slow = tp_overlap_gemm_slowdown(132, 24);
  CHECK(slow == doctest::Approx(132.0 / 108.0));
  CHECK(tp_overlap_gemm_slowdown(0, 24) == 1);   // SM count unknown
  CHECK(tp_overlap_gemm_slowdown(132, 0) == 1);  // a copy-engine transfer holds none
  CHECK(tp_overlap_gemm_slowdown(16, 24) == 1);  // would leave no SM: not modelled as a slowdown
  // Hand count: GEMM 8, communication 4, 4 pieces: c = 1, g = 8 x 132/108 / 4 = 2.444;
  // elapsed = 1 + 3 x 2.444 + 2.444 = 10.78; exposed 2.78, more than the 0.5 + 1.5 hidden for free.
  const double g = 8.0 * slow / 4;
  CHECK(tp_overlap_exposed_seconds(4.0, 8.0, 4, slow) == doctest::Approx(1 + 3 * g + g - 8));
  // A short collective beside a long GEMM now costs more than it would exposed (the finding:
  // overlap turned on made recipes slower in fathom's model only when it was free).
  CHECK(tp_overlap_exposed_seconds(0.5, 40.0, 4, slow) > 0.5);
  // Bulk (chunks 0): the whole collective beside the whole GEMM.
  CHECK(tp_overlap_exposed_seconds(4.0, 8.0, 0, 1.0) == 0);
  CHECK(tp_overlap_exposed_seconds(10.0, 8.0, 0, 1.0) == doctest::Approx(2.0));
  CHECK(tp_overlap_exposed_seconds(1.0, 8.0, 0, 132.0 / 128) == doctest::Approx(8.0 * 132 / 128 - 8));
  // The methods: NeMo's H100 configuration by collective and GEMM.
  using fathom::coll::Op;
  CHECK(tp_overlap_method(Op::kReduceScatter, "attention_projection", 8).comm_sms == 24);
  CHECK(tp_overlap_method(Op::kReduceScatter, "mlp_down", 8).comm_sms == 16);
  CHECK(tp_overlap_method(Op::kReduceScatter, "mlp_down", 8).chunks == 4);
  CHECK(tp_overlap_method(Op::kAllGather, "qkv", 8).chunks == 8);
  CHECK(tp_overlap_method(Op::kReduceScatter, "qkv", 8).chunks == 0);
  CHECK(tp_overlap_method(Op::kAllReduce, "qkv", 8).chunks == 1);
}
