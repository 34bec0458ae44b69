// The inference report's writers: terminal summary, JSON, per-request CSV, Perfetto timeline.
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <span>
#include <string>
#include <vector>

#include "models/workloads/training/transformer.hpp"
#include "report/cost/cost_report.hpp"
#include "report/inference/inference_report.hpp"
#include "report/json_header.hpp"
#include "report/number_text.hpp"
#include "report/terminal.hpp"
#include "report/training/training_labels.hpp"
#include "sim/output/json_writer.hpp"
#include "sim/simulation.hpp"
#include "sim/trace/chrome_trace.hpp"

namespace fathom::report {

namespace {

const char* routing_name(infer::Routing r) {
  switch (r) {
    case infer::Routing::kRoundRobin:
      return "round-robin";
    case infer::Routing::kLeastOutstanding:
      return "least-outstanding";
    case infer::Routing::kKvAware:
      return "kv-aware";
  }
  return "round-robin";
}

const char* arrival_name(const scenario::InferenceWorkload& w) {
  if (w.source == scenario::RequestSource::kAzureLlm) return "azure-llm trace";
  switch (w.generated.arrival) {
    case infer::ArrivalProcess::kPoisson:
      return "poisson";
    case infer::ArrivalProcess::kGamma:
      return "gamma";
    case infer::ArrivalProcess::kDiurnal:
      return "diurnal";
    case infer::ArrivalProcess::kAllAtOnce:
      return "all-at-once";
  }
  return "poisson";
}

void percentiles_json(sim::JsonWriter& j, const char* key, const infer::Percentiles& p) {
  j.key(key);
  j.begin_object();
  j.member("count", p.count);
  j.member("mean", p.mean);
  j.member("p50", p.p50);
  j.member("p90", p.p90);
  j.member("p99", p.p99);
  j.member("max", p.max);
  j.end_object();
}

void percentiles_row(std::FILE* out, const char* label, const infer::Percentiles& p, double scale) {
  std::fprintf(out, "  %-6s %11.2f %10.2f %10.2f %10.2f %10.2f\n", label, p.mean * scale, p.p50 * scale, p.p90 * scale,
               p.p99 * scale, p.max * scale);
}

}  // namespace

void write_service_figures(std::FILE* out, const InferenceReport& report) {
  const scenario::InferenceWorkload& w = report.scenario.inference;
  const infer::ServiceMetrics& m = report.metrics;
  std::fprintf(out, "\nrequests %" PRId64 " (%s", m.requests, arrival_name(w));
  if (w.source == scenario::RequestSource::kAzureLlm) {
    std::fprintf(out, " %s, %.4g x its rate", w.trace_file.c_str(), w.speedup);
  } else if (w.generated.arrival != infer::ArrivalProcess::kAllAtOnce) {
    std::fprintf(out, ", %.4g requests/s", w.generated.rate);
  }
  std::fprintf(out, "), %" PRId64 " finished in %s\n", m.finished, duration_text(m.duration_s).c_str());
  std::fprintf(out, "  alone on a replica: prefill of the mean prompt %.2f ms, a decode %.2f ms\n",
               1e3 * report.alone_prefill_s, 1e3 * report.alone_decode_s);
  std::fprintf(out, "\nlatency (ms)    mean        p50        p90        p99        max\n");
  percentiles_row(out, "TTFT", m.ttft_s, 1e3);
  percentiles_row(out, "TPOT", m.tpot_s, 1e3);
  percentiles_row(out, "E2E", m.e2e_s, 1e3);
  if (m.kv_transfer_s.count > 0) percentiles_row(out, "KV", m.kv_transfer_s, 1e3);
  std::fprintf(out, "\nthroughput     %.6g output tokens/s (%.6g with the prompts), %.4g requests/s\n",
               m.throughput_tokens_per_s, m.total_tokens_per_s, m.requests_per_s);
  if (w.slo.any()) {
    std::string bounds;
    if (w.slo.ttft_s > 0) bounds += "TTFT <= " + ten_digits(w.slo.ttft_s * 1e3) + " ms";
    if (w.slo.tpot_s > 0)
      bounds += std::string(bounds.empty() ? "" : ", ") + "TPOT <= " + ten_digits(w.slo.tpot_s * 1e3) + " ms";
    if (w.slo.e2e_s > 0) bounds += std::string(bounds.empty() ? "" : ", ") + "E2E <= " + ten_digits(w.slo.e2e_s) + " s";
    std::fprintf(out, "goodput        %.4g requests/s meet the SLO (%s): %.1f%% of requests\n",
                 m.goodput_requests_per_s, bounds.c_str(),
                 m.finished > 0 ? 100.0 * static_cast<double>(m.good_requests) / static_cast<double>(m.finished) : 0);
  }
  std::fprintf(out, "KV cache       %.1f%% used on average, %.1f%% at the fullest; %" PRId64 " preemptions",
               100 * m.kv_cache_utilization, 100 * m.peak_kv_cache_utilization, m.preemptions);
  if (m.swapped_blocks > 0) std::fprintf(out, " (%" PRId64 " blocks swapped to host memory)", m.swapped_blocks);
  std::fprintf(out, "\n");
  std::fprintf(out, "replicas       busy %.1f%% of the time, %.1f requests an iteration on average\n",
               100 * m.busy_fraction, m.mean_batch);
  if (w.autoscaler.enabled) {
    const infer::AutoscalerSpec& a = w.autoscaler;
    int low = a.max_replicas, high = 0;
    // On a shared cluster the last count is the service leaving, every replica gone.
    const auto& counts = report.run.replica_counts;
    const std::size_t n = counts.size() - (report.shared && counts.size() > 1 ? 1 : 0);
    for (const infer::ReplicaCount& c : std::span(counts.data(), n)) {
      low = std::min(low, c.ready);
      high = std::max(high, c.ready);
    }
    std::fprintf(out,
                 "autoscaler     %s target %.4g, %d to %d replicas: %d to %d ready over the run, %zu changes, %.4g "
                 "GPU-hours\n",
                 a.metric == infer::ScaleMetric::kUtilization ? "utilization" : "outstanding requests", a.target,
                 a.min_replicas, a.max_replicas, low, high, report.run.replica_counts.size() - 1,
                 report.run.replica_seconds * w.gpus_per_replica() / 3600);
    if (!report.model_load.empty()) {
      std::fprintf(out, "               a replica starts in %.4g s + %.4g s to load the model from %s\n",
                   a.startup.to_seconds(), report.model_load.front().to_seconds(), w.model_load_tier.c_str());
    }
  }
}

void write_inference_summary(std::FILE* out, const InferenceReport& report) {
  const scenario::Scenario& s = report.scenario;
  const scenario::InferenceWorkload& w = s.inference;
  const infer::KvBudget& b = w.budget;
  std::fprintf(out, "scenario %s (seed %" PRIu64 ")\n", s.file.c_str(), s.seed);
  print_user_catalog_entries(out, s);
  if (s.wafer_scale) {
    std::fprintf(out, "cluster  %d x %s (wafer-scale, a system a wafer), %.4g Tb/s I/O each\n", s.wafer.systems,
                 s.accelerator.name.c_str(), s.wafer.system.io_bytes_per_s * 8 / 1e12);
  } else {
    std::fprintf(out, "cluster  %d node%s x %d %s\n", s.cluster.nodes, s.cluster.nodes == 1 ? "" : "s",
                 s.cluster.node.gpus, s.accelerator.name.c_str());
  }
  const std::string pipeline = w.serving.pp > 1 ? " x pp " + std::to_string(w.serving.pp) + " (virtual engines)" : "";
  std::fprintf(out, "service  %s (%.3g B parameters): %d replica%s of tp %d%s, %s weights, %s KV cache, %s\n",
               w.model.name.c_str(), train::parameter_count(w.model) / 1e9, w.serving.replicas,
               w.serving.replicas == 1 ? "" : "s", w.serving.tp, pipeline.c_str(), precision_name(w.serving.weights),
               precision_name(w.serving.kv), routing_name(w.serving.routing));
  if (w.prefill_replicas > 0) {
    std::fprintf(
        out,
        "         disaggregated: %d prefill replica%s of tp %d hand each prompt's KV cache to the decode replicas\n",
        w.prefill_replicas, w.prefill_replicas == 1 ? "" : "s", w.prefill.tp);
  }
  std::fprintf(out, "         %s, up to %d tokens and %d requests an iteration, %d-token blocks\n",
               w.serving.chunked_prefill ? "chunked prefill" : "whole prompts", w.serving.max_batched_tokens,
               w.serving.max_seqs, w.serving.block_tokens);
  std::fprintf(out, "\nmemory per %s (%s of %s the engine takes):\n", s.wafer_scale ? "wafer, in SRAM" : "GPU",
               gib(b.usable_bytes).c_str(), gib(s.accelerator.hbm_bytes).c_str());
  std::fprintf(out, "  %-22s %12s\n", "weights", gib(b.weight_bytes).c_str());
  std::fprintf(out, "  %-22s %12s\n", "activations", gib(b.activation_bytes).c_str());
  std::fprintf(out, "  %-22s %12s = %" PRId64 " blocks, %" PRId64 " tokens\n", "KV cache", gib(b.kv_bytes).c_str(),
               b.blocks, b.blocks * w.serving.block_tokens);

  write_service_figures(out, report);
  infer::IterationTime t;
  for (const infer::ReplicaStats& r : report.run.replicas) t += r.time;
  if (t.total() > 0) {
    std::fprintf(out,
                 "iteration time linear layers %.1f%%, attention %.1f%%, element-wise %.1f%%, all-reduce %.1f%%, "
                 "output layer %.1f%%, engine %.1f%%\n",
                 100 * t.gemm / t.total(), 100 * t.attention / t.total(), 100 * t.elementwise / t.total(),
                 100 * t.communication / t.total(), 100 * t.output / t.total(), 100 * t.overhead / t.total());
    if (t.pipeline > 0)
      std::fprintf(out, "               sends between pipeline stages %.1f%%\n", 100 * t.pipeline / t.total());
    if (t.swap > 0)
      std::fprintf(out, "               swapping blocks to and from host memory %.1f%%\n", 100 * t.swap / t.total());
    if (t.latency > 0)
      std::fprintf(out, "               the wafers' dataflow latency per layer %.1f%%\n", 100 * t.latency / t.total());
    if (t.straggler > 0)
      std::fprintf(out, "               waiting for the slowest GPU of a stage %.1f%%\n",
                   100 * t.straggler / t.total());
  }
  if (report.cost) {
    char span[64];
    std::snprintf(span, sizeof span, "simulated %.4g s", report.run.end.to_seconds());
    const char* unit = s.wafer_scale ? "system" : "GPU";
    write_cost_summary(out, *report.cost, *s.cost, span, unit);
    std::fprintf(out, "  the service: %s an hour (%.4g %ss on average at %s per %s-hour)\n",
                 usd_text(report.usd_per_hour()).c_str(),
                 report.run.end.to_seconds() > 0 ? report.gpu_hours * 3600 / report.run.end.to_seconds() : 0.0, unit,
                 usd_text(report.cost->usd_per_gpu_hour).c_str(), unit);
  }
  write_expectations(out, report.expectations);
  std::fprintf(out, "\nfingerprint=%s\n", sim::format_fingerprint(report.run.fingerprint).c_str());
}

void write_inference_figures(sim::JsonWriter& j, const InferenceReport& report) {
  const scenario::InferenceWorkload& w = report.scenario.inference;
  const infer::ServiceMetrics& m = report.metrics;
  j.key("inference");
  j.begin_object();
  j.member("requests", m.requests);
  j.member("finished", m.finished);
  percentiles_json(j, "ttft_s", m.ttft_s);
  percentiles_json(j, "tpot_s", m.tpot_s);
  percentiles_json(j, "e2e_s", m.e2e_s);
  if (w.prefill_replicas > 0) percentiles_json(j, "kv_transfer_s", m.kv_transfer_s);
  j.member("duration_s", m.duration_s);
  j.member("input_tokens", m.input_tokens);
  j.member("output_tokens", m.output_tokens);
  j.member("throughput_tokens_per_s", m.throughput_tokens_per_s);
  j.member("total_tokens_per_s", m.total_tokens_per_s);
  j.member("requests_per_s", m.requests_per_s);
  j.key("slo");
  j.begin_object();
  j.member("ttft_s", w.slo.ttft_s);
  j.member("tpot_s", w.slo.tpot_s);
  j.member("e2e_s", w.slo.e2e_s);
  j.end_object();
  j.member("good_requests", m.good_requests);
  j.member("goodput_requests_per_s", m.goodput_requests_per_s);
  j.member("kv_cache_utilization", m.kv_cache_utilization);
  j.member("peak_kv_cache_utilization", m.peak_kv_cache_utilization);
  j.member("preemptions", m.preemptions);
  j.member("swapped_blocks", m.swapped_blocks);
  j.member("mean_batch", m.mean_batch);
  j.member("busy_fraction", m.busy_fraction);
  j.member("alone_prefill_s", report.alone_prefill_s);
  j.member("alone_decode_s", report.alone_decode_s);
  j.key("replicas");  // the replica count over time: at 0 and after every change
  j.begin_array();
  for (const infer::ReplicaCount& c : report.run.replica_counts) {
    j.begin_object();
    j.member("time_s", c.time.to_seconds());
    j.member("ready", c.ready);
    j.member("starting", c.starting);
    j.member("draining", c.draining);
    if (report.shared) j.member("waiting", c.waiting);
    j.end_object();
  }
  j.end_array();
  j.member("replica_seconds", report.run.replica_seconds);
  // The prefill pool does not scale: its replicas are up for the whole run.
  j.member("gpu_hours", report.gpu_hours);
  j.end_object();
}

void write_inference_json(std::ostream& out, const InferenceReport& report) {
  const scenario::Scenario& s = report.scenario;
  const scenario::InferenceWorkload& w = s.inference;
  sim::JsonWriter j(out, sim::JsonLayout::kPretty, 4);
  begin_report_json(j, s);
  j.key("cluster");
  j.begin_object();
  if (s.wafer_scale) j.member("kind", std::string("wafer-scale"));  // a node is a system of one wafer
  j.member("nodes", s.cluster.nodes);
  j.member("gpus_per_node", s.cluster.node.gpus);
  j.member("accelerator", s.accelerator.name);
  j.end_object();
  j.key("model");
  j.begin_object();
  j.member("name", w.model.name);
  j.member("parameters", train::parameter_count(w.model));
  j.end_object();
  j.key("serving");
  j.begin_object();
  j.member("tp", w.serving.tp);
  j.member("pp", w.serving.pp);
  j.member("weights", std::string(precision_name(w.serving.weights)));
  j.member("kv_cache", std::string(precision_name(w.serving.kv)));
  j.member("max_seqs", w.serving.max_seqs);
  j.member("max_batched_tokens", w.serving.max_batched_tokens);
  j.member("chunked_prefill", w.serving.chunked_prefill);
  j.member("prefill_batching",
           std::string(w.serving.prefill_batching == infer::PrefillBatching::kMixed ? "mixed" : "separate"));
  j.member("kv_reservation",
           std::string(w.serving.kv_reservation == infer::KvReservation::kFull ? "full" : "on-demand"));
  j.member("batch_size_tuning", w.serving.batch_size_tuning);
  j.member("kv_free_fraction", w.serving.kv_free_fraction);
  j.member("block_tokens", w.serving.block_tokens);
  j.member("memory_utilization", w.serving.memory_utilization);
  j.member("iteration_overhead_s", w.serving.iteration_overhead_s);
  j.member("sequence_overhead_s", w.serving.sequence_overhead_s);
  j.member("preemption", std::string(w.serving.preemption == infer::Preemption::kSwap ? "swap" : "recompute"));
  j.member("replicas", w.serving.replicas);
  j.member("routing", std::string(routing_name(w.serving.routing)));
  j.member("dispatch_delay_s", w.dispatch_delay.to_seconds());
  if (w.prefill_replicas > 0) {
    j.key("disaggregation");
    j.begin_object();
    j.member("prefill_replicas", w.prefill_replicas);
    j.member("prefill_tp", w.prefill.tp);
    j.member("prefill_kv_blocks", w.prefill_budget.blocks);
    j.end_object();
  }
  if (w.autoscaler.enabled) {
    const infer::AutoscalerSpec& a = w.autoscaler;
    j.key("autoscaler");
    j.begin_object();
    j.member("metric", std::string(a.metric == infer::ScaleMetric::kUtilization ? "utilization" : "outstanding"));
    j.member("target", a.target);
    j.member("tolerance", a.tolerance);
    j.member("min_replicas", a.min_replicas);
    j.member("max_replicas", a.max_replicas);
    j.member("interval_s", a.interval.to_seconds());
    j.member("scale_up_window_s", a.up_window.to_seconds());
    j.member("scale_down_window_s", a.down_window.to_seconds());
    j.member("startup_s", a.startup.to_seconds());
    j.member("model_load_tier", w.model_load_tier);
    j.key("model_load_s");
    j.begin_array();
    for (const sim::SimTime& t : report.model_load) j.value(t.to_seconds());
    j.end_array();
    j.end_object();
  }
  j.end_object();
  j.key("memory_per_gpu");
  j.begin_object();
  j.member("usable_bytes", w.budget.usable_bytes);
  j.member("weight_bytes", w.budget.weight_bytes);
  j.member("activation_bytes", w.budget.activation_bytes);
  j.member("kv_cache_bytes", w.budget.kv_bytes);
  j.member("kv_bytes_per_token", w.budget.bytes_per_token);
  j.member("kv_blocks", w.budget.blocks);
  j.member("kv_tokens", w.budget.blocks * w.serving.block_tokens);
  j.end_object();
  j.key("requests");
  j.begin_object();
  j.member("source", std::string(arrival_name(w)));
  j.member("count", static_cast<std::int64_t>(w.requests.size()));
  if (w.source == scenario::RequestSource::kAzureLlm) {
    j.member("trace", w.trace_file);
    j.member("trace_requests", w.trace_requests);
    j.member("speedup", w.speedup);
  } else if (w.generated.arrival != infer::ArrivalProcess::kAllAtOnce) {
    j.member("rate_per_s", w.generated.rate);
  }
  j.end_object();
  write_inference_figures(j, report);
  j.key("replicas");
  j.begin_array();
  for (std::size_t r = 0; r < report.run.replicas.size(); ++r) {
    const infer::ReplicaStats& x = report.run.replicas[r];
    j.begin_object();
    j.member("replica", static_cast<std::int64_t>(r));
    const std::size_t decode =
        static_cast<std::size_t>(w.autoscaler.enabled ? w.autoscaler.max_replicas : w.serving.replicas);
    j.member("pool", std::string(w.prefill_replicas == 0 ? "both" : r < decode ? "decode" : "prefill"));
    j.member("iterations", x.iterations);
    j.member("busy_s", x.busy_s);
    j.member("tokens", x.tokens);
    j.member("preemptions", x.preemptions);
    j.member("peak_kv_blocks", x.peak_blocks);
    j.key("iteration_time_s");
    j.begin_object();
    j.member("linear_layers", x.time.gemm);
    j.member("attention", x.time.attention);
    j.member("elementwise", x.time.elementwise);
    j.member("all_reduce", x.time.communication);
    j.member("pipeline", x.time.pipeline);
    j.member("output_layer", x.time.output);
    j.member("engine", x.time.overhead);
    j.member("swap", x.time.swap);
    if (x.time.latency > 0) j.member("dataflow_latency", x.time.latency);  // wafer-scale systems only
    j.member("straggler_wait", x.time.straggler);
    j.end_object();
    j.end_object();
  }
  j.end_array();
  if (report.cost) {
    j.key("cost");
    write_cost_json(j, *report.cost, *s.cost);
    j.member("service_usd_per_hour", report.usd_per_hour());
  }
  write_expectations_json(j, report.expectations);
  j.key("simulation");
  j.begin_object();
  j.member("events", report.run.events);
  j.member("fingerprint", sim::format_fingerprint(report.run.fingerprint));
  j.end_object();
  j.end_object();
  out << '\n';
}

void write_requests_csv(std::ostream& out, const InferenceReport& report) {
  out << kRequestsCsvHeader << '\n';
  write_request_rows(out, report, "");
}

void write_request_rows(std::ostream& out, const InferenceReport& report, std::string_view lead) {
  const scenario::InferenceWorkload& w = report.scenario.inference;
  for (std::size_t i = 0; i < w.requests.size(); ++i) {
    const infer::Request& q = w.requests[i];
    const infer::RequestOutcome& o = report.run.requests[i];
    out << lead << i << ',' << exact_seconds(q.arrival) << ',' << q.prompt << ',' << q.output << ',' << o.replica
        << ',';
    if (!o.finished()) {
      out << ",,,,," << o.preemptions << ",\n";
      continue;
    }
    out << exact_seconds(o.first_token) << ',' << exact_seconds(o.end) << ','
        << exact_seconds(o.first_token - q.arrival) << ',';
    if (q.output > 1) out << ten_digits((o.end - o.first_token).to_seconds() / (q.output - 1));
    out << ',' << exact_seconds(o.end - q.arrival) << ',' << o.preemptions << ','
        << (infer::meets(q, o, w.slo) ? "true" : "false") << '\n';
  }
}

void write_inference_trace(std::ostream& out, const InferenceReport& report) {
  sim::ChromeTrace trace;
  std::vector<std::int64_t> drawn(report.run.replicas.size(), 0);
  for (const infer::IterationRecord& it : report.run.iterations) ++drawn[static_cast<std::size_t>(it.replica)];
  for (std::size_t r = 0; r < report.run.replicas.size(); ++r) {
    // A long run's replicas draw their first iterations only (kTraceIterations in all).
    const std::int64_t all = report.run.replicas[r].iterations;
    trace.process_name(static_cast<int>(r), "replica " + std::to_string(r) +
                                                (drawn[r] < all ? " (its first " + std::to_string(drawn[r]) + " of " +
                                                                      std::to_string(all) + " iterations)"
                                                                : ""));
    trace.thread_name(static_cast<int>(r), 0, "iterations");
  }
  const double blocks = static_cast<double>(report.scenario.inference.budget.blocks);
  for (const infer::IterationRecord& it : report.run.iterations) {
    trace.complete(
        it.replica, 0, "iteration", it.start, it.duration, "serving",
        {{"sequences", it.sequences}, {"tokens", it.tokens}, {"kv_blocks", static_cast<double>(it.used_blocks)}});
    trace.counter(it.replica, "batch", it.start, {{"sequences", it.sequences}, {"tokens", it.tokens}});
    trace.counter(it.replica, "kv_cache", it.start,
                  {{"used_fraction", blocks > 0 ? static_cast<double>(it.used_blocks) / blocks : 0}});
  }
  const int service = static_cast<int>(report.run.replicas.size());
  trace.process_name(service, "service");
  for (const infer::ReplicaCount& c : report.run.replica_counts) {
    trace.counter(service, "replicas", c.time,
                  {{"ready", c.ready}, {"starting", c.starting}, {"draining", c.draining}});
  }
  trace.write(out);
}

}  // namespace fathom::report
