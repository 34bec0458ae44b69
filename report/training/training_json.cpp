// The JSON report of a training step (write_training_json); docs/report.md documents the schema.
#include <utility>

#include "models/workloads/training/transformer.hpp"
#include "report/cost/cost_report.hpp"
#include "report/training/training_labels.hpp"
#include "report/training/training_report.hpp"
#include "sim/output/json_writer.hpp"
#include "sim/simulation.hpp"

namespace fathom::report {

namespace {

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

}  // namespace

void write_training_json(std::ostream& out, const TrainingReport& report) {
  const scenario::Scenario& s = report.scenario;
  const train::TrainingResult& r = report.result;
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
  for (const auto& f : report.command_catalogs) j.value(f);
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
  j.value(r.cluster.description);
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
  for (const auto& w : r.cluster.warnings) {
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
  // The compute component by kernel class (seconds; they sum to breakdown.compute).
  j.key("compute_by_kernel");
  j.begin_object();
  j.key("gemm");
  j.value(r.breakdown.kernels.gemm);
  j.key("attention");
  j.value(r.breakdown.kernels.attention);
  j.key("memory_bound");
  j.value(r.breakdown.kernels.memory);
  j.key("fp8_casts");
  j.value(r.breakdown.kernels.fp8_casts);
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
    // What overlapped buckets and parameter gathers, and overlapped pipeline sends, took from the
    // passes beside them (their NCCL channels' SMs): parts of breakdown's dp_comm and pp_comm.
    j.key("overlap_sm_cost_s");
    j.begin_object();
    j.key("data_parallel");
    j.value(st.dp_contention);
    j.key("pipeline");
    j.value(st.pp_contention);
    j.end_object();
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
    j.value(l.name);
    j.key("class");
    j.value(topo::to_string(l.cls));
    j.key("bytes_per_step");
    j.value(l.bytes);
    j.key("utilisation");
    j.value(l.utilisation);
    j.end_object();
  }
  j.end_array();
  j.end_object();
  if (report.cost) {
    j.key("cost");
    write_cost_json(j, *report.cost, *report.scenario.cost);
  }
  write_run_json(j, report);
  write_expectations_json(j, report.expectations);
  j.key("fingerprint");
  j.value(sim::format_fingerprint(r.fingerprint));
  j.end_object();
  out << "\n";
}

void write_expectations_json(sim::JsonWriter& j, const std::vector<ExpectationOutcome>& expectations) {
  j.key("expectations");
  j.begin_array();
  for (const auto& o : expectations) {
    j.begin_object();
    j.key("key");
    j.value(o.expectation.key);
    j.key("criterion");
    j.value(o.expectation.text);
    j.key("actual");
    j.value(o.actual);
    j.key("pass");
    j.value(o.pass);
    j.end_object();
  }
  j.end_array();
}

}  // namespace fathom::report
