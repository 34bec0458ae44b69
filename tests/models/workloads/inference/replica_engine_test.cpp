// The replica engine's scheduler and KV cache, and the service around it: preemption when the
// cache fills, the batch and token limits, routing, and the same outcomes on any thread count.
#include "models/workloads/inference/replica_engine.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <vector>

#include "models/workloads/inference/service.hpp"
#include "models/workloads/inference/service_metrics.hpp"
#include "tests/models/workloads/inference/serving_fixtures.hpp"

using namespace fathom;

namespace {

infer::IterationModel model_of(const infer::ServingSpec& s) {
  return infer::IterationModel(s, test::small_model(), test::plain_accelerator(), nullptr);
}

std::vector<infer::Request> burst(int n, int prompt, int output) {
  return std::vector<infer::Request>(static_cast<std::size_t>(n), infer::Request{sim::SimTime::zero(), prompt, output});
}

}  // namespace

TEST_CASE("an iteration takes at most max_seqs sequences and max_batched_tokens tokens") {
  infer::ServingSpec s;
  s.max_seqs = 4;
  s.max_batched_tokens = 300;
  infer::ReplicaEngine engine(s, 100000, model_of(s));
  for (std::uint32_t i = 0; i < 10; ++i) engine.admit(i, 100, 8);
  // First iteration: three whole prompts (300 tokens), the fourth waits for budget.
  REQUIRE(engine.begin_iteration() > 0);
  CHECK(engine.work().tokens == 300);
  CHECK(engine.work().sequences == 3);
  CHECK(engine.work().logits == 3);
  infer::ReplicaEngine::Produced out;
  engine.end_iteration(out);
  CHECK(out.first_tokens.size() == 3);
  // Next: three decodes and the fourth prompt's first chunk of 297 tokens... capped at 100 (its
  // prompt), and no fifth sequence (max_seqs 4).
  REQUIRE(engine.begin_iteration() > 0);
  CHECK(engine.work().sequences == 4);
  CHECK(engine.work().tokens == 3 + 100);
  CHECK(engine.running() == 4);
  CHECK(engine.waiting() == 6);
}

TEST_CASE("without chunked prefill an iteration is whole prompts or decodes, prompts first") {
  infer::ServingSpec s;
  s.chunked_prefill = false;
  s.max_batched_tokens = 250;
  infer::ReplicaEngine engine(s, 100000, model_of(s));
  for (std::uint32_t i = 0; i < 3; ++i) engine.admit(i, 100, 4);
  infer::ReplicaEngine::Produced out;
  REQUIRE(engine.begin_iteration() > 0);
  CHECK(engine.work().tokens == 200);  // two prompts fit 250; the third does not
  engine.end_iteration(out);
  REQUIRE(engine.begin_iteration() > 0);
  CHECK(engine.work().tokens == 100);  // the third prompt alone: prompts first, decodes wait
  CHECK(engine.work().sequences == 1);
  engine.end_iteration(out);
  REQUIRE(engine.begin_iteration() > 0);
  CHECK(engine.work().tokens == 3);  // three decodes
}

TEST_CASE("a full cache preempts the latest admitted sequence, which is recomputed; every request finishes") {
  infer::ServingSpec s;
  s.block_tokens = 16;
  // 40 blocks = 640 tokens: eight requests of 64 + 64 tokens cannot all stay.
  const auto requests = burst(8, 64, 64);
  infer::ServiceSpec spec;
  spec.serving = s;
  spec.kv_blocks = 40;
  spec.record_iterations = 1'000'000;
  const infer::ServiceRun run = infer::run_service(requests, spec, model_of(s), 1);
  const infer::ServiceMetrics m = infer::summarize(requests, run, {});
  CHECK(m.finished == 8);
  CHECK(m.preemptions > 0);
  CHECK(run.replicas[0].peak_blocks <= 40);
  for (const auto& it : run.iterations) CHECK(it.used_blocks <= 40);
  // A preempted request generated no token twice: its output count of iterations with a token.
  std::int64_t preempted = 0;
  for (const auto& o : run.requests) preempted += o.preemptions;
  CHECK(preempted == m.preemptions);
  // The first request admitted is never the one preempted.
  CHECK(run.requests[0].preemptions == 0);
}

TEST_CASE(
    "preemption by swap keeps a sequence's progress: no token is processed twice, and the copies cost PCIe time") {
  const auto requests = burst(8, 64, 64);
  infer::ServiceSpec spec;
  spec.kv_blocks = 40;  // 640 tokens: eight requests of 64 + 63 cached tokens cannot all stay
  infer::ServiceSpec swap = spec;
  swap.serving.preemption = infer::Preemption::kSwap;
  swap.swap = {4096, 1e9, 1000};  // 4 KiB blocks at 1 GB/s, room for 1,000
  const infer::ServiceRun recompute_run = infer::run_service(requests, spec, model_of(spec.serving), 1);
  const infer::ServiceRun swap_run = infer::run_service(requests, swap, model_of(swap.serving), 1);
  const infer::ServiceMetrics r = infer::summarize(requests, recompute_run, {});
  const infer::ServiceMetrics w = infer::summarize(requests, swap_run, {});
  CHECK(r.finished == 8);
  CHECK(w.finished == 8);
  CHECK(r.preemptions > 0);
  CHECK(w.preemptions > 0);
  // Every token is processed exactly once with swap: each prompt, and each output token but the
  // last (which is sampled, never fed back); recompute processes some again.
  const std::int64_t once = 8 * (64 + 63);
  CHECK(swap_run.replicas[0].tokens == once);
  CHECK(recompute_run.replicas[0].tokens > once);
  // Every swapped-out block comes back in: the copies take 2 x blocks x 4096 B / 1 GB/s.
  CHECK(w.swapped_blocks > 0);
  CHECK(swap_run.replicas[0].time.swap == doctest::Approx(2.0 * w.swapped_blocks * 4096 / 1e9));
  // With no host memory for them, swap falls back to recompute.
  infer::ServiceSpec full = swap;
  full.swap.capacity_blocks = 0;
  const infer::ServiceRun full_run = infer::run_service(requests, full, model_of(full.serving), 1);
  CHECK(infer::summarize(requests, full_run, {}).swapped_blocks == 0);
  CHECK(full_run.replicas[0].tokens == recompute_run.replicas[0].tokens);
}

TEST_CASE("mixed whole prompts: the running sequences decode first, then whole prompts that fit the budget") {
  infer::ServingSpec s;
  s.chunked_prefill = false;
  s.prefill_batching = infer::PrefillBatching::kMixed;
  s.max_batched_tokens = 250;
  infer::ReplicaEngine engine(s, 100000, model_of(s));
  for (std::uint32_t i = 0; i < 4; ++i) engine.admit(i, 100, 4);
  infer::ReplicaEngine::Produced out;
  REQUIRE(engine.begin_iteration() > 0);
  CHECK(engine.work().tokens == 200);  // two whole prompts; the third does not fit 50 tokens
  engine.end_iteration(out);
  // Two decodes and two more whole prompts share one iteration: 2 + 200 of 250 tokens.
  REQUIRE(engine.begin_iteration() > 0);
  CHECK(engine.work().sequences == 4);
  CHECK(engine.work().tokens == 2 + 200);
  CHECK(engine.work().logits == 4);
  engine.end_iteration(out);
  CHECK(out.first_tokens.size() == 2);
  REQUIRE(engine.begin_iteration() > 0);
  CHECK(engine.work().tokens == 4);
}

TEST_CASE("full KV reservation admits a request only with blocks for its whole output, and never preempts") {
  // 40 blocks of 16 tokens; each request holds at most 64 + 63 tokens = 8 blocks: five at once.
  const auto requests = burst(8, 64, 64);
  infer::ServiceSpec spec;
  spec.kv_blocks = 40;
  spec.record_iterations = 1'000'000;
  spec.serving.kv_reservation = infer::KvReservation::kFull;
  const infer::ServiceRun run = infer::run_service(requests, spec, model_of(spec.serving), 1);
  const infer::ServiceMetrics m = infer::summarize(requests, run, {});
  CHECK(m.finished == 8);
  CHECK(m.preemptions == 0);
  std::int64_t most = 0;
  for (const auto& it : run.iterations) most = std::max<std::int64_t>(most, it.sequences);
  CHECK(most == 5);
  // Every token processed once: nothing is recomputed.
  CHECK(run.replicas[0].tokens == 8 * (64 + 63));
  // On demand, the same cache starts all eight and preempts when it fills.
  infer::ServiceSpec on_demand = spec;
  on_demand.serving.kv_reservation = infer::KvReservation::kOnDemand;
  const infer::ServiceRun greedy = infer::run_service(requests, on_demand, model_of(on_demand.serving), 1);
  std::int64_t greedy_most = 0;
  for (const auto& it : greedy.iterations) greedy_most = std::max<std::int64_t>(greedy_most, it.sequences);
  CHECK(greedy_most == 8);
  CHECK(infer::summarize(requests, greedy, {}).preemptions > 0);
}

TEST_CASE("batch-size tuning: TensorRT-LLM's table below 1,664 requests, multiples of 512 within 128 above") {
  CHECK(infer::batch_size_tuned(1) == 128);
  CHECK(infer::batch_size_tuned(143) == 128);
  CHECK(infer::batch_size_tuned(144) == 256);
  CHECK(infer::batch_size_tuned(671) == 512);
  CHECK(infer::batch_size_tuned(672) == 768);
  CHECK(infer::batch_size_tuned(1279) == 1024);
  CHECK(infer::batch_size_tuned(1663) == 1536);
  CHECK(infer::batch_size_tuned(1664) == 1664);  // 1,536 + 128: no longer within
  CHECK(infer::batch_size_tuned(2100) == 2048);
  CHECK(infer::batch_size_tuned(2176) == 2176);
  // On an engine: a cache of 82,800 blocks of 16 tokens holds 82800 / ceil(1100 / 16) = 1,200
  // requests of 100 + 1,000 tokens; tuned, the cap is 1,024 of max_seqs 2,048.
  infer::ServingSpec s;
  s.max_seqs = 2048;
  s.batch_size_tuning = true;
  s.kv_reservation = infer::KvReservation::kFull;
  const auto most_running = [&](const infer::ServingSpec& spec) {
    infer::ReplicaEngine engine(spec, 82800, model_of(spec));
    for (std::uint32_t i = 0; i < 3000; ++i) engine.admit(i, 100, 1000);
    infer::ReplicaEngine::Produced out;
    std::size_t most = 0;
    for (int k = 0; k < 50; ++k) {
      REQUIRE(engine.begin_iteration() > 0);
      engine.end_iteration(out);
      most = std::max(most, engine.running());
    }
    return most;
  };
  CHECK(most_running(s) == 1024);
  s.batch_size_tuning = false;
  // Every request the reservation admits: ceil(1099 / 16) = 69 blocks each.
  CHECK(most_running(s) == 82800 / 69);
}

TEST_CASE("a request the cache cannot hold stops the run with a model error, not a hang") {
  infer::ServingSpec s;
  infer::ServiceSpec spec;
  spec.serving = s;
  spec.kv_blocks = 2;  // 32 tokens
  const auto requests = burst(1, 100, 4);
  CHECK_THROWS_AS(infer::run_service(requests, spec, model_of(s), 1), sim::ModelError);
}

TEST_CASE("routing: round-robin deals requests in turn; least-outstanding evens out unequal requests") {
  infer::ServingSpec s;
  s.replicas = 3;
  infer::ServiceSpec spec;
  spec.serving = s;
  spec.kv_blocks = 100000;
  std::vector<infer::Request> requests;
  for (int i = 0; i < 30; ++i) {
    requests.push_back({sim::SimTime::from_ns(i * 1'000'000LL), 64, i % 3 == 0 ? 400 : 4});
  }
  const infer::ServiceRun rr = infer::run_service(requests, spec, model_of(s), 1);
  for (std::size_t i = 0; i < requests.size(); ++i) CHECK(rr.requests[i].replica == static_cast<int>(i % 3));
  spec.serving.routing = infer::Routing::kLeastOutstanding;
  const infer::ServiceRun lo = infer::run_service(requests, spec, model_of(spec.serving), 1);
  // Round-robin sends every long request to replica 0; least-outstanding spreads them.
  std::vector<int> long_on(3, 0);
  for (std::size_t i = 0; i < requests.size(); i += 3) ++long_on[static_cast<std::size_t>(lo.requests[i].replica)];
  CHECK(*std::max_element(long_on.begin(), long_on.end()) < 10);
  const auto e2e = [&](const infer::ServiceRun& r) { return infer::summarize(requests, r, {}).e2e_s.max; };
  CHECK(e2e(lo) < e2e(rr));
}

TEST_CASE("kv-aware routing sends a request where the unfinished requests hold the fewest prompt tokens") {
  infer::ServingSpec s;
  s.replicas = 2;
  s.routing = infer::Routing::kKvAware;
  infer::ServiceSpec spec;
  spec.serving = s;
  spec.kv_blocks = 100000;
  // A long prompt, then three short ones: least-outstanding would send the second short one to
  // replica 0 (one request each); kv-aware keeps the short ones off the long prompt's replica.
  const std::vector<infer::Request> requests{{sim::SimTime::zero(), 4000, 50},
                                             {sim::SimTime::zero(), 100, 50},
                                             {sim::SimTime::zero(), 100, 50},
                                             {sim::SimTime::zero(), 100, 50}};
  const infer::ServiceRun kv = infer::run_service(requests, spec, model_of(s), 1);
  CHECK(kv.requests[0].replica == 0);
  CHECK(kv.requests[1].replica == 1);
  CHECK(kv.requests[2].replica == 1);
  CHECK(kv.requests[3].replica == 1);
  spec.serving.routing = infer::Routing::kLeastOutstanding;
  const infer::ServiceRun lo = infer::run_service(requests, spec, model_of(spec.serving), 1);
  CHECK(lo.requests[2].replica == 0);
}

TEST_CASE("the same requests give the same outcomes on 1, 2 and 4 threads") {
  infer::ServingSpec s;
  s.replicas = 6;
  s.routing = infer::Routing::kLeastOutstanding;
  infer::ServiceSpec spec;
  spec.serving = s;
  spec.kv_blocks = 150;  // 2,400 tokens: the longest request (1,500) fits, the load does not
  spec.dispatch_delay = sim::SimTime::from_ns(100'000);
  infer::RequestSpec r;
  r.arrival = infer::ArrivalProcess::kGamma;
  r.rate = 400;
  r.cv = 3;
  r.count = 3000;
  r.prompt = {jobs::Distribution::Kind::kLogNormal, 300, 1, {}, {}};
  r.output = {jobs::Distribution::Kind::kLogNormal, 100, 1, {}, {}};
  auto requests = infer::generate_requests(r, 11);
  for (auto& q : requests) {
    q.prompt = std::min(q.prompt, 1000);
    q.output = std::min(q.output, 500);
  }
  const infer::ServiceRun one = infer::run_service(requests, spec, model_of(s), 3);
  for (unsigned threads : {2u, 4u}) {
    sim::RunOptions o;
    o.scheduler = sim::Scheduler::kParallel;
    o.threads = threads;
    const infer::ServiceRun many = infer::run_service(requests, spec, model_of(s), 3, o);
    CHECK(many.fingerprint == one.fingerprint);
    bool same = true;
    for (std::size_t i = 0; i < requests.size(); ++i) {
      same = same && many.requests[i].end == one.requests[i].end && many.requests[i].replica == one.requests[i].replica;
    }
    CHECK(same);
  }
  CHECK(infer::summarize(requests, one, {}).preemptions > 0);  // the cache was exercised
}

TEST_CASE("pipeline parallelism: stages' sends added to the pass, half the layers per GPU, one batch per engine") {
  infer::ServingSpec one;
  infer::ServingSpec two;
  two.pp = 2;
  const train::TransformerSpec model = test::small_model();
  // A virtual engine's iteration passes every stage: the same kernels as without a pipeline, plus
  // the sends between the stages, here 1 s per GB of activations.
  const infer::IterationModel flat(one, model, test::plain_accelerator(), nullptr);
  const infer::IterationModel staged(two, model, test::plain_accelerator(), nullptr,
                                     [](double bytes) { return bytes / 1e9; });
  const infer::IterationWork work{300, 3, 3, 300.0 * 100, 300};
  const infer::IterationTime a = flat.time(work);
  const infer::IterationTime b = staged.time(work);
  CHECK(b.gemm == a.gemm);
  CHECK(b.attention == a.attention);
  CHECK(b.pipeline == doctest::Approx(300.0 * model.hidden * 2 / 1e9));
  CHECK(b.total() == doctest::Approx(a.total() + b.pipeline));
  CHECK_THROWS_AS(infer::IterationModel(two, model, test::plain_accelerator(), nullptr), std::invalid_argument);
  // Each GPU holds its stage's layers: half the keys and values a token, half the layers' weights.
  const infer::KvBudget whole = infer::kv_budget(one, model, test::plain_accelerator());
  const infer::KvBudget half = infer::kv_budget(two, model, test::plain_accelerator());
  CHECK(half.bytes_per_token == doctest::Approx(whole.bytes_per_token / 2));
  CHECK(half.weight_bytes < whole.weight_bytes);
  // Two requests at once go to the two virtual engines, each alone in its batch: both get their
  // first token when one request alone would; without a pipeline the second waits for the first
  // one's iteration.
  const auto first_tokens = [&](const infer::ServingSpec& serving, const infer::IterationModel& m, int n) {
    infer::ServiceSpec spec;
    spec.serving = serving;
    spec.kv_blocks = 10000;
    const infer::ServiceRun run = infer::run_service(burst(n, 4000, 4), spec, m, 1);
    std::vector<std::int64_t> at;
    for (const auto& o : run.requests) at.push_back(o.first_token.ns());
    return at;
  };
  const auto alone = first_tokens(two, staged, 1);
  const auto pair = first_tokens(two, staged, 2);
  CHECK(pair[0] == alone[0]);
  CHECK(pair[1] == alone[0]);
  CHECK(first_tokens(one, flat, 2)[1] > first_tokens(one, flat, 1)[0]);
}
