#include "scenarios/inference_workload.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <stdexcept>
#include <utility>

#include "scenarios/azure_llm_reader.hpp"
#include "scenarios/declared_reader.hpp"
#include "scenarios/distribution_reader.hpp"
#include "scenarios/jobs_workload.hpp"
#include "scenarios/units.hpp"
#include "scenarios/yaml_reader.hpp"

namespace fathom::scenario {

namespace {

// Requests one scenario may draw (about 12 bytes each, and their outcomes).
constexpr std::int64_t kMaxRequests = 100'000'000;

constexpr std::string_view kTokens = "a number of tokens, or {distribution: lognormal, median: 500, sigma: 1}";

std::string gib(double bytes) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.2f GiB", bytes / (1024.0 * 1024 * 1024));
  return buf;
}

double positive_number(const ValueReader& v, std::string_view what) {
  const double x = v.as<double>(what);
  if (!(x > 0) || !std::isfinite(x)) v.fail(std::string(what));
  return x;
}

void read_generated(InferenceWorkload& w, MapReader& r, const std::function<void(const ValueReader&)>& note,
                    std::uint64_t seed) {
  infer::RequestSpec& g = w.generated;
  if (auto v = r.find("arrival")) note(*v);
  const std::string arrival = r.one_of("arrival", {"poisson", "gamma", "diurnal", "all-at-once"}, "poisson");
  g.arrival = arrival == "gamma"         ? infer::ArrivalProcess::kGamma
              : arrival == "diurnal"     ? infer::ArrivalProcess::kDiurnal
              : arrival == "all-at-once" ? infer::ArrivalProcess::kAllAtOnce
                                         : infer::ArrivalProcess::kPoisson;
  if (g.arrival == infer::ArrivalProcess::kGamma) {
    const ValueReader cv = r.value("cv", "the gaps' coefficient of variation, a positive number (1: Poisson)");
    note(cv);
    g.cv = positive_number(cv, "the gaps' coefficient of variation, a positive number (1: Poisson)");
  } else {
    r.forbid("cv", "only with arrival: gamma");
  }
  if (g.arrival == infer::ArrivalProcess::kDiurnal) {
    if (auto v = r.find("amplitude")) {
      note(*v);
      g.amplitude = v->as<double>("a fraction from 0 to 1");
      if (!(g.amplitude >= 0 && g.amplitude <= 1)) v->fail("a fraction from 0 to 1");
    }
    if (auto v = r.find("period")) note(*v);
    g.period_s = r.duration("period", sim::SimTime::from_ns(86'400'000'000'000LL), Sign::kPositive).to_seconds();
  } else {
    r.forbid("amplitude", "only with arrival: diurnal");
    r.forbid("period", "only with arrival: diurnal");
  }
  if (g.arrival != infer::ArrivalProcess::kAllAtOnce) {
    constexpr std::string_view kRate = "requests per second, a positive number, or inf (every request at once)";
    const ValueReader rate = r.value("rate", kRate);
    note(rate);
    // `inf`, as the serving benchmarks write an unbounded request rate: every request at time 0.
    if (rate.is_scalar() && rate.as<std::string>(kRate) == "inf") {
      g.arrival = infer::ArrivalProcess::kAllAtOnce;
    } else {
      g.rate = positive_number(rate, kRate);
    }
  } else {
    r.forbid("rate", "only with an arrival process (every request arrives at 0 with all-at-once)");
  }
  const ValueReader count = r.value("count", "the number of requests, a whole number from 1 to 1e8");
  note(count);
  g.count = count.count(Sign::kPositive);
  if (g.count > kMaxRequests) count.fail("the number of requests, a whole number from 1 to 1e8");
  g.prompt = read_distribution(r, "prompt_tokens", kTokens, note);
  g.output = read_distribution(r, "output_tokens", kTokens, note);
  try {
    w.requests = infer::generate_requests(g, seed);
  } catch (const std::invalid_argument& e) {
    r.fail("rate",
           "a rate at which " + std::to_string(g.count) + " requests arrive within the clock (" + e.what() + ")");
  }
}

void read_trace(InferenceWorkload& w, MapReader& r, const std::function<void(const ValueReader&)>& note,
                const std::string& scenario_file) {
  const ValueReader file = r.value("trace", "the trace's file (a CSV of the Azure LLM inference trace)");
  note(file);
  if (auto v = r.find("format")) note(*v);
  r.one_of("format", {"azure-llm"}, "azure-llm");
  w.source = RequestSource::kAzureLlm;
  w.trace_file = resolve(scenario_file, file.as<std::string>("a path"));
  if (auto v = r.find("speedup")) {
    note(*v);
    w.speedup = positive_number(*v, "a positive factor: arrival gaps are divided by it (10: ten times the rate)");
  }
  for (auto key : {"start", "length", "limit"}) {
    if (auto v = r.find(key)) note(*v);
  }
  w.trace_start = r.duration("start", sim::SimTime::zero());
  w.trace_length = r.duration("length", sim::SimTime::zero());
  w.trace_limit = r.count("limit", 0);
  for (auto key : {"arrival", "rate", "cv", "amplitude", "period", "count", "prompt_tokens", "output_tokens"}) {
    r.forbid(key, "only without a trace: the trace gives each request's arrival and lengths");
  }
  const AzureLlmTrace trace = read_azure_llm(w.trace_file, file.location(), file.path());
  w.trace_requests = static_cast<std::int64_t>(trace.requests.size());
  const sim::SimTime end = w.trace_length > sim::SimTime::zero()
                               ? sim::SimTime::saturating_add(w.trace_start, w.trace_length)
                               : sim::SimTime::max();
  sim::SimTime first = sim::SimTime::from_ns(-1);
  for (std::size_t i = 0; i < trace.requests.size(); ++i) {
    const infer::Request& q = trace.requests[i];
    if (q.arrival < w.trace_start || q.arrival >= end) continue;
    if (w.trace_limit > 0 && static_cast<std::int64_t>(w.requests.size()) >= w.trace_limit) break;
    if (first.ns() < 0) first = q.arrival;
    infer::Request scaled = q;
    const double ns = static_cast<double>((q.arrival - first).ns()) / w.speedup;
    if (!(ns < 9.2e18)) {
      r.fail("speedup", "a factor that keeps the trace's arrivals within the clock's 292 years");
    }
    scaled.arrival = sim::SimTime::from_ns(std::llround(ns));
    w.requests.push_back(scaled);
    w.request_lines.push_back(trace.lines[i]);
  }
  if (w.requests.empty()) {
    file.fail("a trace with at least one request in the window (start " + format_duration(w.trace_start) +
              (w.trace_length > sim::SimTime::zero() ? ", length " + format_duration(w.trace_length) : "") + "); " +
              std::to_string(w.trace_requests) + " requests in the file");
  }
}

void read_autoscaler(InferenceWorkload& w, MapReader& a, const std::function<void(const ValueReader&)>& note,
                     const std::vector<std::string>& tiers, std::int64_t cluster_replicas) {
  infer::AutoscalerSpec& x = w.autoscaler;
  x.enabled = true;
  for (auto key : {"metric", "target", "tolerance", "min_replicas", "max_replicas", "interval", "scale_up_window",
                   "scale_down_window", "startup", "model_load"}) {
    if (auto v = a.find(key)) note(*v);
  }
  const std::string metric = a.one_of("metric", {"utilization", "outstanding"}, "utilization");
  x.metric = metric == "outstanding" ? infer::ScaleMetric::kOutstanding : infer::ScaleMetric::kUtilization;
  if (x.metric == infer::ScaleMetric::kUtilization) {
    x.target = a.fraction("target", 0.7);
  } else {
    const ValueReader t = a.value("target", "requests per replica, a positive number");
    x.target = positive_number(t, "requests per replica, a positive number");
  }
  x.tolerance = a.optional<double>("tolerance", 0.1, "a fraction from 0 to 1");
  if (!(x.tolerance >= 0 && x.tolerance < 1)) a.fail("tolerance", "a fraction from 0 to below 1 (Kubernetes: 0.1)");
  x.min_replicas = a.positive_int("min_replicas", 1);
  x.max_replicas = a.positive_int("max_replicas");
  if (x.max_replicas < x.min_replicas) {
    a.fail("max_replicas", "at least min_replicas (" + std::to_string(x.min_replicas) + ")");
  }
  if (x.max_replicas > cluster_replicas) {
    a.fail("max_replicas", "at most the cluster's " + std::to_string(cluster_replicas) + " replicas");
  }
  if (w.serving.replicas < x.min_replicas || w.serving.replicas > x.max_replicas) {
    a.fail("min_replicas", "a range that holds serving.replicas (" + std::to_string(w.serving.replicas) +
                               ", the replicas ready at the start)");
  }
  x.interval = a.duration("interval", x.interval, Sign::kPositive);
  x.up_window = a.duration("scale_up_window", x.up_window);
  x.down_window = a.duration("scale_down_window", x.down_window);
  x.startup = a.duration("startup", sim::SimTime::zero());
  if (auto v = a.find("model_load")) {
    const std::string tier = v->as<std::string>("the name of a storage tier of the scenario's storage: section");
    if (std::find(tiers.begin(), tiers.end(), tier) == tiers.end()) {
      std::string names;
      for (const auto& t : tiers) names += (names.empty() ? "" : ", ") + t;
      v->fail("a storage tier of the scenario's storage: section (" + (names.empty() ? "none is defined" : names) +
              ")");
    }
    w.model_load_tier = tier;
  }
}

void read_disaggregation(InferenceWorkload& w, MapReader& d, const std::function<void(const ValueReader&)>& note,
                         int gpus_per_node) {
  for (auto key : {"prefill_replicas", "prefill_tp"}) {
    if (auto v = d.find(key)) note(*v);
  }
  w.prefill_replicas = d.positive_int("prefill_replicas");
  w.prefill = w.serving;
  w.prefill.pp = 1;  // a prefill replica is one stage
  w.prefill.tp = d.positive_int("prefill_tp", w.serving.tp);
  w.prefill.replicas = w.prefill_replicas;
  const int tp = w.prefill.tp;
  if (tp > gpus_per_node || gpus_per_node % tp != 0) {
    d.fail("prefill_tp", "a divisor of a node's " + std::to_string(gpus_per_node) + " GPUs");
  }
  if (w.model.heads % tp != 0 || w.model.ffn_hidden % tp != 0) {
    d.fail("prefill_tp", "a divisor of the model's heads (" + std::to_string(w.model.heads) + ") and ffn_hidden (" +
                             std::to_string(w.model.ffn_hidden) + ")");
  }
}

// Packs the replicas onto the nodes (InferenceWorkload::node_of); false when they need more nodes
// than the cluster has.
bool place_replicas(InferenceWorkload& w, int gpus_per_node, int nodes) {
  const int decode = w.autoscaler.enabled ? w.autoscaler.max_replicas : w.serving.replicas;
  w.node_of.clear();
  const int gpus = w.gpus_per_replica();  // node_of: a replica's first node
  for (int r = 0; r < decode; ++r) w.node_of.push_back(static_cast<std::int32_t>(r * gpus / gpus_per_node));
  const int first = decode == 0 ? 0 : (decode * gpus + gpus_per_node - 1) / gpus_per_node;
  for (int r = 0; r < w.prefill_replicas; ++r) {
    w.node_of.push_back(static_cast<std::int32_t>(first + r * w.prefill.tp / gpus_per_node));
  }
  return w.node_of.empty() || w.node_of.back() < nodes;
}

// The checks that need the model, the serving spec and the requests together.
void check_fit(const InferenceWorkload& w, MapReader& serving, const hw::AcceleratorSpec& accelerator,
               const std::map<std::string, Location>& locations) {
  const infer::KvBudget& b = w.budget;
  if (b.blocks < 1) {
    serving.fail("tp",
                 "a replica whose weights (" + gib(b.weight_bytes) + " per GPU) and activations (" +
                     gib(b.activation_bytes) + ") leave room for a KV cache in the " + gib(b.usable_bytes) +
                     " the engine may take of " + accelerator.name + "'s HBM",
                 "raise tp, use weights: fp8, lower max_batched_tokens, or raise memory_utilization");
  }
  std::size_t longest = 0;
  std::int64_t longest_tokens = 0;
  for (std::size_t i = 0; i < w.requests.size(); ++i) {
    const std::int64_t t = std::int64_t{w.requests[i].prompt} + w.requests[i].output - 1;
    if (t > longest_tokens) {
      longest_tokens = t;
      longest = i;
    }
  }
  // What one virtual engine holds: the replica's cache over its pp pipeline stages' engines.
  const std::int64_t engine_blocks = b.blocks / w.serving.pp;
  const std::int64_t capacity = engine_blocks * w.serving.block_tokens;
  const auto at_request = [&](const std::string& expected, const std::string& found, const std::string& hint) {
    if (w.source == RequestSource::kAzureLlm) {
      throw ScenarioError(Location{w.trace_file, w.request_lines[longest], 1}, "ContextTokens", expected, found, hint);
    }
    const auto it = locations.find("workload.requests.prompt_tokens");
    throw ScenarioError(it != locations.end() ? it->second : serving.location(), "workload.requests.prompt_tokens",
                        expected, found, hint);
  };
  if (infer::blocks_for(longest_tokens, w.serving.block_tokens) > engine_blocks) {
    at_request("requests whose prompt and output fit one replica's KV cache (" + std::to_string(capacity) + " tokens" +
                   (w.serving.pp > 1 ? " a virtual engine" : "") + ")",
               "a request of " + std::to_string(w.requests[longest].prompt) + " + " +
                   std::to_string(w.requests[longest].output) + " tokens",
               "raise tp or memory_utilization, use kv_cache: fp8, or leave the longest requests out");
  }
  if (!w.serving.chunked_prefill && w.serving.kv_reservation == infer::KvReservation::kFull) {
    // Never preempted: a request's prompt is the most one pass processes of it.
    std::int64_t prompt = 0;
    for (const infer::Request& q : w.requests) prompt = std::max<std::int64_t>(prompt, q.prompt);
    if (prompt > w.serving.max_batched_tokens) {
      serving.fail("max_batched_tokens",
                   "without chunked prefill, at least the longest prompt's " + std::to_string(prompt) + " tokens",
                   "raise max_batched_tokens or set chunked_prefill: true");
    }
  } else if (!w.serving.chunked_prefill && longest_tokens + 1 > w.serving.max_batched_tokens) {
    serving.fail("max_batched_tokens",
                 "without chunked prefill, at least the longest request's " + std::to_string(longest_tokens + 1) +
                     " tokens (a preempted request is processed again whole)",
                 "raise max_batched_tokens or set chunked_prefill: true");
  }
}

}  // namespace

void read_inference_workload(InferenceWorkload& w, MapReader& workload, const std::string& scenario_file,
                             const hw::AcceleratorSpec& accelerator, int gpus_per_node, int nodes, std::uint64_t seed,
                             std::map<std::string, Location>& locations, const std::vector<std::string>& tiers) {
  const auto note = [&](const ValueReader& v) { locations[v.path()] = v.location(); };
  const auto note_map = [&](const MapReader& m) { locations[m.path()] = m.location(); };

  MapReader serving = workload.optional_child("serving");
  note_map(serving);
  read_declared(serving, infer::serving_parameters(), w.serving, note);
  if (auto v = serving.find("dispatch_delay")) note(*v);
  w.dispatch_delay = serving.duration("dispatch_delay", sim::SimTime::zero());
  const int tp = w.serving.tp;
  if (tp > gpus_per_node) {
    serving.fail("tp",
                 "at most a node's " + std::to_string(gpus_per_node) + " GPUs (a replica shares one NVLink island)");
  }
  if (w.model.heads % tp != 0 || w.model.ffn_hidden % tp != 0) {
    serving.fail("tp", "a divisor of the model's heads (" + std::to_string(w.model.heads) + ") and ffn_hidden (" +
                           std::to_string(w.model.ffn_hidden) + ")");
  }
  // A replica's tp x pp GPUs: a share of one node, or whole consecutive nodes.
  const int gpus = w.gpus_per_replica();
  if (w.serving.pp > w.model.layers) {
    serving.fail("pp", "at most the model's " + std::to_string(w.model.layers) + " layers");
  }
  if (gpus <= gpus_per_node ? gpus_per_node % gpus != 0 : gpus % gpus_per_node != 0) {
    serving.fail("pp", "a pipeline whose tp x pp GPUs divide a node's " + std::to_string(gpus_per_node) +
                           " or fill whole nodes (tp " + std::to_string(tp) + " x pp " + std::to_string(w.serving.pp) +
                           " = " + std::to_string(gpus) + ")");
  }
  const std::int64_t capacity =
      gpus <= gpus_per_node ? static_cast<std::int64_t>(gpus_per_node / gpus) * nodes : nodes / (gpus / gpus_per_node);
  if (w.serving.replicas > capacity) {
    serving.fail("replicas", "at most the cluster's " + std::to_string(capacity) + " replicas of " +
                                 std::to_string(gpus) + " GPUs (" + std::to_string(nodes) + " nodes of " +
                                 std::to_string(gpus_per_node) + " GPUs)");
  }
  if (w.serving.weights == hw::Precision::kFp8 && !(accelerator.peak(hw::Precision::kFp8) > 0)) {
    serving.fail("weights", "bf16: the accelerator " + accelerator.name + " has no FP8 peak");
  }

  MapReader requests = workload.child("requests");
  note_map(requests);
  if (requests.has("trace")) {
    read_trace(w, requests, note, scenario_file);
  } else {
    read_generated(w, requests, note, seed);
  }
  requests.finish();

  if (workload.has("autoscaler")) {
    MapReader a = workload.child("autoscaler");
    note_map(a);
    read_autoscaler(w, a, note, tiers, capacity);
    a.finish();
  }

  if (workload.has("disaggregation")) {
    MapReader d = workload.child("disaggregation");
    note_map(d);
    read_disaggregation(w, d, note, gpus_per_node);
    if (!place_replicas(w, gpus_per_node, nodes)) {
      d.fail("prefill_replicas", "a prefill pool that fits the nodes left after the decode replicas (" +
                                     std::to_string(nodes) + " nodes of " + std::to_string(gpus_per_node) + " GPUs)");
    }
    d.finish();
  } else {
    place_replicas(w, gpus_per_node, nodes);
  }

  MapReader slo = workload.optional_child("slo");
  note_map(slo);
  for (auto key : {"ttft", "tpot", "e2e"}) {
    if (auto v = slo.find(key)) note(*v);
  }
  w.slo.ttft_s = slo.duration("ttft", sim::SimTime::zero(), Sign::kNonNegative).to_seconds();
  w.slo.tpot_s = slo.duration("tpot", sim::SimTime::zero(), Sign::kNonNegative).to_seconds();
  w.slo.e2e_s = slo.duration("e2e", sim::SimTime::zero(), Sign::kNonNegative).to_seconds();
  slo.finish();

  w.budget = infer::kv_budget(w.serving, w.model, accelerator);
  check_fit(w, serving, accelerator, locations);
  if (w.prefill_replicas > 0) {
    w.prefill_budget = infer::kv_budget(w.prefill, w.model, accelerator);
    std::int64_t longest = 0;
    for (const infer::Request& q : w.requests) longest = std::max<std::int64_t>(longest, q.prompt);
    if (infer::blocks_for(longest, w.prefill.block_tokens) > w.prefill_budget.blocks) {
      const auto it = locations.find("workload.disaggregation.prefill_tp");
      const auto at = locations.find("workload.disaggregation");
      throw ScenarioError(
          it != locations.end() ? it->second : at->second, "workload.disaggregation.prefill_tp",
          "a prefill replica whose KV cache holds the longest prompt (" + std::to_string(longest) + " tokens)",
          std::to_string(w.prefill_budget.blocks * w.prefill.block_tokens) + " tokens",
          "raise prefill_tp or memory_utilization");
    }
  }
  serving.finish();
}

std::pair<std::int32_t, int> replica_gpu(const InferenceWorkload& w, std::size_t replica, int k, int gpus_per_node) {
  const std::size_t decode = w.node_of.size() - static_cast<std::size_t>(w.prefill_replicas);
  const bool prefill = replica >= decode;
  const int gpus = prefill ? w.prefill.tp : w.gpus_per_replica();
  const std::size_t index = prefill ? replica - decode : replica;
  // Where on its first node the replica starts: replicas that share a node sit side by side.
  const int offset =
      gpus < gpus_per_node ? static_cast<int>(index * static_cast<std::size_t>(gpus) % gpus_per_node) : 0;
  const int at = offset + k;
  return {w.node_of[replica] + at / gpus_per_node, at % gpus_per_node};
}

}  // namespace fathom::scenario
