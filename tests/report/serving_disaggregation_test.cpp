// Disaggregated serving against colocated serving on the same GPUs (docs/inference.md,
// "Disaggregated prefill and decode"): the Azure conversation trace at four times its rate on
// sixteen H100s. Splitting the prompts off holds TPOT steady (decodes no longer wait behind
// prompt chunks), and more requests meet the SLO than on four colocated replicas.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "models/network/flow_transfer.hpp"
#include "report/inference/inference_report.hpp"
#include "tests/support/one_leaf_cluster.hpp"
#include "tests/support/temp_scenario.hpp"
#include "topologies/cluster.hpp"
#include "topologies/routing.hpp"

using namespace fathom;

namespace {

report::InferenceReport run(const std::string& example, const std::vector<std::string>& overrides = {}) {
  const auto s = scenario::load_scenario(std::string(FATHOM_SOURCE_DIR) + "/scenarios/examples/" + example, overrides);
  return report::evaluate_inference(s);
}

}  // namespace

TEST_CASE("disaggregated 3 prefill + 1 decode replicas beat 4 colocated ones on goodput, on 16 GPUs") {
  const report::InferenceReport split = run("llama3-70b-disaggregated.yaml");
  const report::InferenceReport together =
      run("llama3-70b-azure-conversation.yaml", {"workload.requests.speedup=4", "workload.serving.replicas=4"});
  CHECK(split.metrics.finished == 19366);
  CHECK(together.metrics.finished == 19366);
  CHECK(split.metrics.good_requests > together.metrics.good_requests);
  CHECK(split.metrics.tpot_s.p99 < together.metrics.tpot_s.p99);
  CHECK(split.metrics.tpot_s.p99 <= 0.050);
  // Every request's KV cache moved once; the decode replica prefilled nothing.
  CHECK(split.metrics.kv_transfer_s.count == 19366);
  const infer::ReplicaStats& decode = split.run.replicas[0];
  CHECK(decode.tokens == split.metrics.output_tokens - split.metrics.finished);
  CHECK(split.run.replicas.size() == 4);
  int placed = 0;
  for (const infer::RequestOutcome& o : split.run.requests) placed += o.replica == 0 && o.prefill_replica >= 1 ? 1 : 0;
  CHECK(placed == 19366);
}

namespace {

// `prefill` replicas of 4 GPUs on node 1 and one decode replica of 8 on node 0 (two DGX H100s),
// with `requests` prompts of 4,000 tokens at once.
scenario::Scenario handover(int requests, int prefill, const std::vector<std::string>& overrides = {}) {
  const std::string text = "seed: 1\n" + test::one_leaf_dgx_h100_cluster(2) +
                           "workload:\n"
                           "  kind: inference\n"
                           "  model: llama3.1-70b\n"
                           "  serving: {tp: 8, routing: least-outstanding}\n"
                           "  disaggregation: {prefill_replicas: " +
                           std::to_string(prefill) +
                           ", prefill_tp: 4}\n"
                           "  requests: {arrival: all-at-once, count: " +
                           std::to_string(requests) + ", prompt_tokens: 4000, output_tokens: 8}\n";
  return scenario::load_scenario(test::write_temp_scenario("fathom-kv-flows", "handover.yaml", text), overrides);
}

}  // namespace

TEST_CASE("the KV cache moves as flows: alone, two route latencies and the bytes at the route's bottleneck") {
  // The decode replica fills node 0 (tp 8); the prefill replica's four GPUs sit on node 1, so
  // each of its GPUs sends a quarter of the bytes over its own NIC and the fabric.
  const scenario::Scenario s = handover(1, 1);
  const report::InferenceReport r = report::evaluate_inference(s);
  const infer::RequestOutcome& o = r.run.requests[0];
  const scenario::InferenceWorkload& w = s.inference;
  REQUIRE(w.node_of == std::vector<std::int32_t>{0, 1});
  const double bytes = 2.0 * w.model.layers * w.model.kv_heads * train::attention_head_dim(w.model) * 2.0 * 4000;
  // The routes, as the report opens them: the slowest link of any flow, the longest latency.
  const topo::Topology topology = topo::build_cluster(s.cluster);
  topo::Router router(topology);
  double slowest = 1e300;
  sim::SimTime latency;
  std::uint64_t flow = 0;
  for (int k = 0; k < 4; ++k) {
    const auto [dst_node, dst_gpu] = scenario::replica_gpu(w, 0, k, 8);
    const auto [src_node, src_gpu] = scenario::replica_gpu(w, 1, k, 8);
    CHECK(src_node == 1);
    CHECK(dst_node == 0);
    topo::VertexId src = 0, dst = 0;
    for (topo::VertexId v = 0; v < topology.vertices().size(); ++v) {
      const topo::Vertex& x = topology.vertex(v);
      if (x.kind != topo::VertexKind::kGpu) continue;
      if (x.name == "n1.gpu" + std::to_string(src_gpu)) src = v;
      if (x.name == "n0.gpu" + std::to_string(dst_gpu)) dst = v;
    }
    const net::RoutedFlow f = net::route_one(topology, router, src, dst, net::flow_hash(s.seed, flow++));
    for (net::LinkId l : f.route) slowest = std::min(slowest, topology.link(l).bytes_per_s);
    latency = std::max(latency, f.latency);
  }
  // The first byte waits the connection's latency, the last arrives at the slowest link's rate
  // (the flows do not share a link), and the router hears of it one latency later.
  const double expected = 2 * latency.to_seconds() + bytes / 4 / slowest;
  CHECK((o.kv_arrival - o.first_token).to_seconds() == doctest::Approx(expected).epsilon(1e-6));
  // Two prefill replicas (GPUs 0-3 and 4-7 of node 1), a prompt each: both transfers leave at
  // once and end on the same four GPUs of node 0, whose links they share half and half (max-min):
  // each takes twice one transfer's time.
  const report::InferenceReport two = report::evaluate_inference(handover(2, 2));
  const auto& a = two.run.requests[0];
  const auto& b = two.run.requests[1];
  REQUIRE(a.prefill_replica != b.prefill_replica);
  REQUIRE(a.first_token == b.first_token);
  CHECK((a.kv_arrival - a.first_token).to_seconds() ==
        doctest::Approx(2 * latency.to_seconds() + 2 * bytes / 4 / slowest).epsilon(1e-6));
  // The fabric runs in the router's group: with a dispatch delay (the replicas' lookahead), the
  // same outcomes on one thread and on the parallel scheduler's two.
  const std::vector<std::string> delayed = {"workload.serving.dispatch_delay=100us"};
  report::InferenceOptions threads;
  threads.threads = 2;
  const report::InferenceReport serial = report::evaluate_inference(handover(2, 2, delayed));
  const report::InferenceReport parallel = report::evaluate_inference(handover(2, 2, delayed), threads);
  CHECK(parallel.run.fingerprint == serial.run.fingerprint);
  CHECK(parallel.run.requests[0].kv_arrival == serial.run.requests[0].kv_arrival);
  CHECK(serial.run.requests[0].kv_arrival > a.kv_arrival);  // the delays: to the router and back
  CHECK(a.kv_arrival == b.kv_arrival);
}
