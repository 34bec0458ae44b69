// `workload: {kind: inference}`: the serving keys, generated and traced requests, the SLO, the
// Azure trace reader, and every mistake located at its key or at the trace's line.
#include "scenarios/inference_workload.hpp"

#include <doctest/doctest.h>

#include <string>

#include "scenarios/azure_llm_reader.hpp"
#include "tests/scenarios/scenario_files.hpp"

using namespace fathom;
using fathom::test::load_error;
using fathom::test::write_scratch_file;

namespace {

const std::string kConversation =
    std::string(FATHOM_SOURCE_DIR) + "/data/traces/azure-llm-inference-2023/AzureLLMInferenceTrace_conv.csv";

// One or `nodes` DGX H100s serving `model` with the serving keys `serving` and the requests
// `requests` (each a flow mapping's contents), then `rest`.
std::string scenario_text(const std::string& serving, const std::string& requests, const std::string& rest = "",
                          const std::string& model = "llama3.1-8b", int nodes = 1) {
  return "cluster:\n"
         "  nodes: " +
         std::to_string(nodes) +
         "\n"
         "  node: dgx-h100\n"
         "  fabric:\n"
         "    kind: fat-tree\n"
         "    tiers: 2\n"
         "    hosts_per_leaf: 64\n"
         "    leaves: 1\n"
         "    spines: 1\n"
         "    links:\n"
         "      - {bandwidth: 400Gbps, latency: 1us}\n"
         "      - {bandwidth: 400Gbps, latency: 1us}\n"
         "workload:\n"
         "  kind: inference\n"
         "  model: " +
         model + "\n  serving: {" + serving + "}\n  requests: {" + requests + "}\n" + rest;
}

const std::string kPoisson = "rate: 4, count: 100, prompt_tokens: 467, output_tokens: 256";

scenario::Scenario load(const std::string& text) {
  return scenario::load_scenario(write_scratch_file("serving.yaml", text));
}

}  // namespace

TEST_CASE("inference workload: defaults, generated requests, the SLO and the KV budget") {
  const scenario::Scenario s = load(scenario_text("", kPoisson, "  slo: {ttft: 500ms, tpot: 50ms}\n"));
  CHECK(s.workload == scenario::WorkloadKind::kInference);
  const scenario::InferenceWorkload& w = s.inference;
  CHECK(w.model.name == "llama3.1-8b");
  CHECK(w.serving.tp == 1);
  CHECK(w.serving.max_seqs == 256);
  CHECK(w.serving.max_batched_tokens == 8192);
  CHECK(w.requests.size() == 100);
  CHECK(w.requests.front().prompt == 467);
  CHECK(w.requests.back().output == 256);
  CHECK(w.slo.ttft_s == doctest::Approx(0.5));
  CHECK(w.slo.tpot_s == doctest::Approx(0.05));
  // 8.03e9 BF16 parameters (16.06 GB, 14.96 GiB) on one GPU; 90% of 80 GiB less the 2 GiB reserve.
  CHECK(w.budget.weight_bytes / (1u << 30) == doctest::Approx(14.96).epsilon(0.002));
  CHECK(w.budget.usable_bytes == doctest::Approx(0.9 * 80 * (1u << 30) - 2.0 * (1u << 30)));
  // Llama 3.1 8B: 32 layers x 8 KV heads x 128 x 2 (K, V) x 2 bytes = 128 KiB a token.
  CHECK(w.budget.bytes_per_token == doctest::Approx(131072));
  CHECK(w.budget.blocks == static_cast<std::int64_t>(w.budget.kv_bytes / (131072.0 * 16)));
  // The same seed draws the same requests; another seed others.
  const scenario::Scenario gamma =
      load(scenario_text("",
                         "arrival: gamma, cv: 4, rate: 4, count: 50, prompt_tokens: {distribution: lognormal, "
                         "median: 400, sigma: 1}, output_tokens: 100"));
  const scenario::Scenario again =
      load(scenario_text("",
                         "arrival: gamma, cv: 4, rate: 4, count: 50, prompt_tokens: {distribution: lognormal, "
                         "median: 400, sigma: 1}, output_tokens: 100"));
  CHECK(gamma.inference.requests.size() == 50);
  bool same = true;
  for (std::size_t i = 0; i < 50; ++i) {
    same = same && gamma.inference.requests[i].arrival == again.inference.requests[i].arrival &&
           gamma.inference.requests[i].prompt == again.inference.requests[i].prompt;
  }
  CHECK(same);
}

TEST_CASE("inference workload: the Azure conversation trace, a window, a speedup") {
  const scenario::Scenario all = load(scenario_text("tp: 4", "trace: " + kConversation, "", "llama3.1-70b"));
  const scenario::InferenceWorkload& w = all.inference;
  CHECK(w.source == scenario::RequestSource::kAzureLlm);
  CHECK(w.trace_requests == 19366);  // SOURCES.md: 19,366 requests (the file's rows less its header)
  CHECK(w.requests.size() == 19366);
  CHECK(w.requests.front().arrival == sim::SimTime::zero());
  CHECK(w.requests.front().prompt == 374);  // the first row: 2023-11-16 18:15:46.6805900,374,44
  CHECK(w.requests.front().output == 44);
  // The second row, 18:15:50.9951690: 4.314579 s later.
  CHECK(w.requests[1].arrival == sim::SimTime::from_ns(4'314'579'000));
  // The last row, 19:14:08.4025270, 3,501.7219370 s after the first.
  CHECK(w.requests.back().arrival == sim::SimTime::from_ns(3'501'721'937'000));

  const scenario::Scenario fast =
      load(scenario_text("tp: 4", "trace: " + kConversation + ", speedup: 10, start: 10min, length: 5min, limit: 100",
                         "", "llama3.1-70b"));
  CHECK(fast.inference.requests.size() == 100);
  CHECK(fast.inference.requests.front().arrival == sim::SimTime::zero());
  CHECK(fast.inference.request_lines.front() > 2);
}

TEST_CASE("inference workload: each mistake is located at its key") {
  struct Case {
    std::string serving, requests, rest, model;
    std::string key, expected_part;
  };
  const std::string m8 = "llama3.1-8b";
  const Case cases[] = {
      {"", kPoisson, "  slo: {tpot: 50}\n", m8, "workload.slo.tpot", "duration"},
      {"tp: 3", kPoisson, "", m8, "workload.serving.tp", "divisor"},
      {"tp: 16", kPoisson, "", m8, "workload.serving.tp", "at most a node's 8 GPUs"},
      {"replicas: 9", kPoisson, "", m8, "workload.serving.replicas", "at most the cluster's 8 replicas"},
      {"tp: 1", kPoisson, "", "llama3.1-70b", "workload.serving.tp", "leave room for a KV cache"},
      {"", "rate: 4, count: 10, prompt_tokens: 900000, output_tokens: 10", "", m8, "workload.requests.prompt_tokens",
       "fit one replica's KV cache"},
      {"chunked_prefill: false, max_batched_tokens: 512", kPoisson, "", m8, "workload.serving.max_batched_tokens",
       "without chunked prefill"},
      {"chunked_prefill: false, kv_reservation: full, max_batched_tokens: 400", kPoisson, "", m8,
       "workload.serving.max_batched_tokens", "the longest prompt's 467 tokens"},
      {"kv_reservation: all", kPoisson, "", m8, "workload.serving.kv_reservation", "on-demand"},
      {"tp: 2, pp: 3", kPoisson, "", m8, "workload.serving.pp", "divide a node's 8"},
      {"pp: 33", kPoisson, "", m8, "workload.serving.pp", "at most the model's 32 layers"},
      {"tp: 8, pp: 2", kPoisson, "", m8, "workload.serving.replicas", "at most the cluster's 0 replicas of 16 GPUs"},
      {"prefill_batching: interleaved", kPoisson, "", m8, "workload.serving.prefill_batching", "separate"},
      {"kv_free_fraction: 1.5", kPoisson, "", m8, "workload.serving.kv_free_fraction", ""},
      {"routing: random", kPoisson, "", m8, "workload.serving.routing", "round-robin"},
      {"", "rate: 0, count: 10, prompt_tokens: 10, output_tokens: 10", "", m8, "workload.requests.rate", "positive"},
      {"", "rate: 1e-30, count: 10, prompt_tokens: 10, output_tokens: 10", "", m8, "workload.requests.rate", "clock"},
      {"", "rate: 1, count: 1e9, prompt_tokens: 10, output_tokens: 10", "", m8, "workload.requests.count", "1e8"},
      {"", "arrival: all-at-once, rate: 4, count: 10, prompt_tokens: 10, output_tokens: 10", "", m8,
       "workload.requests.rate", "only with an arrival process"},
      {"", "trace: " + kConversation + ", rate: 4", "", m8, "workload.requests.rate", "only without a trace"},
      {"", "trace: " + kConversation + ", start: 2h", "", m8, "workload.requests.trace", "at least one request"},
      {"", "trace: /no/such/trace.csv", "", m8, "workload.requests.trace", "Azure LLM inference trace"},
      {"", kPoisson, "expect:\n  mfu: \">= 0.4\"\n", m8, "expect.mfu", "p99_ttft"},
      {"weights: int4", kPoisson, "", m8, "workload.serving.weights", "bf16"},
      {"replicas: 2", kPoisson, "  autoscaler: {min_replicas: 4, max_replicas: 2}\n", m8,
       "workload.autoscaler.max_replicas", "at least min_replicas"},
      {"replicas: 2", kPoisson, "  autoscaler: {max_replicas: 9}\n", m8, "workload.autoscaler.max_replicas",
       "at most the cluster's 8"},
      {"replicas: 1", kPoisson, "  autoscaler: {min_replicas: 2, max_replicas: 4}\n", m8,
       "workload.autoscaler.min_replicas", "serving.replicas"},
      {"", kPoisson, "  autoscaler: {max_replicas: 4, model_load: s3}\n", m8, "workload.autoscaler.model_load",
       "none is defined"},
      {"", kPoisson, "  autoscaler: {max_replicas: 4, metric: latency}\n", m8, "workload.autoscaler.metric",
       "utilization"},
      {"", kPoisson, "  autoscaler: {max_replicas: 4, interval: 0s}\n", m8, "workload.autoscaler.interval", ""},
      {"", kPoisson, "  autoscaler: {max_replicas: 4, metric: outstanding}\n", m8, "workload.autoscaler.target",
       "requests per replica"},
      {"replicas: 4", kPoisson, "  disaggregation: {prefill_replicas: 5}\n", m8,
       "workload.disaggregation.prefill_replicas", "fits the nodes"},
      {"", kPoisson, "  disaggregation: {prefill_replicas: 1, prefill_tp: 3}\n", m8,
       "workload.disaggregation.prefill_tp", "divisor"},
      {"", kPoisson, "  disaggregation: {prefill_tp: 2}\n", m8, "workload.disaggregation.prefill_replicas", ""},
  };
  for (const Case& c : cases) {
    CAPTURE(c.serving + " | " + c.requests + " | " + c.rest);
    const auto e = load_error(scenario_text(c.serving, c.requests, c.rest, c.model));
    CHECK(e.key_path() == c.key);
    CHECK(e.line() > 0);
    CHECK(std::string(e.what()).find(c.expected_part) != std::string::npos);
  }
  // Never preempted, a request's prompt is all one pass takes of it: a budget of the longest prompt
  // loads with full reservation, where on demand it must hold prompt and output (a preempted
  // request is processed again whole).
  const std::string whole = "chunked_prefill: false, max_batched_tokens: 467";
  CHECK(load(scenario_text(whole + ", kv_reservation: full", kPoisson)).inference.serving.max_batched_tokens == 467);
  CHECK(load_error(scenario_text(whole, kPoisson)).key_path() == "workload.serving.max_batched_tokens");
  // A pipeline across whole nodes: two replicas of tp 8 x pp 2 on four nodes, each from its first.
  const auto pipelined = load(scenario_text("tp: 8, pp: 2, replicas: 2", kPoisson, "", "llama3.1-70b", 4)).inference;
  CHECK(pipelined.node_of == std::vector<std::int32_t>{0, 2});
  // Its GPUs hold half the layers: half the weights' layer shards, twice the tokens of cache.
  const auto flat = load(scenario_text("tp: 8", kPoisson, "", "llama3.1-70b")).inference.budget;
  CHECK(pipelined.budget.bytes_per_token == doctest::Approx(flat.bytes_per_token / 2));
  CHECK(pipelined.budget.weight_bytes < 0.6 * flat.weight_bytes);
  // TensorRT-LLM's sizing: the cache is the share of what the weights and activations leave.
  const auto trt = load(scenario_text("kv_free_fraction: 0.5", kPoisson)).inference.budget;
  const auto full = load(scenario_text("kv_free_fraction: 1", kPoisson)).inference.budget;
  CHECK(trt.kv_bytes == doctest::Approx(0.5 * full.kv_bytes));
  CHECK(full.kv_bytes == doctest::Approx(full.usable_bytes - full.weight_bytes - full.activation_bytes));
  // Training criteria belong to training: an inference one in a training scenario is refused too.
  const auto e = load_error(
      "cluster: {nodes: 1, node: dgx-h100, fabric: {kind: fat-tree, tiers: 2, hosts_per_leaf: 8, leaves: 1, spines: 1, "
      "links: [{bandwidth: 400Gbps, latency: 1us}, {bandwidth: 400Gbps, latency: 1us}]}}\n"
      "workload: {kind: training, model: llama3-8b, global_batch: 8, sequence: 2048}\n"
      "expect: {p99_ttft: \"<= 1s\"}\n");
  CHECK(e.key_path() == "expect.p99_ttft");
}

TEST_CASE("Azure LLM trace reader: timestamps to the nanosecond, rows located") {
  const auto t = scenario::parse_azure_llm("t.csv",
                                           "TIMESTAMP,ContextTokens,GeneratedTokens\n"
                                           "2023-12-31 23:59:59.9999999,10,2\n"
                                           "2024-01-01 00:00:00.5,20,3\n"
                                           "2024-03-01 00:00:00,30,4\n");
  REQUIRE(t.requests.size() == 3);
  CHECK(t.requests[1].arrival == sim::SimTime::from_ns(500'000'100));
  // 2024 is a leap year: 1 Jan to 1 Mar is 60 days.
  CHECK(t.requests[2].arrival == sim::SimTime::from_ns(60LL * 86400 * 1'000'000'000 + 100));
  CHECK(t.lines == std::vector<int>{2, 3, 4});
  struct Bad {
    std::string row;
    std::string part;
  };
  for (const Bad& b : {Bad{"2023-11-16 18:15:46,0,4", "ContextTokens"}, Bad{"2023-11-16 18:15:46,4,0", "Generated"},
                       Bad{"2023-11-16T18:15:46,4,4", "TIMESTAMP"}, Bad{"2023-13-16 18:15:46,4,4", "TIMESTAMP"},
                       Bad{"2023-11-16 18:15:46.,4,4", "TIMESTAMP"}, Bad{"2023-11-16 18:15:45,4,4", "time order"}}) {
    CAPTURE(b.row);
    try {
      scenario::parse_azure_llm("t.csv",
                                "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46,5,5\n" + b.row + "\n");
      FAIL("accepted");
    } catch (const scenario::ScenarioError& e) {
      CHECK(e.line() == 3);
      CHECK(std::string(e.what()).find(b.part) != std::string::npos);
    }
  }
}
