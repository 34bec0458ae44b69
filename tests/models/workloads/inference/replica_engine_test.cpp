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
