// The training-step model end to end on small clusters: a one-GPU step is the sum of its
// kernels; simulating replica 0 equals simulating every replica; the data-parallel closed form
// equals running the hierarchical all-reduce DAGs of every group over the flow network; a
// strategy that does not fit is reported, not simulated; and the same inputs give the same
// fingerprint.
#include "models/workloads/training/step_model.hpp"

#include <doctest/doctest.h>

#include "models/collectives/collective_timer.hpp"
#include "models/compute/roofline.hpp"
#include "models/workloads/training/layer_work.hpp"
#include "models/workloads/training/rank_mapping.hpp"
#include "models/workloads/training/step_bound.hpp"
#include "models/workloads/training/step_comms.hpp"
#include "models/workloads/training/tp_overlap.hpp"
#include "tests/models/collectives/dgx_cluster.hpp"

using namespace fathom;
using namespace fathom::train;

namespace {

hw::AcceleratorSpec h100() {
  hw::AcceleratorSpec a;
  a.name = "test-h100";
  a.peak_flops = {67e12, 494e12, 989e12, 1979e12};
  a.hbm_bytes = 80e9;
  a.hbm_bytes_per_s = 3.35e12;
  a.efficiency.gemm_max = 0.8;
  a.efficiency.kernel_overhead_s = 5e-6;
  a.efficiency.attention = 0.5;
  a.efficiency.hbm = 0.85;
  return a;
}

TransformerSpec small_model() {
  TransformerSpec m;
  m.name = "small";
  m.layers = 8;
  m.hidden = 2048;
  m.ffn_hidden = 8192;
  m.heads = 16;
  m.kv_heads = 4;
  m.vocab = 32000;
  m.max_sequence = 4096;
  m.mlp = MlpKind::kSwiGlu;
  m.position = PositionKind::kRotary;
  return m;
}

TrainingSpec spec_for(int gpus, int tp, int pp, int batch) {
  TrainingSpec s;
  s.model = small_model();
  s.gpus = gpus;
  s.parallel.tp = tp;
  s.parallel.pp = pp;
  s.parallel.dp = gpus / (tp * pp);
  s.parallel.sequence_parallel = tp > 1;
  s.sequence = 2048;
  s.global_batch = batch;
  s.micro_batch = 1;
  return s;
}

double phase_seconds(const Phase& p, const hw::AcceleratorSpec& a) {
  double t = 0;
  for (const auto& k : p.kernels) t += compute::kernel_seconds(a, hw::Precision::kBf16, k);
  return t;
}

}  // namespace

TEST_CASE("one GPU: the step is every micro-batch's kernels plus the optimizer, to the nanosecond") {
  const auto cluster = coll::testing::dgx_spec(1, false);
  TrainingSpec s = spec_for(1, 1, 1, 4);
  const auto a = h100();
  const TrainingResult r = simulate_training_step(s, a, cluster, {}, 1);
  REQUIRE(r.simulated);
  const LayerWork layer = transformer_layer_work(s);
  const LayerWork emb = embedding_work(s);
  const LayerWork out = output_layer_work(s);
  const double forward =
      s.model.layers * phase_seconds(layer.forward, a) + phase_seconds(emb.forward, a) + phase_seconds(out.forward, a);
  const double backward = s.model.layers * (phase_seconds(layer.backward, a) + phase_seconds(layer.recompute, a)) +
                          phase_seconds(emb.backward, a) + phase_seconds(out.backward, a);
  const double pass_ns = std::round(forward * 1e9) + std::round(backward * 1e9);
  const double expected = (4 * pass_ns + std::round(r.breakdown.optimizer * 1e9)) * 1e-9;
  CHECK(r.step_seconds == doctest::Approx(expected).epsilon(1e-9));
  CHECK(r.breakdown.tp == 0);
  CHECK(r.breakdown.bubble == doctest::Approx(0).epsilon(1e-12));
  CHECK(r.breakdown.total() == doctest::Approx(r.step_seconds).epsilon(1e-9));
}

TEST_CASE("the step's lower bound: its kernels alone on one GPU, below every simulated step") {
  const auto a = h100();
  {
    // One GPU: the step is the bound's kernels plus the optimizer (the test above).
    const auto cluster = coll::testing::dgx_spec(1, false);
    const TrainingSpec s = spec_for(1, 1, 1, 4);
    const TrainingResult r = simulate_training_step(s, a, cluster, {}, 1);
    CHECK(step_lower_bound_seconds(s, a) == doctest::Approx(r.step_seconds - r.breakdown.optimizer).epsilon(1e-6));
  }
  // 32 GPUs: every strategy's bound at most its step, and within a factor of it where compute
  // dominates.
  const auto cluster = coll::testing::dgx_spec(4, true);
  int checked = 0;
  for (int tp : {1, 2, 8}) {
    for (int pp : {1, 2, 4}) {
      for (int v : {1, 2}) {
        for (auto recompute : {Recompute::kSelective, Recompute::kFull}) {
          for (int zero : {1, 3}) {
            if (v > 1 && pp == 1) continue;
            TrainingSpec s = spec_for(32, tp, pp, 64);
            s.parallel.virtual_stages = v;
            if (v > 1) s.parallel.schedule = Schedule::kInterleaved;
            s.recompute = recompute;
            s.parallel.zero_stage = zero;
            CAPTURE(tp);
            CAPTURE(pp);
            CAPTURE(v);
            CAPTURE(zero);
            const TrainingResult r = simulate_training_step(s, a, cluster, {}, 3);
            REQUIRE(r.simulated);
            const double bound = step_lower_bound_seconds(s, a);
            CHECK(bound <= r.step_seconds);
            CHECK(bound >= r.breakdown.compute * 0.999);  // the critical stage's kernels count in it
            ++checked;
          }
        }
      }
    }
  }
  CHECK(checked == 60);
}

TEST_CASE("replica 0 stands for all: simulating every replica gives the same step") {
  // 4 nodes: TP 4 and PP 2 inside a node, 4 replicas; then PP across nodes (order tp, dp, pp).
  const auto cluster = coll::testing::dgx_spec(4, false);
  for (bool pp_outer : {false, true}) {
    CAPTURE(pp_outer);
    TrainingSpec s = spec_for(32, 4, 2, 64);
    if (pp_outer) s.parallel.order = {Dim::kTp, Dim::kCp, Dim::kEp, Dim::kDp, Dim::kPp};
    const TrainingResult one = simulate_training_step(s, h100(), cluster, {}, 7);
    const TrainingResult all = simulate_training_step(s, h100(), cluster, {}, 7, StepOptions{true});
    CHECK(one.step_seconds == all.step_seconds);
    CHECK(one.breakdown.compute == all.breakdown.compute);
    CHECK(one.breakdown.tp == all.breakdown.tp);
    CHECK(one.breakdown.dp == all.breakdown.dp);
    CHECK(one.breakdown.bubble == all.breakdown.bubble);
    CHECK(one.breakdown.total() == doctest::Approx(one.step_seconds).epsilon(1e-9));
  }
}

// Groups of GPUs named (node, gpu) on `cluster`, their all-reduce by the closed form and by
// running every group's DAG with `algorithm` together: the two must agree.
static void check_closed_form(const topo::ClusterSpec& cluster,
                              const std::vector<std::vector<std::pair<int, int>>>& members, coll::Algorithm algorithm) {
  coll::CollectiveParams params;
  StepComms comms(cluster, params, 3);
  coll::CollectiveTimer timer(cluster, params, 3);
  const topo::Topology& t = timer.topology();
  std::vector<std::vector<topo::VertexId>> groups;
  for (const auto& group : members) {
    std::vector<topo::VertexId> g;
    for (auto [node, gpu] : group) g.push_back(t.at("n" + std::to_string(node) + ".gpu" + std::to_string(gpu)));
    groups.push_back(g);
  }
  const int id = comms.add_groups(groups);
  for (double bytes : {64e6, 1e9}) {
    CAPTURE(bytes);
    const double closed = comms.data_parallel(coll::Op::kAllReduce, id, bytes);
    double slowest = 0;
    for (const auto& g : timer.time_concurrent(coll::Op::kAllReduce, groups, bytes, algorithm)) {
      slowest = std::max(slowest, g.seconds);
    }
    MESSAGE("closed form ", closed, " s, DAGs ", slowest, " s");
    CHECK(closed == doctest::Approx(slowest).epsilon(0.02));
  }
}

TEST_CASE("the data-parallel closed form equals the DAGs of every group run together") {
  SUBCASE("one rank per node: TP 8 fills a node, each rail is a group; the 8 groups share the uplinks") {
    std::vector<std::vector<std::pair<int, int>>> rails(8);
    for (int rail = 0; rail < 8; ++rail) {
      for (int node = 0; node < 4; ++node) rails[static_cast<std::size_t>(rail)].emplace_back(node, rail);
    }
    for (double leaf_up : {8 * 50e9, 2 * 50e9}) {
      CAPTURE(leaf_up);
      check_closed_form(coll::testing::dgx_spec(4, false, leaf_up), rails, coll::Algorithm::kRing);
    }
  }
  SUBCASE("two ranks per node: TP 4, each group holds GPUs j and j + 4 of every node (hierarchical)") {
    std::vector<std::vector<std::pair<int, int>>> lanes(4);
    for (int lane = 0; lane < 4; ++lane) {
      for (int node = 0; node < 4; ++node) {
        for (int gpu : {lane, lane + 4}) lanes[static_cast<std::size_t>(lane)].emplace_back(node, gpu);
      }
    }
    check_closed_form(coll::testing::dgx_spec(4, false), lanes, coll::Algorithm::kHierarchical);
  }
}

TEST_CASE("data-parallel reduce-scatter and all-gather: NCCL's flat ring over every rank, latency per hop") {
  // TP 4 on 4 nodes: each group holds GPUs j and j + 4 of every node, n = 8 ranks on m = 4 nodes.
  const auto cluster = coll::testing::dgx_spec(4, false);
  coll::CollectiveParams params;
  StepComms comms(cluster, params, 3);
  coll::CollectiveTimer timer(cluster, params, 3);
  const topo::Topology& t = timer.topology();
  std::vector<std::vector<topo::VertexId>> groups(4);
  for (int lane = 0; lane < 4; ++lane) {
    for (int node = 0; node < 4; ++node) {
      for (int gpu : {lane, lane + 4}) {
        groups[static_cast<std::size_t>(lane)].push_back(
            t.at("n" + std::to_string(node) + ".gpu" + std::to_string(gpu)));
      }
    }
  }
  const int id = comms.add_groups(groups);
  const int n = 8, m = 4, g = 2;
  // Latency by hand: n - m NVLink hops (GPU -> switch -> GPU, 2 x 500 ns) and m - 1 network hops
  // (PCIe 200, NIC-leaf 600, leaf-spine 700, spine-leaf 700, leaf-NIC 600, PCIe 200: 3,000 ns),
  // each with alpha; one launch. The bytes: (n - 1)/n of S / g through each NIC at the rate one
  // max-min round of the 4 groups' 2 rails gives (50e9 B/s x nic efficiency, uncontended here).
  const double latency =
      (n - m) * (params.alpha_ns + 1000) * 1e-9 + (m - 1) * (params.alpha_ns + 3000) * 1e-9 + params.launch_ns * 1e-9;
  const double rate = 50e9 * params.efficiency.nic;
  for (const coll::Op op : {coll::Op::kReduceScatter, coll::Op::kAllGather}) {
    for (double bytes : {1e3, 64e6}) {
      CAPTURE(bytes);
      const double expected = latency + bytes / g * (n - 1) / n / rate;
      CHECK(comms.data_parallel(op, id, bytes) == doctest::Approx(expected).epsilon(1e-6));
    }
    // Large messages: the rings' DAGs, every group together, agree (their latency is charged
    // differently, every step paying the slowest hop's, which 1 GB hides).
    double slowest = 0;
    for (const auto& r : timer.time_concurrent(op, groups, 1e9, coll::Algorithm::kRing)) {
      slowest = std::max(slowest, r.seconds);
    }
    CHECK(comms.data_parallel(op, id, 1e9) == doctest::Approx(slowest).epsilon(0.02));
  }
  // The latency grows with the ranks, not the nodes: twice the GPUs a node on the same 4 nodes.
  StepComms wide(cluster, params, 3);
  std::vector<std::vector<topo::VertexId>> pairs(2);
  for (int half = 0; half < 2; ++half) {
    for (int node = 0; node < 4; ++node) {
      for (int gpu = 0; gpu < 4; ++gpu) {
        pairs[static_cast<std::size_t>(half)].push_back(
            t.at("n" + std::to_string(node) + ".gpu" + std::to_string(half + 2 * gpu)));
      }
    }
  }
  const double wide_tiny = wide.data_parallel(coll::Op::kAllGather, wide.add_groups(pairs), 1e3);
  CHECK(wide_tiny - comms.data_parallel(coll::Op::kAllGather, id, 1e3) ==
        doctest::Approx(8 * (params.alpha_ns + 1000) * 1e-9).epsilon(1e-3));
}

TEST_CASE("a strategy that does not fit in memory is reported with its numbers and not simulated") {
  const auto cluster = coll::testing::dgx_spec(1, false);
  TrainingSpec s = spec_for(8, 1, 1, 64);
  s.model.layers = 200;
  s.model.hidden = 8192;
  s.model.ffn_hidden = 28672;
  s.model.heads = 64;
  s.model.kv_heads = 8;
  const TrainingResult r = simulate_training_step(s, h100(), cluster, {}, 1);
  CHECK_FALSE(r.simulated);
  CHECK_FALSE(r.memory.fits);
  CHECK(r.memory.peak_bytes > r.memory.capacity_bytes);
  CHECK(r.step_seconds == 0);
}

TEST_CASE("determinism: the same inputs give the same fingerprint and step") {
  const auto cluster = coll::testing::dgx_spec(4, true);
  TrainingSpec s = spec_for(32, 8, 2, 32);
  const TrainingResult a = simulate_training_step(s, h100(), cluster, {}, 11);
  const TrainingResult b = simulate_training_step(s, h100(), cluster, {}, 11);
  CHECK(a.fingerprint == b.fingerprint);
  CHECK(a.step_seconds == b.step_seconds);
  CHECK(a.fingerprint != 0);
}

TEST_CASE("a CommsCache gives every step the result a fresh StepComms gives, to the bit") {
  // Strategies on two clusters, interleaved so that each step finds the cache warm from another
  // strategy (capacity 2) or finds its cluster evicted (capacity 1).
  const topo::ClusterSpec clusters[] = {coll::testing::dgx_spec(4, true), coll::testing::dgx_spec(2, false)};
  struct Case {
    int cluster, tp, pp, zero;
  };
  const Case cases[] = {{0, 8, 2, 1}, {1, 4, 2, 1}, {0, 2, 4, 0}, {0, 8, 2, 3}, {1, 8, 1, 2}, {0, 8, 2, 1}};
  for (std::size_t capacity : {std::size_t{1}, std::size_t{2}}) {
    CommsCache cache(capacity);
    for (const Case& c : cases) {
      CAPTURE(capacity);
      CAPTURE(c.cluster);
      CAPTURE(c.tp);
      CAPTURE(c.pp);
      const int gpus = clusters[c.cluster].nodes * 8;
      TrainingSpec s = spec_for(gpus, c.tp, c.pp, 32);
      s.parallel.zero_stage = c.zero;
      StepOptions cached;
      cached.cache = &cache;
      const TrainingResult fresh = simulate_training_step(s, h100(), clusters[c.cluster], {}, 11);
      const TrainingResult reused = simulate_training_step(s, h100(), clusters[c.cluster], {}, 11, cached);
      REQUIRE(fresh.simulated);
      CHECK(reused.fingerprint == fresh.fingerprint);
      CHECK(reused.step_seconds == fresh.step_seconds);
      CHECK(reused.breakdown.total() == fresh.breakdown.total());
      REQUIRE(reused.links.size() == fresh.links.size());
      for (std::size_t l = 0; l < fresh.links.size(); ++l) {
        CHECK(reused.links[l].link == fresh.links[l].link);
        CHECK(reused.links[l].bytes == fresh.links[l].bytes);
      }
    }
    // Capacity 2 holds both clusters: built once each. Capacity 1 rebuilds on every switch (0, 1,
    // 0, 1, 0: five builds; the repeated 0 hits).
    CHECK(cache.builds() == (capacity == 2 ? 2u : 5u));
    CHECK(cache.hits() == std::size(cases) - cache.builds());
  }
}

TEST_CASE("tp_overlap: each tagged collective shows what its slowed GEMM cannot hide (closed form per call)") {
  const auto cluster = coll::testing::dgx_spec(1, false);
  TrainingSpec s = spec_for(8, 8, 1, 4);
  s.micro_batch = 2;
  s.global_batch = 8;
  const hw::AcceleratorSpec a = h100();
  const TrainingResult plain = simulate_training_step(s, a, cluster, {}, 1);
  s.parallel.tp_overlap = true;
  const TrainingResult overlapped = simulate_training_step(s, a, cluster, {}, 1);
  REQUIRE(plain.simulated);
  REQUIRE(overlapped.simulated);
  CHECK(overlapped.breakdown.compute == doctest::Approx(plain.breakdown.compute).epsilon(1e-6));  // whole-ns passes
  // What overlap saves: per layer and micro-batch, for every all-gather or reduce-scatter tagged
  // with a GEMM, its time less tp_overlap_exposed_seconds(time, the GEMM's kernels, 8).
  coll::CollectiveTimer timer(cluster, {}, 1);
  const auto ranks = coll::testing::gpus(timer.topology(), 8);
  const LayerWork layer = transformer_layer_work(s);
  double saved = 0;
  for (const Phase* phase : {&layer.forward, &layer.backward, &layer.recompute}) {
    for (const CommCall& c : phase->comms) {
      if (c.gemm.empty()) continue;
      double gemm = 0;
      for (const auto& k : phase->kernels) {
        if (k.name == c.gemm) gemm += compute::kernel_seconds(a, s.precision, k);
      }
      const double comm = timer.time(c.op, ranks, c.bytes).seconds;
      const TpOverlapMethod method = tp_overlap_method(c.op, c.gemm, 8);
      saved += comm - tp_overlap_exposed_seconds(comm, gemm, method.chunks,
                                                 tp_overlap_gemm_slowdown(a.compute_units, method.comm_sms));
    }
  }
  const double expected = saved * s.model.layers * s.micro_batches();
  CHECK(plain.breakdown.tp - overlapped.breakdown.tp == doctest::Approx(expected).epsilon(1e-6));
}

TEST_CASE("ZeRO-3: a run whose gathers outweigh its compute comes out communication-bound") {
  // One GPU per node (TP 1) so every gather crosses the NIC; NICs 10x slower make it worse in
  // proportion.
  TrainingSpec s = spec_for(32, 1, 1, 32);
  s.parallel.zero_stage = 3;
  s.recompute = Recompute::kFull;
  const hw::AcceleratorSpec a = h100();
  auto cluster_with = [](double nic) {
    auto c = coll::testing::dgx_spec(4, false);
    c.node.nic_bytes_per_s = nic;
    c.fabric.tier = {{nic, 600}, {8 * nic, 700}};
    return c;
  };
  const TrainingResult fast = simulate_training_step(s, a, cluster_with(50e9), {}, 1);
  const TrainingResult slow = simulate_training_step(s, a, cluster_with(5e9), {}, 1);
  REQUIRE(fast.simulated);
  REQUIRE(slow.simulated);
  CHECK(slow.breakdown.compute == doctest::Approx(fast.breakdown.compute).epsilon(1e-6));
  CHECK(slow.breakdown.dp > slow.breakdown.compute);
  // Bandwidth-bound: the exposed gathers grow about as the NIC slows (the first gather and
  // the latencies do not).
  CHECK(slow.breakdown.dp > 5 * fast.breakdown.dp);
  // Prefetching hides more than gathering on demand, never less.
  s.parallel.zero_prefetch = 0;
  const TrainingResult on_demand = simulate_training_step(s, a, cluster_with(50e9), {}, 1);
  CHECK(on_demand.breakdown.dp > fast.breakdown.dp);
}

TEST_CASE("all-gather context parallelism: K and V gathered in forward and backward, their gradients scattered") {
  const auto cluster = coll::testing::dgx_spec(1, false);
  TrainingSpec s = spec_for(8, 4, 1, 2);
  s.parallel.cp = 2;
  s.parallel.dp = 1;
  s.sequence = 8192;
  s.parallel.cp_comm = CpComm::kAllGather;
  const TrainingResult r = simulate_training_step(s, h100(), cluster, {}, 1);
  REQUIRE(r.simulated);
  // TP rank 0's CP group: GPUs 0 and 4 (placement tp, cp, ...). Per layer and micro-batch the
  // compute stream waits for two all-gathers and one reduce-scatter of K and V over the whole
  // sequence: 2 (K, V) x 2 bytes x 8192 tokens x 2 KV heads per TP rank x 128.
  coll::CollectiveTimer timer(cluster, {}, 1);
  const auto gpus = coll::testing::gpus(timer.topology(), 8);
  const std::vector<topo::VertexId> group{gpus[0], gpus[4]};
  const double bytes = 2 * 2 * 8192.0 * 1 * 128;  // kv_heads 4 / tp 4 = 1 head of 128 per rank
  const double per_layer = 2 * timer.time(coll::Op::kAllGather, group, bytes).seconds +
                           timer.time(coll::Op::kReduceScatter, group, bytes).seconds;
  CHECK(r.breakdown.cp == doctest::Approx(per_layer * s.model.layers * s.micro_batches()).epsilon(1e-6));
  // The ring passes the same keys around instead, hidden behind attention where it can be.
  s.parallel.cp_comm = CpComm::kRing;
  const TrainingResult ring = simulate_training_step(s, h100(), cluster, {}, 1);
  CHECK(ring.breakdown.cp < r.breakdown.cp);
  CHECK(ring.breakdown.compute == doctest::Approx(r.breakdown.compute).epsilon(1e-6));
}

TEST_CASE("the compute component split by kernel class sums to it; FP8 runs count their casts apart") {
  const auto cluster = coll::testing::dgx_spec(1, false);
  TrainingSpec s = spec_for(8, 8, 1, 4);
  s.micro_batch = 2;
  s.global_batch = 8;
  const hw::AcceleratorSpec a = h100();
  for (const hw::Precision precision : {hw::Precision::kBf16, hw::Precision::kFp8}) {
    s.precision = precision;
    const TrainingResult r = simulate_training_step(s, a, cluster, {}, 1);
    REQUIRE(r.simulated);
    const KernelClassSeconds& k = r.breakdown.kernels;
    CHECK(k.total() == doctest::Approx(r.breakdown.compute).epsilon(1e-12));
    CHECK(k.gemm > 0);
    CHECK(k.attention > 0);
    CHECK(k.memory > 0);
    CHECK((precision == hw::Precision::kFp8 ? k.fp8_casts > 0 : k.fp8_casts == 0));
    for (const auto& stage : r.stages) {
      CHECK(stage.breakdown.kernels.total() == doctest::Approx(stage.breakdown.compute).epsilon(1e-12));
    }
  }
}

TEST_CASE("stragglers: the step's compute waits for the slowest of its ranks, a part of its own") {
  const auto cluster = coll::testing::dgx_spec(2, false);
  const hw::AcceleratorSpec a = h100();
  TrainingSpec off = spec_for(16, 8, 2, 8);
  off.stragglers.enabled = false;
  const TrainingResult exact = simulate_training_step(off, a, cluster, {}, 1);
  TrainingSpec on = off;
  on.stragglers.enabled = true;
  on.stragglers.speed_spread = 0.03;
  on.stragglers.jitter = 0.04;
  const TrainingResult slowed = simulate_training_step(on, a, cluster, {}, 1);
  REQUIRE(exact.simulated);
  REQUIRE(slowed.simulated);
  CHECK(exact.breakdown.straggler == 0);
  // Every pass's compute takes 1 + 0.05 e_16 of its nominal time: the same kernels, and beside
  // them the wait for the slowest of the 16 ranks.
  const double factor = straggler_factor(on.stragglers, 16);
  CHECK(slowed.breakdown.compute == doctest::Approx(exact.breakdown.compute).epsilon(1e-6));
  CHECK(slowed.breakdown.straggler == doctest::Approx((factor - 1) * exact.breakdown.compute).epsilon(1e-6));
  CHECK(slowed.breakdown.total() == doctest::Approx(slowed.step_seconds).epsilon(1e-9));
  CHECK(slowed.step_seconds > exact.step_seconds + 0.9 * slowed.breakdown.straggler);
  // More ranks, longer waits: the same replica twice over (data parallelism 2) waits longer.
  TrainingSpec wider = on;
  wider.gpus = 32;
  wider.parallel.dp = 2;
  wider.global_batch = 16;
  const TrainingResult twice = simulate_training_step(wider, a, coll::testing::dgx_spec(4, false), {}, 1);
  REQUIRE(twice.simulated);
  CHECK(twice.breakdown.straggler / twice.breakdown.compute ==
        doctest::Approx(straggler_factor(on.stragglers, 32) - 1).epsilon(1e-6));
  CHECK(twice.breakdown.straggler / twice.breakdown.compute > slowed.breakdown.straggler / slowed.breakdown.compute);
}

TEST_CASE("overlapped gradient buckets take SMs from the passes they run beside, one per NCCL channel") {
  // 2 nodes, DP 16: the data-parallel ring leaves every node through its 8 NICs, 16 channels (two
  // per NIC), each one CTA on one SM; an H100-like 132 SMs. Every second a bucket runs beside a
  // pass costs the pass 16 / (132 - 16) of a second, and the stage's end moves by the sum.
  const auto cluster = coll::testing::dgx_spec(2, false);
  TrainingSpec s = spec_for(16, 1, 1, 64);
  s.parallel.overlap_grad_reduce = true;
  s.parallel.bucket_bytes = 20e6;  // several buckets, the first ones inside the last backward pass
  s.parallel.zero_stage = 0;       // all-reduced gradients: no parameter gather after the optimizer
  hw::AcceleratorSpec a = h100();
  a.compute_units = 132;
  const TrainingResult r = simulate_training_step(s, a, cluster, {}, 7);
  REQUIRE(r.simulated);
  const StageResult& stage = r.stages.at(0);
  REQUIRE(stage.dp_spans.size() > 1);
  double beside = 0;
  sim::SimTime last_bucket{};
  for (const auto& span : stage.dp_spans) {
    last_bucket = std::max(last_bucket, span.finish);
    for (const auto& pass : r.pipeline.stages.at(0)) {
      const sim::SimTime from = std::max(span.start, pass.start), to = std::min(span.finish, pass.finish);
      if (to > from) beside += (to - from).to_seconds();
    }
  }
  MESSAGE("buckets beside the passes " << beside * 1e3 << " ms, the passes' loss " << stage.dp_contention * 1e3
                                       << " ms");
  REQUIRE(beside > 0);
  CHECK(stage.dp_contention == doctest::Approx(beside * 16 / (132 - 16)).epsilon(1e-12));
  const double before = std::max(stage.pipeline_finish, last_bucket).to_seconds();
  CHECK(stage.optimizer_start.to_seconds() == doctest::Approx(before + stage.dp_contention).epsilon(1e-9));
  CHECK(r.breakdown.total() == doctest::Approx(r.step_seconds).epsilon(1e-9));
  // Buckets after the pipeline share nothing.
  s.parallel.overlap_grad_reduce = false;
  CHECK(simulate_training_step(s, a, cluster, {}, 7).stages.at(0).dp_contention == 0);
}

TEST_CASE("an overlapped parameter gather (ZeRO-1) waits where the first forward outruns it and takes SMs beside it") {
  // The gather after the optimizer runs at the next step's start, beside that step's passes
  // (this step's, in the steady state): 16 channels of 132 SMs, as for the buckets. Its wait: the
  // first forward pass cannot end before the parameters are there (one chunk: all of them). With
  // 2,048-token sequences the first pass outlasts the gather; with 64 it does not.
  const auto cluster = coll::testing::dgx_spec(2, false);
  for (int sequence : {2048, 64}) {
    CAPTURE(sequence);
    TrainingSpec s = spec_for(16, 1, 1, 64);
    s.sequence = sequence;
    s.parallel.zero_stage = 1;
    s.parallel.overlap_grad_reduce = false;  // no buckets beside the passes: the gather alone
    s.parallel.overlap_param_gather = true;
    hw::AcceleratorSpec a = h100();
    a.compute_units = 132;
    const TrainingResult r = simulate_training_step(s, a, cluster, {}, 7);
    REQUIRE(r.simulated);
    const StageResult& stage = r.stages.at(0);
    const auto& gather = stage.dp_spans.back();
    const sim::SimTime g = gather.finish - gather.start;
    REQUIRE(g > sim::SimTime{});
    const auto& passes = r.pipeline.stages.at(0);
    double beside = 0;
    for (const auto& pass : passes) {
      const sim::SimTime to = std::min(g, pass.finish);
      if (to > pass.start) beside += (to - pass.start).to_seconds();
    }
    const sim::SimTime first_finish = passes.front().finish;
    const double wait = g > first_finish ? (g - first_finish).to_seconds() : 0.0;
    MESSAGE("gather " << g.to_seconds() * 1e3 << " ms, beside the passes " << beside * 1e3 << " ms, wait " << wait * 1e3
                      << " ms, the passes' loss " << stage.dp_contention * 1e3 << " ms");
    CHECK((wait > 0) == (sequence == 64));
    REQUIRE(beside > 0);
    CHECK(stage.dp_contention == doctest::Approx(beside * 16 / (132 - 16)).epsilon(1e-12));
    CHECK((stage.finish - stage.optimizer_finish).to_seconds() ==
          doctest::Approx(wait + stage.dp_contention).epsilon(1e-6));
    CHECK(r.breakdown.total() == doctest::Approx(r.step_seconds).epsilon(1e-9));
    // Not overlapped: the whole gather is exposed and nothing runs beside it.
    s.parallel.overlap_param_gather = false;
    const TrainingResult exposed = simulate_training_step(s, a, cluster, {}, 7);
    CHECK(exposed.stages.at(0).dp_contention == 0);
    CHECK((exposed.stages.at(0).finish - exposed.stages.at(0).optimizer_finish) == g);
  }
}

TEST_CASE("overlapped pipeline sends take two SMs (NCCL's channels per network peer) from the passes beside them") {
  // PP 2 over 2 nodes: every send crosses the network on 2 channels; 132 SMs.
  const auto cluster = coll::testing::dgx_spec(2, false);
  TrainingSpec s = spec_for(16, 8, 2, 8);
  s.parallel.overlap_p2p = true;
  hw::AcceleratorSpec a = h100();
  a.compute_units = 132;
  const TrainingResult r = simulate_training_step(s, a, cluster, {}, 7);
  REQUIRE(r.simulated);
  for (int st = 0; st < 2; ++st) {
    CAPTURE(st);
    const StageResult& stage = r.stages.at(static_cast<std::size_t>(st));
    const auto& passes = r.pipeline.stages.at(static_cast<std::size_t>(st));
    double beside = 0;
    int sends = 0;
    for (const auto& pt : passes) {
      // Stage 0 sends after its forward passes, stage 1 after its backward ones.
      if (pt.pass.forward != (st == 0)) continue;
      ++sends;
      const sim::SimTime send = st == 0 ? stage.send_forward : stage.send_backward;
      for (const auto& other : passes) {
        const sim::SimTime from = std::max(pt.finish, other.start), to = std::min(pt.finish + send, other.finish);
        if (to > from) beside += (to - from).to_seconds();
      }
    }
    CHECK(sends == 8);
    CHECK((st == 0 ? stage.send_forward : stage.send_backward) > sim::SimTime{});
    MESSAGE("sends beside the passes " << beside * 1e3 << " ms, the passes' loss " << stage.pp_contention * 1e3
                                       << " ms");
    CHECK(stage.pp_contention == doctest::Approx(beside * 2 / (132 - 2)).epsilon(1e-12));
  }
  CHECK(r.stages.at(0).pp_contention > 0);
  CHECK(r.breakdown.total() == doctest::Approx(r.step_seconds).epsilon(1e-9));
  s.parallel.overlap_p2p = false;
  const TrainingResult waiting = simulate_training_step(s, a, cluster, {}, 7);
  CHECK(waiting.stages.at(0).pp_contention == 0);
  CHECK(waiting.stages.at(1).pp_contention == 0);
}
