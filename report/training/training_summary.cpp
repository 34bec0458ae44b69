// The terminal report of a training step (write_training_summary).
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>

#include "models/workloads/training/transformer.hpp"
#include "report/cost/cost_report.hpp"
#include "report/terminal.hpp"
#include "report/training/training_labels.hpp"
#include "report/training/training_report.hpp"
#include "sim/simulation.hpp"

namespace fathom::report {

namespace {

void write_memory(std::FILE* out, const train::MemoryReport& m) {
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
}

}  // namespace

void write_training_summary(std::FILE* out, const TrainingReport& report) {
  const scenario::Scenario& s = report.scenario;
  const train::TrainingSpec& t = s.training;
  const train::TrainingResult& r = report.result;
  std::fprintf(out, "scenario: %s (seed %llu)\n", s.file.c_str(), static_cast<unsigned long long>(s.seed));
  std::fprintf(out, "cluster:  %d nodes x %d %s; %s\n", s.cluster.nodes, s.cluster.node.gpus,
               s.accelerator.name.c_str(), report.result.cluster.description.c_str());
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
  write_memory(out, r.memory);
  if (!report.fits()) return;

  std::fprintf(out, "\nstep time %s (critical stage %d of %d, %d micro-batches)\n",
               duration_text(r.step_seconds).c_str(), r.critical_stage, t.parallel.pp, r.micro_batches);
  std::fprintf(out, "  %-34s %12s %7s\n", "component", "seconds", "share");
  for (const auto& c : components(r.breakdown)) {
    std::fprintf(out, "  %-34s %12.6f %6.1f%%\n", c.label, c.seconds, 100 * c.seconds / r.step_seconds);
  }
  const train::KernelClassSeconds& k = r.breakdown.kernels;
  if (r.breakdown.compute > 0) {
    const double c = r.breakdown.compute;
    std::fprintf(out, "  compute by kernel: GEMM %.1f%%, attention %.1f%%, memory-bound %.1f%%, FP8 casts %.1f%%\n",
                 100 * k.gemm / c, 100 * k.attention / c, 100 * k.memory / c, 100 * k.fp8_casts / c);
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
    std::fprintf(out, "  busiest link             %s, %.1f%% utilised over the step\n", l.name.c_str(),
                 100 * l.utilisation);
  }
  for (const auto& n : r.collective_notes) std::fprintf(out, "  collective %s\n", n.c_str());

  if (report.cost) write_cost_summary(out, *report.cost, *s.cost);
  write_run_summary(out, report);
  write_expectations(out, report.expectations);
  std::fprintf(out, "\nfingerprint=%s\n", sim::format_fingerprint(r.fingerprint).c_str());
}

void write_expectations(std::FILE* out, const std::vector<ExpectationOutcome>& expectations) {
  if (!expectations.empty()) std::fprintf(out, "\nexpectations:\n");
  for (const auto& o : expectations) {
    std::fprintf(out, "  %-4s %-24s %-14s actual %s\n", o.pass ? "PASS" : "FAIL", o.expectation.key.c_str(),
                 o.expectation.text.c_str(), in_written_unit(o.actual, o.expectation).c_str());
  }
}

}  // namespace fathom::report
