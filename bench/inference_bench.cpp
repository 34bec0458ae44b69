// How the inference service's cost grows with the requests (docs/inference.md).
//
// 1. Growth: n Poisson requests (n from 125,000 to 1,000,000) to 64 replicas of Llama 3.1 8B, one
//    H100 each, prompts lognormal (median 512 tokens, sigma 0.8) and answers lognormal (median
//    128, sigma 0.8), both capped at 8,192, at 70% of the rate the replicas serve flat out. Each
//    request costs its iterations' share, so wall time / n should stay flat; the figure covers
//    loading (drawing the requests), the simulation and the summary.
// 2. The Azure conversation trace at ten times its rate on 64 replicas of Llama 3.1 70B at TP 4
//    (32 DGX H100): the whole of fathom's work for that scenario.
// 3. Training beside inference: the shipped autoscaled service alone
//    (scenarios/examples/llama3-8b-autoscaling.yaml, 43,200 requests over two hours) and the same
//    service beside two training jobs on one cluster (training-beside-inference.yaml: the jobs'
//    steps simulated, the claims, the preemptions and shrinks): what sharing the engine costs.
// Each case is timed `--repeats` times, interleaved, and the median kept.
//
//   build/bench/inference-bench --repeats 3
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "report/inference/inference_report.hpp"
#include "report/jobs/jobs_report.hpp"
#include "scenarios/scenario.hpp"

using namespace fathom;

namespace {

std::string cluster_text(int nodes) {
  return "cluster:\n  nodes: " + std::to_string(nodes) +
         "\n  node: dgx-h100\n  fabric:\n    kind: fat-tree\n    tiers: 2\n    hosts_per_leaf: 256\n"
         "    leaves: 1\n    spines: 1\n    links:\n      - {bandwidth: 400Gbps, latency: 1us}\n"
         "      - {bandwidth: 400Gbps, latency: 1us}\n";
}

std::string growth_text(std::int64_t n, double rate) {
  return cluster_text(8) +
         "workload:\n  kind: inference\n  model: llama3.1-8b\n  serving: {tp: 1, replicas: 64, routing: "
         "least-outstanding}\n  requests:\n    rate: " +
         std::to_string(rate) + "\n    count: " + std::to_string(n) +
         "\n    prompt_tokens: {distribution: lognormal, median: 512, sigma: 0.8}\n"
         "    output_tokens: {distribution: lognormal, median: 128, sigma: 0.8}\n";
}

struct Timed {
  double seconds = 0;
  report::InferenceReport report;
};

Timed time_scenario(const std::string& name, const std::string& text) {
  const auto start = std::chrono::steady_clock::now();
  scenario::Scenario s = scenario::load_scenario_text(name, text);
  // The lognormal's tail: cap the lengths as the text says (a scenario cannot cap a distribution).
  for (auto& q : s.inference.requests) {
    q.prompt = std::min(q.prompt, 8192);
    q.output = std::min(q.output, 8192);
  }
  Timed t;
  t.report = report::evaluate_inference(std::move(s));
  t.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return t;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("inference service cost against requests");
  int repeats = 3;
  app.add_option("--repeats", repeats, "timings per case (median kept)")->check(CLI::Range(1, 100));
  CLI11_PARSE(app, argc, argv);

  // The replicas' flat-out rate: 1,024 requests a replica at once (four times max_seqs), finished
  // requests over the run's duration; the growth runs offer 70% of it.
  const Timed probe = time_scenario("probe.yaml", growth_text(65536, 1e6));
  const double flat_out = static_cast<double>(probe.report.metrics.finished) / probe.report.metrics.duration_s;
  const double rate = 0.7 * flat_out;  // 70% of the 64 replicas' flat-out rate
  std::printf("probe: 65,536 requests at once on 64 replicas: %.1f requests/s flat out; offered %.1f requests/s\n\n",
              flat_out, rate);

  const std::vector<std::int64_t> sizes{125'000, 250'000, 500'000, 1'000'000};
  std::vector<std::vector<double>> seconds(sizes.size());
  std::vector<report::InferenceReport> last(sizes.size());
  for (int r = 0; r < repeats; ++r) {
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      Timed t = time_scenario("growth.yaml", growth_text(sizes[i], rate));
      seconds[i].push_back(t.seconds);
      last[i] = std::move(t.report);
    }
  }
  std::printf(
      "| requests | median wall s | ns per request | vs 125k | iterations | events | p99 TTFT s | p99 TPOT ms |\n");
  std::printf("|---|---|---|---|---|---|---|---|\n");
  const double base = median(seconds[0]) / static_cast<double>(sizes[0]);
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const double m = median(seconds[i]);
    std::int64_t iterations = 0;
    for (const auto& x : last[i].run.replicas) iterations += x.iterations;
    const double per = m / static_cast<double>(sizes[i]);
    std::printf("| %lld | %.3f | %.0f | %.2fx | %lld | %llu | %.3f | %.2f |\n", static_cast<long long>(sizes[i]), m,
                per * 1e9, per / base, static_cast<long long>(iterations),
                static_cast<unsigned long long>(last[i].run.events), last[i].metrics.ttft_s.p99,
                last[i].metrics.tpot_s.p99 * 1e3);
  }

  const std::string azure = cluster_text(32) +
                            "workload:\n  kind: inference\n  model: llama3.1-70b\n  serving: {tp: 4, replicas: 64, "
                            "routing: least-outstanding}\n  requests:\n    trace: " FATHOM_SOURCE_DIR
                            "/data/traces/azure-llm-inference-2023/AzureLLMInferenceTrace_conv.csv\n    speedup: 10\n";
  std::vector<double> azure_s;
  report::InferenceReport a;
  for (int r = 0; r < repeats; ++r) {
    Timed t = time_scenario("azure.yaml", azure);
    azure_s.push_back(t.seconds);
    a = std::move(t.report);
  }
  std::printf(
      "\nAzure conversation trace x10 on 64 replicas of 70B TP4: %lld requests, %.1f s simulated, median "
      "wall %.3f s; p99 TTFT %.3f s, p99 TPOT %.2f ms\n",
      static_cast<long long>(a.metrics.requests), a.metrics.duration_s, median(azure_s), a.metrics.ttft_s.p99,
      a.metrics.tpot_s.p99 * 1e3);

  const std::string examples = FATHOM_SOURCE_DIR "/scenarios/examples/";
  std::vector<double> alone_s, shared_s;
  std::uint64_t alone_events = 0, shared_events = 0, shared_preemptions = 0, shared_shrinks = 0;
  for (int r = 0; r < repeats; ++r) {
    auto start = std::chrono::steady_clock::now();
    const report::InferenceReport alone =
        report::evaluate_inference(scenario::load_scenario(examples + "llama3-8b-autoscaling.yaml"));
    alone_s.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    alone_events = alone.run.events;
    start = std::chrono::steady_clock::now();
    const report::JobsReport shared =
        report::evaluate_jobs(scenario::load_scenario(examples + "training-beside-inference.yaml"));
    shared_s.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    shared_events = shared.run.events;
    shared_preemptions = shared.run.preemptions;
    shared_shrinks = shared.run.shrinks;
  }
  std::printf(
      "\nthe autoscaled 8B service alone: median wall %.3f s, %llu events; beside two training jobs: median wall "
      "%.3f s (%.2fx), %llu events, %llu preemptions, %llu shrinks\n",
      median(alone_s), static_cast<unsigned long long>(alone_events), median(shared_s),
      median(shared_s) / median(alone_s), static_cast<unsigned long long>(shared_events),
      static_cast<unsigned long long>(shared_preemptions), static_cast<unsigned long long>(shared_shrinks));
  return 0;
}
