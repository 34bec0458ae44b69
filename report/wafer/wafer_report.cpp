#include "report/wafer/wafer_report.hpp"

#include <stdexcept>
#include <utility>

#include "models/workloads/training/transformer.hpp"
#include "models/workloads/wafer/swarmx_streams.hpp"
#include "report/cost/cost_report.hpp"
#include "report/json_header.hpp"
#include "report/topology_report.hpp"
#include "report/traffic/csv_tables.hpp"
#include "report/training/training_labels.hpp"
#include "scenarios/units.hpp"
#include "sim/output/json_writer.hpp"

namespace fathom::report {

namespace {

double tflops(double flops) { return flops / 1e12; }

}  // namespace

double wafer_figure(const std::string& key, const WaferReport& report) {
  const wafer::WaferStep& step = report.step;
  if (key == "step_time") return step.step_s;
  if (key == "tokens_per_s") return step.tokens_per_s;
  if (key == "time_to_train") return step.time_to_train_s;
  if (key == "mfu") return step.utilization;
  if (report.cost) {
    const cost::CostResult& c = *report.cost;
    if (key == "capex") return c.capex_usd;
    if (key == "tco") return c.tco_usd;
    if (key == "run_cost") return c.usd_per_run;
    if (key == "it_power") return c.power_w_it;
    if (key == "facility_power") return c.power_w_facility;
  }
  throw std::invalid_argument("wafer_figure: no figure " + key);
}

WaferReport evaluate_wafer(scenario::Scenario scenario) {
  WaferReport r;
  r.step = wafer::weight_streaming_step(scenario.wafer_training, scenario.wafer);
  if (scenario.cost) {
    r.cost = wafer::wafer_cost(*scenario.cost, scenario.wafer_prices, scenario.wafer, r.step,
                               scenario.wafer_training.tokens);
  }
  for (const scenario::Expectation& e : scenario.expectations) {
    ExpectationOutcome o;
    o.expectation = e;
    o.actual = wafer_figure(e.key, r);
    o.pass = holds(e.op, o.actual, e.value);
    r.all_pass = r.all_pass && o.pass;
    r.expectations.push_back(std::move(o));
  }
  r.scenario = std::move(scenario);
  return r;
}

void write_wafer_summary(std::FILE* out, const WaferReport& report) {
  const scenario::Scenario& s = report.scenario;
  const wafer::WaferCluster& c = s.wafer;
  const wafer::WaferTrainingSpec& t = s.wafer_training;
  const wafer::WaferStep& r = report.step;
  std::fprintf(out, "scenario: %s (seed %llu)\n", s.file.c_str(), static_cast<unsigned long long>(s.seed));
  std::fprintf(out, "cluster:  %d x %s (%.4g PFLOP/s dense at %.0f%%, %s SRAM, %.4g Tb/s I/O)\n", c.systems,
               c.system.name.c_str(), c.system.peak_dense_flops / 1e15, 100 * c.system.compute_efficiency,
               size_text(c.system.sram_bytes).c_str(), c.system.io_bytes_per_s * 8 / 1e12);
  std::fprintf(out, "          %s (%s, %.4g Tb/s), SwarmX fan-out %d: %d level(s), %d node(s)\n",
               c.memoryx.name.c_str(), size_text(c.memoryx.capacity_bytes).c_str(), c.memoryx.bytes_per_s * 8 / 1e12,
               c.swarmx.fan_out, r.swarmx_levels, r.swarmx_nodes);
  std::fprintf(out, "workload: %s (%.4g B parameters), weight streaming, sequence %d, global batch %d\n",
               t.model.name.c_str(), train::parameter_count(t.model) / 1e9, t.sequence, t.global_batch);
  std::fprintf(out, "          %d samples a system in %d micro-batch(es) of %d, recompute %s\n", r.per_system_batch,
               r.micro_batches, r.micro_batch, recompute_name(t.recompute));

  const wafer::WaferMemory& m = r.memory;
  std::fprintf(out, "\nmemory:\n");
  std::fprintf(out, "  MemoryX  %12s of %s (weights and optimizer state, %.4g bytes a parameter)\n",
               size_text(m.memoryx_bytes).c_str(), size_text(m.memoryx_capacity).c_str(), t.state_bytes_per_parameter);
  std::fprintf(out, "  wafer    %12s of %s: activations %s, weights in flight %s, gradients out %s\n",
               size_text(m.sram_bytes()).c_str(), size_text(m.sram_capacity).c_str(),
               size_text(m.activation_bytes).c_str(), size_text(m.weight_buffer_bytes).c_str(),
               size_text(m.gradient_buffer_bytes).c_str());

  std::fprintf(out, "\nstep time  %s\n", duration_text(r.step_s).c_str());
  std::fprintf(out, "  busy over the step (they overlap):\n");
  for (auto [label, v] : {std::pair{"compute on the wafers", r.compute_s},
                          {"weights streaming down", r.weight_stream_s},
                          {"gradients streaming up", r.gradient_stream_s},
                          {"MemoryX's update", r.update_s}}) {
    std::fprintf(out, "    %-26s %12.6f s %6.1f%%\n", label, v, 100 * v / r.step_s);
  }
  if (c.input_workers > 0) {
    std::fprintf(out, "    %-26s %12.6f s %6.1f%% (%d x %s at %.4g Gb/s)\n", "input from the workers", r.input_s,
                 100 * r.input_s / r.step_s, c.input_workers, c.input_worker.name.c_str(),
                 c.input_worker.bytes_per_s * 8 / 1e9);
  }
  std::fprintf(out, "  one layer, one micro-batch: forward %s, backward %s; weights %s, gradients %s, update %s\n",
               duration_text(r.layer_forward_compute_s).c_str(), duration_text(r.layer_backward_compute_s).c_str(),
               duration_text(r.layer_weight_stream_s).c_str(), duration_text(r.layer_gradient_stream_s).c_str(),
               duration_text(r.layer_update_s).c_str());
  std::fprintf(
      out, "  balance point: a micro-batch of %.1f samples computes a layer as fast as its weights stream (%s)\n",
      r.balance_micro_batch, r.micro_batch >= r.balance_micro_batch ? "compute-bound here" : "stream-bound here");
  std::fprintf(out, "\n  throughput     %.4g tokens/s\n", r.tokens_per_s);
  std::fprintf(out, "  model FLOP/s   %.4g TFLOP/s a system, %.1f%% of the dense peak\n",
               tflops(r.model_flops_per_step / r.step_s / c.systems), 100 * r.utilization);
  if (t.tokens > 0)
    std::fprintf(out, "  time to train %.4g tokens: %s\n", t.tokens, duration_text(r.time_to_train_s).c_str());
  if (r.power_w > 0 && !report.cost) {
    std::fprintf(out, "  power          %.4g kW (the parts whose power is given)\n", r.power_w / 1e3);
  }
  if (report.cost) write_cost_summary(out, *report.cost, *s.cost, "step", "system");
  write_expectations(out, report.expectations);
}

void write_wafer_json(std::ostream& out, const WaferReport& report) {
  const scenario::Scenario& s = report.scenario;
  const wafer::WaferCluster& c = s.wafer;
  const wafer::WaferTrainingSpec& t = s.wafer_training;
  const wafer::WaferStep& r = report.step;
  sim::JsonWriter j(out, sim::JsonLayout::kPretty, 4);
  begin_report_json(j, s);
  j.key("cluster");
  j.begin_object();
  j.member("kind", std::string("wafer-scale"));
  j.member("systems", c.systems);
  j.key("system");
  j.begin_object();
  j.member("name", c.system.name);
  j.member("sram_bytes", c.system.sram_bytes);
  j.member("peak_dense_flops", c.system.peak_dense_flops);
  j.member("peak_sparse_flops", c.system.peak_sparse_flops);
  j.member("compute_efficiency", c.system.compute_efficiency);
  j.member("io_bytes_per_s", c.system.io_bytes_per_s);
  j.end_object();
  j.key("memoryx");
  j.begin_object();
  j.member("name", c.memoryx.name);
  j.member("capacity_bytes", c.memoryx.capacity_bytes);
  j.member("bytes_per_s", c.memoryx.bytes_per_s);
  j.member("update_bytes_per_s", c.memoryx.update_bytes_per_s);
  j.end_object();
  j.key("swarmx");
  j.begin_object();
  j.member("name", c.swarmx.name);
  j.member("fan_out", c.swarmx.fan_out);
  j.member("levels", r.swarmx_levels);
  j.member("nodes", r.swarmx_nodes);
  j.member("link_bytes_per_s", c.swarmx.link_bytes_per_s);
  j.member("hop_latency_s", static_cast<double>(c.swarmx.hop_latency_ns) * 1e-9);
  j.end_object();
  j.end_object();
  j.key("model");
  j.begin_object();
  j.member("name", t.model.name);
  j.member("parameters", train::parameter_count(t.model));
  j.end_object();
  j.key("training");
  j.begin_object();
  j.member("sequence", t.sequence);
  j.member("global_batch", t.global_batch);
  j.member("per_system_batch", r.per_system_batch);
  j.member("micro_batch", r.micro_batch);
  j.member("micro_batches", r.micro_batches);
  j.member("recompute", std::string(recompute_name(t.recompute)));
  j.member("step_time_s", r.step_s);
  j.key("busy_s");
  j.begin_object();
  j.member("compute", r.compute_s);
  j.member("weight_stream", r.weight_stream_s);
  j.member("gradient_stream", r.gradient_stream_s);
  j.member("update", r.update_s);
  j.member("input", r.input_s);
  j.end_object();
  j.key("layer_s");
  j.begin_object();
  j.member("forward", r.layer_forward_compute_s);
  j.member("backward", r.layer_backward_compute_s);
  j.member("weight_stream", r.layer_weight_stream_s);
  j.member("gradient_stream", r.layer_gradient_stream_s);
  j.member("update", r.layer_update_s);
  j.end_object();
  j.member("balance_micro_batch", r.balance_micro_batch);
  j.member("tokens_per_s", r.tokens_per_s);
  j.member("model_flops_per_step", r.model_flops_per_step);
  j.member("mfu", r.utilization);
  j.member("time_to_train_s", r.time_to_train_s);
  j.member("power_w", r.power_w);
  j.end_object();
  j.key("memory");
  j.begin_object();
  j.member("memoryx_bytes", r.memory.memoryx_bytes);
  j.member("memoryx_capacity_bytes", r.memory.memoryx_capacity);
  j.member("activation_bytes", r.memory.activation_bytes);
  j.member("weight_buffer_bytes", r.memory.weight_buffer_bytes);
  j.member("gradient_buffer_bytes", r.memory.gradient_buffer_bytes);
  j.member("sram_capacity_bytes", r.memory.sram_capacity);
  j.end_object();
  if (report.cost) {
    j.key("cost");
    write_cost_json(j, *report.cost, *s.cost);
  }
  write_expectations_json(j, report.expectations);
  j.end_object();
  out << "\n";
}

void write_wafer_topology(std::FILE* out, const scenario::Scenario& scenario) {
  const wafer::WaferCluster& c = scenario.wafer;
  const topo::SwarmXTree tree = wafer::build_tree(c.systems, c.system, c.memoryx, c.swarmx);
  std::fprintf(out, "%s\n\n", tree.topology.summary.description.c_str());
  write_topology_counts(out, tree.topology);
  const auto& nodes = tree.topology.summary.switches_per_tier;
  std::fprintf(out, "\n  level           nodes  link up to the level above\n");
  std::fprintf(out, "  systems  %12d  %s, %s\n", c.systems,
               scenario::format_bytes_per_s(c.system.io_bytes_per_s).c_str(), c.system.name.c_str());
  for (int l = 1; l <= tree.levels; ++l) {
    const bool root = l == tree.levels;
    std::fprintf(out, "  SwarmX %d %12zu  %s%s\n", l, nodes.at(static_cast<std::size_t>(l)),
                 scenario::format_bytes_per_s(root ? c.memoryx.bytes_per_s : c.swarmx.link_bytes_per_s).c_str(),
                 root ? ", to MemoryX" : "");
  }
  std::fprintf(out, "  MemoryX  %12d  %s, %s\n", 1, size_text(c.memoryx.capacity_bytes).c_str(),
               c.memoryx.name.c_str());
  std::fprintf(out, "\nevery link %s one way; streams move in chunks of %s\n",
               duration_text(static_cast<double>(c.swarmx.hop_latency_ns) * 1e-9).c_str(),
               size_text(c.swarmx.chunk_bytes).c_str());
}

void write_wafer_links_csv(std::ostream& out, const scenario::Scenario& scenario) {
  const wafer::WaferCluster& c = scenario.wafer;
  write_links_csv(out, wafer::build_tree(c.systems, c.system, c.memoryx, c.swarmx).topology);
}

void write_wafer_serving_topology(std::FILE* out, const scenario::Scenario& scenario) {
  const wafer::WaferCluster& c = scenario.wafer;
  const scenario::InferenceWorkload& w = scenario.inference;
  const int wafers = w.serving.tp * w.serving.pp;
  std::fprintf(out, "%d x %s serving %s: %d replica(s) of %d wafer(s), tp %d x pp %d\n\n", c.systems,
               c.system.name.c_str(), w.model.name.c_str(), w.serving.replicas, wafers, w.serving.tp, w.serving.pp);
  std::fprintf(out, "every system: one wafer, %s of SRAM, one link of %s to a switch joining the systems\n",
               size_text(c.system.sram_bytes).c_str(), scenario::format_bytes_per_s(c.system.io_bytes_per_s).c_str());
  std::fprintf(out,
               "a replica: each layer split over %d wafer(s) (all-reduces through the switch), its layers in %d "
               "stage(s) (activations passed stage to stage)\n",
               w.serving.tp, w.serving.pp);
  std::fprintf(out, "systems in use: %d of %d; every link %s one way\n", wafers * w.serving.replicas, c.systems,
               duration_text(static_cast<double>(c.swarmx.hop_latency_ns) * 1e-9).c_str());
}

}  // namespace fathom::report
