#include "cli/training_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>
#include <stdexcept>

#include "cli/commands.hpp"
#include "cli/output_file.hpp"
#include "cli/scenario_run.hpp"
#include "models/workloads/training/step_model.hpp"
#include "models/workloads/training/transformer.hpp"
#include "scenarios/units.hpp"
#include "sim/output/json_writer.hpp"
#include "sim/simulation.hpp"
#include "sim/trace/chrome_trace.hpp"
#include "topologies/cluster.hpp"

namespace fathom::cli {

namespace {

struct Component {
  const char* key;    // JSON key under training.breakdown
  const char* label;  // terminal label
  double seconds;
};

std::vector<Component> components(const train::StepBreakdown& b) {
  return {{"compute", "compute", b.compute},
          {"tp_comm", "tensor-parallel comm (exposed)", b.tp},
          {"cp_comm", "context-parallel comm (exposed)", b.cp},
          {"ep_comm", "expert-parallel comm (exposed)", b.ep},
          {"pp_comm", "pipeline sends (exposed)", b.pp},
          {"pipeline_bubble", "pipeline bubble", b.bubble},
          {"dp_comm", "data-parallel comm (exposed)", b.dp},
          {"optimizer", "optimizer step", b.optimizer}};
}

const char* precision_name(hw::Precision p) { return p == hw::Precision::kFp8 ? "fp8" : "bf16"; }
const char* recompute_name(train::Recompute r) {
  return r == train::Recompute::kFull ? "full" : r == train::Recompute::kSelective ? "selective" : "none";
}

std::string gib(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f GiB", bytes / (1ULL << 30));
  return buf;
}

std::string duration_text(double s) {
  char buf[48];
  if (s >= 86400) {
    std::snprintf(buf, sizeof buf, "%.2f days", s / 86400);
  } else if (s >= 3600) {
    std::snprintf(buf, sizeof buf, "%.2f h", s / 3600);
  } else if (s >= 1) {
    std::snprintf(buf, sizeof buf, "%.3f s", s);
  } else {
    std::snprintf(buf, sizeof buf, "%.3f ms", s * 1e3);
  }
  return buf;
}

struct Outcome {
  const scenario::Expectation* expectation;
  double actual;
  bool pass;
};

double figure(const std::string& key, const train::TrainingResult& r) {
  if (key == "mfu") return r.mfu;
  if (key == "step_time") return r.step_seconds;
  if (key == "tokens_per_s") return r.tokens_per_s;
  if (key == "time_to_train") return r.time_to_train_s;
  if (key == "model_tflops_per_gpu") return r.model_tflops_per_gpu;
  if (key == "hardware_tflops_per_gpu") return r.hardware_tflops_per_gpu;
  return r.memory.peak_bytes;  // peak_memory_per_rank
}

bool holds(const std::string& op, double actual, double wanted) {
  if (op == ">=") return actual >= wanted;
  if (op == "<=") return actual <= wanted;
  if (op == ">") return actual > wanted;
  if (op == "<") return actual < wanted;
  return actual == wanted;
}

void write_memory(sim::JsonWriter& j, const train::MemoryReport& m) {
  j.begin_object();
  j.key("peak_bytes_per_rank");
  j.value(m.peak_bytes);
  j.key("capacity_bytes");
  j.value(m.capacity_bytes);
  j.key("headroom_bytes");  // capacity less the peak: negative when it does not fit
  j.value(m.capacity_bytes - m.peak_bytes);
  j.key("fits");
  j.value(m.fits);
  j.key("peak_stage");
  j.value(m.peak_stage);
  j.key("stages");
  j.begin_array();
  for (const auto& s : m.stages) {
    j.begin_object();
    for (auto [k, v] : {std::pair{"parameters", s.parameters},
                        {"weights_bytes", s.weights},
                        {"gradients_bytes", s.gradients},
                        {"optimizer_bytes", s.optimizer},
                        {"activations_bytes", s.activations},
                        {"communication_bytes", s.communication},
                        {"runtime_reserve_bytes", s.runtime},
                        {"total_bytes", s.total()}}) {
      j.key(k);
      j.value(v);
    }
    j.end_object();
  }
  j.end_array();
  j.end_object();
}

void write_json(std::ostream& out, const scenario::Scenario& s, const topo::Topology& topology,
                const train::TrainingResult& r, const std::vector<Outcome>& outcomes) {
  const train::TrainingSpec& t = s.training;
  sim::JsonWriter j(out, sim::JsonLayout::kPretty, 4);
  j.begin_object();
  j.key("fathom_version");
  j.value(FATHOM_VERSION);
  j.key("scenario");
  j.begin_object();
  j.key("file");
  j.value(s.file);
  j.key("overrides");
  j.begin_array();
  for (const auto& o : s.overrides) j.value(o);
  j.end_array();
  j.key("catalogs");
  j.begin_array();
  for (const auto& f : catalog_folders()) j.value(f);
  for (const auto& f : s.catalog_folders) j.value(f);
  j.end_array();
  j.key("keys");
  j.begin_object();
  for (const auto& [path, text] : s.document) {
    j.key(path);
    j.value(text);
  }
  j.end_object();
  j.end_object();
  j.key("seed");
  j.value(s.seed);
  j.key("catalog_entries");
  j.begin_array();
  for (const auto& e : s.catalog_entries) {
    j.begin_object();
    j.key("kind");
    j.value(e.kind);
    j.key("name");
    j.value(e.name);
    j.key("file");
    j.value(e.file);
    j.end_object();
  }
  j.end_array();
  j.key("cluster");
  j.begin_object();
  j.key("description");
  j.value(topology.summary.description);
  j.key("nodes");
  j.value(s.cluster.nodes);
  j.key("gpus_per_node");
  j.value(s.cluster.node.gpus);
  j.key("accelerator");
  j.value(s.accelerator.name);
  j.key("local_nvme_bytes_per_node");
  j.value(s.cluster.node.local_nvme_bytes);
  j.key("routing");
  j.value(s.cluster.fabric.routing == topo::Routing::kDestination ? "d-mod-k"
          : s.cluster.fabric.routing == topo::Routing::kAdaptive  ? "adaptive"
                                                                  : "ecmp");
  j.key("flows_per_connection");
  j.value(s.collectives.flows_per_connection);
  j.key("warnings");
  j.begin_array();
  for (const auto& w : topology.summary.warnings) {
    j.begin_object();
    j.key("kind");
    j.value(topo::to_string(w.kind));
    j.key("tier");
    j.value(w.tier);
    j.key("ratio");
    j.value(w.ratio);
    j.key("message");
    j.value(w.message);
    j.end_object();
  }
  j.end_array();
  j.end_object();
  j.key("workload");
  j.begin_object();
  j.key("model");
  j.value(t.model.name);
  j.key("parameters");
  j.value(train::parameter_count(t.model));
  for (auto [k, v] : {std::pair{"gpus", t.gpus},
                      {"tp", t.parallel.tp},
                      {"pp", t.parallel.pp},
                      {"cp", t.parallel.cp},
                      {"ep", t.parallel.ep},
                      {"dp", t.parallel.dp},
                      {"virtual_stages", t.parallel.virtual_stages},
                      {"zero", t.parallel.zero_stage},
                      {"sequence", t.sequence},
                      {"global_batch", t.global_batch},
                      {"micro_batch", t.micro_batch},
                      {"micro_batches", t.micro_batches()}}) {
    j.key(k);
    j.value(v);
  }
  j.key("precision");
  j.value(precision_name(t.precision));
  j.key("recompute");
  j.value(recompute_name(t.recompute));
  j.end_object();
  j.key("training");
  j.begin_object();
  j.key("step_time_s");
  j.value(r.step_seconds);
  j.key("mfu");
  j.value(r.mfu);
  j.key("model_tflops_per_gpu");
  j.value(r.model_tflops_per_gpu);
  j.key("hardware_tflops_per_gpu");
  j.value(r.hardware_tflops_per_gpu);
  j.key("tokens_per_s");
  j.value(r.tokens_per_s);
  j.key("time_to_train_s");
  j.value(r.time_to_train_s);
  j.key("gpu_hours");
  j.value(r.gpu_hours);
  j.key("model_flops_per_step");
  j.value(r.flops.model);
  j.key("hardware_flops_per_step");
  j.value(r.flops.hardware);
  j.key("critical_stage");
  j.value(r.critical_stage);
  j.key("breakdown");
  j.begin_object();
  for (const auto& c : components(r.breakdown)) {
    j.key(c.key);
    j.value(c.seconds);
  }
  j.end_object();
  j.key("memory");
  write_memory(j, r.memory);
  j.key("stages");
  j.begin_array();
  for (const auto& st : r.stages) {
    j.begin_object();
    j.key("pipeline_finish_s");
    j.value(st.pipeline_finish.to_seconds());
    j.key("finish_s");
    j.value(st.finish.to_seconds());
    // The stage's data-parallel collectives end to end, hidden behind compute or not.
    double data_parallel_s = 0;
    for (const auto& span : st.dp_spans) data_parallel_s += (span.finish - span.start).to_seconds();
    j.key("data_parallel_s");
    j.value(data_parallel_s);
    j.key("breakdown");
    j.begin_object();
    for (const auto& c : components(st.breakdown)) {
      j.key(c.key);
      j.value(c.seconds);
    }
    j.end_object();
    j.end_object();
  }
  j.end_array();
  j.key("collectives");
  j.begin_array();
  for (const auto& n : r.collective_notes) j.value(n);
  j.end_array();
  j.key("links");
  j.begin_array();
  for (std::size_t i = 0; i < r.links.size() && i < 32; ++i) {
    const auto& l = r.links[i];
    j.begin_object();
    j.key("name");
    j.value(topology.link(l.link).name);
    j.key("class");
    j.value(topo::to_string(topology.link(l.link).cls));
    j.key("bytes_per_step");
    j.value(l.bytes);
    j.key("utilisation");
    j.value(l.utilisation);
    j.end_object();
  }
  j.end_array();
  j.end_object();
  j.key("expectations");
  j.begin_array();
  for (const auto& o : outcomes) {
    j.begin_object();
    j.key("key");
    j.value(o.expectation->key);
    j.key("criterion");
    j.value(o.expectation->text);
    j.key("actual");
    j.value(o.actual);
    j.key("pass");
    j.value(o.pass);
    j.end_object();
  }
  j.end_array();
  j.key("fingerprint");
  j.value(sim::format_fingerprint(r.fingerprint));
  j.end_object();
  out << "\n";
}

void write_trace(std::ostream& out, const topo::Topology& topology, const train::TrainingResult& r,
                 const train::TrainingSpec& t) {
  sim::ChromeTrace trace;
  const int stages = static_cast<int>(r.stages.size());
  for (int s = 0; s < stages; ++s) {
    const int pid = s + 1;
    trace.process_name(pid, "stage " + std::to_string(s));
    trace.thread_name(pid, 2 * s + 1, "compute stream (TP rank 0)");
    trace.thread_name(pid, 2 * s + 2, "data-parallel stream");
    for (const auto& pt : r.pipeline.stages[static_cast<std::size_t>(s)]) {
      std::string name = std::string(pt.pass.forward ? "F" : "B") + std::to_string(pt.pass.micro_batch);
      if (t.parallel.virtual_stages > 1) name += "." + std::to_string(pt.pass.chunk);
      trace.complete(pid, 2 * s + 1, name, pt.start, pt.finish - pt.start, pt.pass.forward ? "forward" : "backward",
                     {{"micro_batch", pt.pass.micro_batch}, {"chunk", pt.pass.chunk}});
    }
    const auto& st = r.stages[static_cast<std::size_t>(s)];
    for (const auto& span : st.dp_spans) {
      trace.complete(pid, 2 * s + 2, "data-parallel collective", span.start, span.finish - span.start, "dp",
                     {{"bytes", span.bytes}});
    }
    trace.complete(pid, 2 * s + 2, "optimizer", st.optimizer_start, st.optimizer_finish - st.optimizer_start,
                   "optimizer");
  }
  // The busiest links, each a track of the data-parallel spans (every stage's groups share them).
  const int link_pid = stages + 1;
  trace.process_name(link_pid, "busiest links");
  std::vector<std::pair<sim::SimTime, sim::SimTime>> spans;
  for (const auto& st : r.stages) {
    for (const auto& span : st.dp_spans) spans.emplace_back(span.start, span.finish);
  }
  std::sort(spans.begin(), spans.end());
  std::vector<std::pair<sim::SimTime, sim::SimTime>> merged;
  for (const auto& sp : spans) {
    if (!merged.empty() && sp.first <= merged.back().second) {
      merged.back().second = std::max(merged.back().second, sp.second);
    } else {
      merged.push_back(sp);
    }
  }
  for (std::size_t i = 0; i < r.links.size() && i < 8; ++i) {
    const int tid = 2 * stages + 1 + static_cast<int>(i);
    const auto& l = r.links[i];
    trace.thread_name(link_pid, tid, topology.link(l.link).name);
    for (const auto& [a, b] : merged) {
      trace.complete(link_pid, tid, "data-parallel traffic", a, b - a, "link",
                     {{"utilisation_over_step", l.utilisation}});
    }
  }
  trace.write(out);
}

// `actual` in the unit its criterion was written in: the criterion's value over the number
// written gives the unit's size (">= 45%": 0.01, "<= 80GB": 1e9, "<= 2h": 3600).
std::string in_written_unit(double actual, const scenario::Expectation& e) {
  const std::size_t begin = e.text.find_first_of("0123456789.");
  char buf[64];
  if (begin != std::string::npos) {
    std::size_t end = begin;
    const double number = std::stod(e.text.substr(begin), &end);
    std::string unit = e.text.substr(begin + end);
    while (!unit.empty() && unit.back() == ' ') unit.pop_back();
    if (number != 0 && e.value != 0 && std::isfinite(e.value / number)) {
      std::snprintf(buf, sizeof buf, "%.4g%s", actual / (e.value / number), unit.c_str());
      return buf;
    }
  }
  std::snprintf(buf, sizeof buf, "%.6g", actual);
  return buf;
}

}  // namespace

int run_training(const scenario::Scenario& s, const TrainingOutputs& o) {
  if (is_stdout(o.json) && is_stdout(o.trace))
    throw std::invalid_argument("--json - and --trace - cannot both write standard output");
  // With an output on standard output (`--json -`) the human report moves to standard error,
  // so that the output can be piped.
  std::FILE* out = is_stdout(o.json) || is_stdout(o.trace) ? stderr : stdout;
  const train::TrainingSpec& t = s.training;
  const train::TrainingResult r = train::simulate_training_step(t, s.accelerator, s.cluster, s.collectives, s.seed);
  const topo::Topology topology = topo::build_cluster(s.cluster);

  std::fprintf(out, "scenario: %s (seed %llu)\n", s.file.c_str(), static_cast<unsigned long long>(s.seed));
  std::fprintf(out, "cluster:  %d nodes x %d %s; %s\n", s.cluster.nodes, s.cluster.node.gpus,
               s.accelerator.name.c_str(), topology.summary.description.c_str());
  print_warnings(topology.summary);
  std::fprintf(
      out, "workload: train %s (%.1fB parameters) on %d GPUs: TP %d, PP %d%s, DP %d, CP %d, EP %d, ZeRO-%d\n",
      t.model.name.c_str(), train::parameter_count(t.model) / 1e9, t.gpus, t.parallel.tp, t.parallel.pp,
      t.parallel.virtual_stages > 1 ? (" x" + std::to_string(t.parallel.virtual_stages) + " virtual").c_str() : "",
      t.parallel.dp, t.parallel.cp, t.parallel.ep, t.parallel.zero_stage);
  std::fprintf(
      out, "          sequence %d, global batch %d, micro-batch %d (%d per replica per step), %s, %s recomputation\n",
      t.sequence, t.global_batch, t.micro_batch, t.micro_batches(), precision_name(t.precision),
      recompute_name(t.recompute));
  print_user_catalog_entries(out, s);

  const train::MemoryReport& m = r.memory;
  std::fprintf(out, "\nmemory per rank (stage %d, the largest):\n", m.peak_stage);
  const auto& peak = m.stages[static_cast<std::size_t>(m.peak_stage)];
  for (auto [label, v] : {std::pair{"weights", peak.weights},
                          {"gradients", peak.gradients},
                          {"optimizer state", peak.optimizer},
                          {"activations", peak.activations},
                          {"communication buffers", peak.communication},
                          {"runtime reserve", peak.runtime}}) {
    std::fprintf(out, "  %-22s %12s\n", label, gib(v).c_str());
  }
  std::fprintf(out, "  %-22s %12s of %s usable (%s %s)\n", "total", gib(m.peak_bytes).c_str(),
               gib(m.capacity_bytes).c_str(), gib(std::abs(m.capacity_bytes - m.peak_bytes)).c_str(),
               m.fits ? "free" : "over");
  if (!r.simulated) {
    const auto it = s.locations.find("workload.parallel");
    const auto at = it != s.locations.end() ? it->second : s.locations.at("workload");
    throw scenario::ScenarioError(at, "workload.parallel",
                                  "a strategy whose ranks fit in " + gib(m.capacity_bytes) + " of HBM",
                                  gib(m.peak_bytes) + " on stage " + std::to_string(m.peak_stage) + " (not simulated)",
                                  "raise tp or pp, use recompute: full, a higher zero stage, or a smaller micro_batch");
  }

  std::fprintf(out, "\nstep time %s (critical stage %d of %d, %d micro-batches)\n",
               duration_text(r.step_seconds).c_str(), r.critical_stage, t.parallel.pp, r.micro_batches);
  std::fprintf(out, "  %-34s %12s %7s\n", "component", "seconds", "share");
  for (const auto& c : components(r.breakdown)) {
    std::fprintf(out, "  %-34s %12.6f %6.1f%%\n", c.label, c.seconds, 100 * c.seconds / r.step_seconds);
  }
  std::fprintf(out, "\n  model FLOP/s per GPU     %8.1f TFLOP/s   MFU %.1f%% of %s peak\n", r.model_tflops_per_gpu,
               100 * r.mfu, precision_name(t.precision));
  std::fprintf(out, "  hardware FLOP/s per GPU  %8.1f TFLOP/s (recomputation included)\n", r.hardware_tflops_per_gpu);
  std::fprintf(out, "  throughput               %.4g tokens/s\n", r.tokens_per_s);
  if (t.tokens > 0) {
    std::fprintf(out, "  time to train %.4g tokens: %s, %.4g GPU-hours\n", t.tokens,
                 duration_text(r.time_to_train_s).c_str(), r.gpu_hours);
  }
  if (!r.links.empty()) {
    const auto& l = r.links.front();
    std::fprintf(out, "  busiest link             %s, %.1f%% utilised over the step\n",
                 topology.link(l.link).name.c_str(), 100 * l.utilisation);
  }
  for (const auto& n : r.collective_notes) std::fprintf(out, "  collective %s\n", n.c_str());

  std::vector<Outcome> outcomes;
  bool all_pass = true;
  if (!s.expectations.empty()) std::fprintf(out, "\nexpectations:\n");
  for (const auto& e : s.expectations) {
    const double actual = figure(e.key, r);
    const bool pass = holds(e.op, actual, e.value);
    all_pass = all_pass && pass;
    outcomes.push_back({&e, actual, pass});
    std::fprintf(out, "  %-4s %-24s %-14s actual %s\n", pass ? "PASS" : "FAIL", e.key.c_str(), e.text.c_str(),
                 in_written_unit(actual, e).c_str());
  }
  std::fprintf(out, "\nfingerprint=%s\n", sim::format_fingerprint(r.fingerprint).c_str());
  if (!o.json.empty()) {
    write_output(o.json, [&](std::ostream& to) { write_json(to, s, topology, r, outcomes); });
  }
  if (!o.trace.empty()) {
    write_output(o.trace, [&](std::ostream& to) { write_trace(to, topology, r, t); });
  }
  return all_pass ? kExitOk : kExitFailedExpectation;
}

}  // namespace fathom::cli
