#include "report/inference/inference_report.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>

#include "models/collectives/collective_timer.hpp"
#include "models/network/flow_transfer.hpp"
#include "models/reliability/run_setup.hpp"
#include "models/workloads/wafer/wafer_cost.hpp"
#include "report/cost/cost_report.hpp"
#include "sim/errors.hpp"
#include "topologies/cluster.hpp"
#include "topologies/routing.hpp"

namespace fathom::report {

namespace {

// A cost function of the bytes known at a grid of sizes, linear between them and beyond the last
// two (the all-reduce's bandwidth term), the first point's below it (its latency term).
class InterpolatedTable {
 public:
  void add(double bytes, double seconds) { points_.emplace_back(bytes, seconds); }
  double operator()(double bytes) const {
    if (bytes <= points_.front().first) return points_.front().second;
    auto hi = std::lower_bound(points_.begin(), points_.end(), std::pair{bytes, -1.0});
    if (hi == points_.end()) hi = points_.end() - 1;
    const auto lo = hi - 1;
    const double f = (bytes - lo->first) / (hi->first - lo->first);
    return lo->second + f * (hi->second - lo->second);
  }

 private:
  std::vector<std::pair<double, double>> points_;  // by increasing bytes
};

// The KV transfers' connections on the cluster's fabric (infer::DisaggregationSpec::fabric): from
// prefill replica p to decode replica r, one flow from each of p's GPUs to r's GPU of the same
// rank (modulo r's GPUs), each routed as the fabric routes a flow, with its own ECMP hash.
void kv_connections(const scenario::Scenario& s, infer::DisaggregationSpec& d) {
  const scenario::InferenceWorkload& w = s.inference;
  auto topology = std::make_shared<topo::Topology>(topo::build_cluster(s.cluster));
  const int gpn = s.cluster.node.gpus;
  std::vector<std::vector<topo::VertexId>> gpus(static_cast<std::size_t>(s.cluster.nodes));
  for (topo::VertexId v = 0; v < topology->vertices().size(); ++v) {
    const topo::Vertex& x = topology->vertex(v);
    if (x.kind == topo::VertexKind::kGpu && x.node >= 0) gpus[static_cast<std::size_t>(x.node)].push_back(v);
  }
  const auto vertex = [&](std::size_t replica, int k) {
    const auto [node, gpu] = scenario::replica_gpu(w, replica, k, gpn);
    return gpus.at(static_cast<std::size_t>(node)).at(static_cast<std::size_t>(gpu));
  };
  topo::Router router(*topology);
  const std::size_t decode = w.node_of.size() - static_cast<std::size_t>(w.prefill_replicas);
  std::uint64_t flow = 0;
  for (std::size_t p = decode; p < w.node_of.size(); ++p) {
    for (std::size_t r = 0; r < decode; ++r) {
      net::Connection c;
      for (int k = 0; k < w.prefill.tp; ++k) {
        c.flows.push_back(net::route_one(*topology, router, vertex(p, k), vertex(r, k % w.gpus_per_replica()),
                                         net::flow_hash(s.seed, flow++)));
        c.latency = std::max(c.latency, c.flows.back().latency);
      }
      d.kv_connections.push_back(std::move(c));
    }
  }
  d.fabric = std::move(topology);
}

}  // namespace

infer::IterationModel replica_model(const scenario::Scenario& s, const infer::ServingSpec& serving) {
  const scenario::InferenceWorkload& w = s.inference;
  infer::AllReduceTime all_reduce;
  if (serving.tp > 1) {
    // One node of the cluster: a replica's all-reduces stay on its NVLink island, where nothing
    // else runs, so they are timed alone.
    topo::ClusterSpec one = s.cluster;
    one.nodes = 1;
    auto timer = std::make_shared<coll::CollectiveTimer>(one, s.collectives, s.seed);
    std::vector<topo::VertexId> ranks;
    for (topo::VertexId v = 0; v < timer->topology().vertices().size(); ++v) {
      if (timer->topology().vertex(v).kind == topo::VertexKind::kGpu && ranks.size() < std::size_t(serving.tp)) {
        ranks.push_back(v);
      }
    }
    auto table = std::make_shared<InterpolatedTable>();
    for (std::int64_t tokens = 1;; tokens = std::min<std::int64_t>(tokens * 2, serving.max_batched_tokens)) {
      const double bytes = infer::activation_bytes(w.model, tokens);
      table->add(bytes, timer->time(coll::Op::kAllReduce, ranks, bytes).seconds);
      if (tokens == serving.max_batched_tokens) break;
    }
    all_reduce = [table](double bytes) { return (*table)(bytes); };
  }
  infer::StageSendsTime stage_sends;
  if (serving.pp > 1) {
    // Each of a stage's tp GPUs sends the activations to its peer of the next stage: over NVLink
    // within a node, over its share of the node's NICs between nodes (a boundary at a multiple of
    // the node's GPUs), each after one software latency.
    const GpuLinks links = gpu_links(s);
    const int gpn = s.cluster.node.gpus;
    int cross = 0;
    for (int k = 1; k < serving.pp; ++k) cross += (k * serving.tp) % gpn == 0 ? 1 : 0;
    const int same = serving.pp - 1 - cross;
    stage_sends = [links, same, cross](double bytes) {
      return same * (links.latency_s + bytes / links.same_node_bytes_per_s) +
             cross * (links.latency_s + bytes / links.cross_node_bytes_per_s);
    };
  }
  return infer::IterationModel(serving, w.model, s.accelerator, std::move(all_reduce), std::move(stage_sends));
}

GpuLinks gpu_links(const scenario::Scenario& s) {
  const topo::NodeSpec& node = s.cluster.node;
  GpuLinks l;
  l.same_node_bytes_per_s = node.nvlink_bytes_per_s * s.collectives.efficiency.ring;
  const double nics_per_gpu = node.gpus > 0 ? static_cast<double>(node.nics) / node.gpus : 0;
  l.cross_node_bytes_per_s = nics_per_gpu * node.nic_bytes_per_s * s.collectives.efficiency.nic;
  l.latency_s = s.collectives.alpha_ns * 1e-9;
  return l;
}

infer::IterationModel replica_model(const scenario::Scenario& s) { return replica_model(s, s.inference.serving); }

std::vector<sim::SimTime> model_load_times(const scenario::Scenario& s) {
  const scenario::InferenceWorkload& w = s.inference;
  std::vector<sim::SimTime> load;
  if (w.model_load_tier.empty()) return load;
  const auto tier = std::find_if(s.storage.begin(), s.storage.end(),
                                 [&](const storage::TierSpec& t) { return t.name == w.model_load_tier; });
  if (tier == s.storage.end()) throw std::logic_error("model_load: the loader let an unknown tier through");
  // A replica fills a share of a node or `span` whole nodes (a pipeline across them).
  const int gpus = w.gpus_per_replica();
  const int per_node = std::max(1, s.cluster.node.gpus / gpus);
  const int span = std::max(1, gpus / s.cluster.node.gpus);
  const double replica_bytes = w.budget.weight_bytes * gpus;  // every shard of the model
  for (int k = 1; k <= w.autoscaler.max_replicas; ++k) {
    const int nodes = span > 1 ? k * span : (k + per_node - 1) / per_node;
    const double per_node_bytes = span > 1 ? replica_bytes / span : replica_bytes * std::min(k, per_node);
    const double seconds = rel::tier_transfer_s(*tier, s.cluster, nodes, {{nodes, per_node_bytes}}, false, s.seed);
    load.push_back(sim::SimTime::from_ns(std::llround(seconds * 1e9)));
  }
  return load;
}

double InferenceReport::usd_per_hour() const {
  const double duration_s = run.end.to_seconds();
  return cost && duration_s > 0 ? cost->usd_per_gpu_hour * gpu_hours * 3600 / duration_s : 0;
}

double inference_figure(const std::string& key, const InferenceReport& r) {
  const infer::ServiceMetrics& m = r.metrics;
  if (key == "p99_ttft") return m.ttft_s.p99;
  if (key == "p99_tpot") return m.tpot_s.p99;
  if (key == "p99_e2e") return m.e2e_s.p99;
  if (key == "throughput") return m.throughput_tokens_per_s;
  if (scenario::is_cost_expectation(key)) {
    if (!r.cost) throw std::logic_error("inference_figure: " + key + " without a cost result");
    if (key == "capex") return r.cost->capex_usd;
    if (key == "tco") return r.cost->tco_usd;
    if (key == "run_cost") return r.cost->usd_per_step;  // the service over the simulated span
    if (key == "it_power") return r.cost->power_w_it;
    return r.cost->power_w_facility;  // facility_power
  }
  throw std::invalid_argument("inference_figure: no figure \"" + key + "\"");
}

void alone_times(InferenceReport& report, const infer::IterationModel& model) {
  const scenario::InferenceWorkload& w = report.scenario.inference;
  double mean_prompt = 0;
  for (const infer::Request& q : w.requests) mean_prompt += q.prompt;
  const auto prompt = static_cast<std::int64_t>(std::llround(mean_prompt / static_cast<double>(w.requests.size())));
  // A prompt longer than the token budget runs in chunks; each chunk's pass counts.
  for (std::int64_t done = 0; done < prompt;) {
    const std::int64_t n = std::min<std::int64_t>(prompt - done, w.serving.max_batched_tokens);
    infer::IterationWork work{n, 1, done + n == prompt ? 1 : 0, static_cast<double>(n) * done + n * (n + 1) / 2.0,
                              static_cast<double>(done + n)};
    report.alone_prefill_s += model.seconds(work);
    done += n;
  }
  report.alone_decode_s = model.seconds({1, 1, 1, static_cast<double>(prompt + 1), static_cast<double>(prompt + 1)});
}

infer::ServiceSpec service_spec(const scenario::Scenario& s) {
  const scenario::InferenceWorkload& w = s.inference;
  infer::ServiceSpec spec;
  spec.serving = w.serving;
  spec.kv_blocks = w.budget.blocks;
  spec.dispatch_delay = w.dispatch_delay;
  if (w.serving.preemption == infer::Preemption::kSwap) {
    // A block of the decode (or only) pool's cache on one GPU, over that GPU's PCIe link.
    spec.swap.block_bytes = w.budget.bytes_per_token * w.serving.block_tokens;
    spec.swap.bytes_per_s = s.cluster.node.pcie_bytes_per_s;
    spec.swap.capacity_blocks = static_cast<std::int64_t>(w.serving.swap_bytes / spec.swap.block_bytes);
  }
  if (w.autoscaler.enabled) {
    spec.autoscaler = w.autoscaler;
    spec.autoscaler.load = model_load_times(s);
  }
  return spec;
}

InferenceReport evaluate_inference(scenario::Scenario scenario, const InferenceOptions& options) {
  if (scenario.workload != scenario::WorkloadKind::kInference) {
    throw scenario::ScenarioError(scenario.locations.at("workload"), "workload.kind", "kind: inference",
                                  "another workload kind");
  }
  InferenceReport report;
  report.scenario = std::move(scenario);
  const scenario::Scenario& s = report.scenario;
  const scenario::InferenceWorkload& w = s.inference;
  const infer::IterationModel model = replica_model(s);
  alone_times(report, model);
  infer::ServiceSpec spec = service_spec(s);
  report.model_load = spec.autoscaler.load;
  if (options.record_iterations) {
    const auto replicas = static_cast<std::int64_t>(w.node_of.size());  // every replica of every pool
    spec.record_iterations = std::max<std::int64_t>(1000, kTraceIterations / std::max<std::int64_t>(1, replicas));
  }
  sim::RunOptions run;
  // Without a dispatch delay the router and the replicas are one group, which one thread runs:
  // the parallel scheduler needs the delay as its lookahead (service.hpp).
  if (options.threads > 1 && w.dispatch_delay > sim::SimTime::zero()) {
    run.scheduler = sim::Scheduler::kParallel;
    run.threads = options.threads;
  }
  std::optional<infer::IterationModel> prefill_model;
  if (w.prefill_replicas > 0) {
    infer::DisaggregationSpec& d = spec.disaggregation;
    d.prefill_replicas = w.prefill_replicas;
    d.prefill = w.prefill;
    d.prefill_kv_blocks = w.prefill_budget.blocks;
    d.kv_bytes_per_token = 2.0 * w.model.layers * w.model.kv_heads * train::attention_head_dim(w.model) *
                           infer::element_bytes(w.serving.kv);
    // A prefill replica sends over its own GPUs' links: NVLink to a decode replica on its node, its
    // GPUs' share of the node's NICs to one on another node, each at its collectives' efficiency.
    const GpuLinks links = gpu_links(s);
    d.same_node_bytes_per_s = w.prefill.tp * links.same_node_bytes_per_s;
    d.cross_node_bytes_per_s = w.prefill.tp * links.cross_node_bytes_per_s;
    d.transfer_latency = sim::SimTime::from_ns(s.collectives.alpha_ns);
    d.node_of = w.node_of;
    kv_connections(s, d);
    prefill_model.emplace(replica_model(s, w.prefill));
  }
  try {
    report.run = infer::run_service(w.requests, spec, model, s.seed, run, prefill_model ? &*prefill_model : nullptr);
  } catch (const sim::TimeOutOfRange& e) {
    scenario::refuse_serving_beyond_clock(s, e);
  }
  report.metrics = infer::summarize(w.requests, report.run, w.slo);
  // The prefill pool does not scale: its replicas are up for the whole run.
  report.gpu_hours = (report.run.replica_seconds * w.gpus_per_replica() +
                      static_cast<double>(w.prefill_replicas) * w.prefill.tp * report.run.end.to_seconds()) /
                     3600;
  if (s.cost) {
    const cost::Usage usage =
        inference_usage(s, report.gpu_hours, report.metrics.busy_fraction, report.run.end.to_seconds(),
                        static_cast<double>(report.metrics.output_tokens));
    report.cost =
        s.wafer_scale ? wafer::wafer_serving_cost(*s.cost, s.wafer_prices, s.wafer, usage) : price_cluster(s, usage);
  }
  for (const auto& e : s.expectations) {
    const double actual = inference_figure(e.key, report);
    const bool pass = holds(e.op, actual, e.value);
    report.all_pass = report.all_pass && pass;
    report.expectations.push_back({e, actual, pass});
  }
  return report;
}

}  // namespace fathom::report
