// The go-live criteria, in the report's order (docs/go-live.md gives each one's target and
// source). Each rule reads the runs and returns its rows; a rule whose figure fathom cannot
// model yet returns a "not modelled yet" row naming the issue that adds the model.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "report/golive/criterion_rows.hpp"
#include "report/golive/golive_report.hpp"
#include "report/training/training_labels.hpp"

namespace fathom::report {

namespace {

using criteria::count_text;
using criteria::find;
using criteria::from_expectation;
using criteria::margin;
using criteria::number;
using criteria::percent;
using criteria::verdict;

// A row that needs the step, for a strategy that does not fit.
Criterion needs_a_step(std::string name, std::string target) {
  Criterion c;
  c.name = std::move(name);
  c.target = std::move(target);
  c.verdict = Verdict::kNotEvaluated;
  c.remedy = "make the strategy fit in memory first (the memory row)";
  return c;
}

// The largest thing between the accelerators and their peak, and what reduces it.
std::string largest_loss(const GoLiveRun& run) {
  const train::StepBreakdown& b = run.training.result.breakdown;
  const scenario::Scenario& s = run.training.scenario;
  const double gpu_nic_gbps = s.cluster.node.nics * s.cluster.node.nic_bytes_per_s * 8 / 1e9 / s.cluster.node.gpus;
  const std::vector<std::pair<double, std::string>> losses = {
      {b.bubble,
       "the pipeline bubble: more micro-batches per replica (a larger global batch or fewer replicas), the interleaved "
       "schedule with more virtual stages, or fewer pipeline stages"},
      {b.dp, "exposed data-parallel communication: more NIC bandwidth per GPU (this node has " +
                 number("%.0f", gpu_nic_gbps) +
                 " Gb/s per GPU), fewer data-parallel replicas, or a larger global batch so that the reduction is a "
                 "smaller share of the step"},
      {b.tp, "exposed tensor-parallel communication: keep tp within the NVLink domain, or a lower tp"},
      {b.pp, "pipeline sends: fewer pipeline stages, or faster links between the nodes of a replica"},
      {b.cp, "the context-parallel exchange: a lower cp"},
      {b.ep, "the expert-parallel all-to-all: experts on fewer nodes, or more NIC bandwidth"},
      {b.optimizer, "the optimizer step: a higher ZeRO stage shards it over more ranks"},
      {b.straggler,
       "waiting for the slowest GPU: fewer GPUs per synchronous step, or screening out slow GPUs before the run"},
  };
  const auto worst =
      std::max_element(losses.begin(), losses.end(), [](const auto& a, const auto& z) { return a.first < z.first; });
  return "the largest loss is " + worst->second;
}

std::vector<Criterion> throughput(const GoLiveReport& g) {
  const TrainingReport& t = g.cluster.training;
  const std::string name = "Training throughput against peak (MFU)";
  const ExpectationOutcome* e = find(t.expectations, "mfu");
  if (!t.fits()) {
    return {needs_a_step(name, e ? e->expectation.text : ">= " + percent(g.scenario().report.mfu))};
  }
  Criterion c;
  if (e != nullptr) {
    c = from_expectation(name, *e);
  } else {
    const double target = g.scenario().report.mfu;
    c.name = name;
    c.predicted = percent(t.result.mfu);
    c.target = ">= " + percent(target) + " (report.mfu)";
    c.verdict = verdict(t.result.mfu >= target);
    c.margin = margin(">=", t.result.mfu, target);
  }
  const ReachablePeak& p = *g.cluster.peak;
  c.note = "Of the accelerator's " + number("%.0f", p.peak_flops / 1e12) +
           " TFLOP/s dense peak, the kernels (GEMMs, attention) reach " + percent(p.kernel_efficiency) +
           " while they run, and " + percent(p.useful) +
           " of the FLOPs executed are the model's (the rest is recomputation): with no bubble, no exposed "
           "communication and no optimizer time, MFU would reach at most " +
           percent(p.ceiling) + ". The step of the critical stage is " + percent(p.compute_share) + " compute, " +
           percent(p.bubble_share) + " pipeline bubble, " + percent(p.communication_share) +
           " exposed communication, " + percent(p.optimizer_share) + " optimizer and " + percent(p.straggler_share) +
           " waiting for the slowest rank.";
  if (c.verdict == Verdict::kFail) {
    c.remedy = p.ceiling < (e ? e->expectation.value : g.scenario().report.mfu)
                   ? "the kernels alone cannot reach the target: FP8 precision, larger GEMMs (a larger micro-batch or "
                     "a lower tp), or less recomputation"
                   : largest_loss(g.cluster);
  }
  return {c};
}

std::vector<Criterion> gpu_utilisation(const GoLiveReport& g) {
  const double target = g.scenario().report.gpu_busy;
  const std::string name = "GPU utilisation (share of the step computing)";
  if (!g.cluster.training.fits()) return {needs_a_step(name, ">= " + percent(target))};
  const ReachablePeak& p = *g.cluster.peak;
  Criterion c;
  c.name = name;
  c.predicted = percent(p.busy);
  c.target = ">= " + percent(target) + " (report.gpu_busy)";
  c.verdict = verdict(p.busy >= target);
  c.margin = margin(">=", p.busy, target);
  c.note =
      "Each stage's compute time over the step, averaged over the pipeline stages (the figure the cost model "
      "scales the accelerators' power by).";
  if (c.verdict == Verdict::kFail) c.remedy = largest_loss(g.cluster);
  return {c};
}

std::vector<Criterion> fabric(const GoLiveReport& g) {
  const double target = g.scenario().report.bandwidth;
  Criterion c;
  c.name = "Inter-node bandwidth utilisation";
  c.target = ">= " + percent(target) + " of the NICs' line rate (report.bandwidth)";
  if (!g.cluster.bandwidth) {
    c.verdict = Verdict::kNotEvaluated;
    c.remedy = "one node: no inter-node fabric to check";
    return {c};
  }
  const FabricBandwidth& f = *g.cluster.bandwidth;
  c.predicted = percent(f.utilisation()) + " (" + number("%.1f", f.bus_bytes_per_s / 1e9) + " of " +
                number("%.1f", f.line_rate_bytes_per_s / 1e9) + " GB/s)";
  c.verdict = verdict(f.utilisation() >= target);
  c.margin = margin(">=", f.utilisation(), target);
  const int nodes = g.scenario().cluster.nodes;
  c.note = "nccl-tests all_reduce_perf bus bandwidth of a " + gib(f.message_bytes) + " message over the " +
           std::to_string(f.gpus) + " GPUs of " +
           (f.nodes == nodes ? "all " + std::to_string(nodes)
                             : "the first " + std::to_string(f.nodes) + " of " + std::to_string(nodes)) +
           " nodes (report.bandwidth_nodes; " + f.algorithm + ", " + (f.closed_form ? "its closed form" : "simulated") +
           "), over one node's NIC line rate, which bounds an all-reduce across nodes.";
  if (c.verdict == Verdict::kFail) {
    c.remedy =
        "the fabric loses bandwidth: check its oversubscription and routing (fathom topology), the PCIe link "
        "to each NIC and collectives.efficiency.nic, then measure nccl-tests on the pilot (fathom validate)";
  }
  return {c};
}

std::vector<Criterion> memory(const GoLiveReport& g) {
  const train::MemoryReport& m = g.cluster.training.result.memory;
  const double headroom = g.scenario().report.memory_headroom;
  const double limit = m.capacity_bytes * (1 - headroom);
  Criterion c;
  c.name = "72-hour run without OOM (peak memory per rank)";
  c.predicted = gib(m.peak_bytes) + " of " + gib(m.capacity_bytes) + (m.fits ? "" : " (does not fit)");
  c.target = "<= " + gib(limit) + " (" + percent(headroom) + " of usable HBM free, report.memory_headroom)";
  c.verdict = verdict(m.peak_bytes <= limit);
  c.margin = margin("<=", m.peak_bytes, limit);
  c.note =
      "The peak stage's weights, gradients, optimizer state, activations in flight, buffers and the runtime's "
      "reserve, against HBM x memory_fraction; the headroom is for what a long run adds to the steady step "
      "(allocator fragmentation, longer documents, evaluation passes, checkpoint staging).";
  if (c.verdict == Verdict::kFail) {
    c.remedy = "free memory on stage " + std::to_string(m.peak_stage) +
               ": a larger tp or pp, recompute: full, a higher ZeRO stage, or a smaller micro-batch";
  }
  return {c};
}

std::vector<Criterion> time_to_train(const GoLiveReport& g) {
  const TrainingReport& t = g.cluster.training;
  const std::string name = "Time to train against the deadline";
  if (!(g.scenario().training.tokens > 0)) return {};
  const ExpectationOutcome* e = find(t.expectations, "time_to_train");
  if (!t.fits()) return {needs_a_step(name, e ? e->expectation.text : "none")};
  const bool whole_run = t.run && t.run->inputs.steps > 0;
  Criterion c = criteria::time_to_train_row(t.expectations, whole_run ? t.run->wall_s.mean : t.result.time_to_train_s);
  c.note = whole_run
               ? "The whole run's mean over " + std::to_string(t.run->inputs.replications) +
                     " replications, failures, restarts and checkpoints included (docs/run.md)."
               : number("%.3g", g.scenario().training.tokens) + " tokens at " + number("%.4g", t.result.tokens_per_s) +
                     " tokens/s, with no failures, restarts or checkpoints (add workload.run: docs/run.md).";
  if (c.verdict == Verdict::kFail) {
    c.remedy = "more nodes (fathom plan finds the fewest that meet the deadline), or a faster strategy";
  }
  return {c};
}

std::vector<Criterion> cost_and_power(const GoLiveReport& g) {
  const TrainingReport& t = g.cluster.training;
  if (!t.cost) return {};
  return criteria::cost_rows(*t.cost, t.expectations, g.scenario().training.tokens > 0);
}

// Every `expect:` criterion no row above holds the cluster to.
std::vector<Criterion> other_expectations(const GoLiveReport& g) {
  return criteria::remaining_expectations(
      g.cluster.training.expectations,
      {"mfu", "time_to_train", "capex", "tco", "run_cost", "it_power", "facility_power", "recovery_time",
       "effective_training_time", "availability", "storage_iops", "data_load_per_sample"});
}

std::vector<Criterion> pilot_path(const GoLiveReport& g) {
  const double target = g.scenario().report.scaling;
  Criterion c;
  c.name = "Pilot then production: scaling efficiency";
  c.target = ">= " + percent(target) + " of the pilot's tokens/s per GPU (report.scaling)";
  if (!g.pilot) {
    c.verdict = Verdict::kNotEvaluated;
    c.remedy = "name the pilot's scenario under report.pilot";
    return {c};
  }
  const GoLiveRun& pilot = *g.pilot;
  if (!pilot.training.fits() || !g.cluster.training.fits()) {
    c.verdict = Verdict::kFail;
    c.predicted = std::string(pilot.training.fits() ? "this cluster's" : "the pilot's") + " strategy does not fit";
    c.remedy = "make both strategies fit in memory";
    return {c};
  }
  const double here = g.cluster.tokens_per_s_per_gpu();
  const double there = pilot.tokens_per_s_per_gpu();
  const double efficiency = there > 0 ? here / there : 0;
  c.predicted =
      percent(efficiency) + " (" + number("%.0f", here) + " vs " + number("%.0f", there) + " tokens/s per GPU)";
  c.verdict = verdict(efficiency >= target);
  c.margin = margin(">=", efficiency, target);
  c.note = "This cluster's tokens/s per GPU over the pilot's (" + pilot.training.scenario.file + ", " +
           std::to_string(pilot.training.scenario.training.gpus) + " GPUs): weak scaling from pilot to production.";
  if (c.verdict == Verdict::kFail) c.remedy = largest_loss(g.cluster);
  return {c};
}

// A whole run's figure held to `expect: key` or, without it, to the report's target.
Criterion run_criterion(const GoLiveReport& g, std::string name, const std::string& key, double actual,
                        const std::string& op, double target, std::string target_text, std::string predicted) {
  return criteria::held_to(std::move(name), g.cluster.training.expectations, key, actual, op, target, target_text,
                           std::move(predicted));
}

// Without a whole run: not evaluated, and how to get one.
Criterion needs_a_run(std::string name, std::string target) {
  Criterion c;
  c.name = std::move(name);
  c.target = std::move(target);
  c.verdict = Verdict::kNotEvaluated;
  c.remedy = "add workload.run (and checkpoint:) to simulate the whole run (docs/run.md)";
  return c;
}

std::vector<Criterion> failure_recovery(const GoLiveReport& g) {
  const TrainingReport& t = g.cluster.training;
  const std::string name = "Recovery from a failure (p99)";
  const double target = g.scenario().report.recovery_time_s;
  if (!t.run) return {needs_a_run(name, "<= " + duration_text(target))};
  Criterion c = run_criterion(g, name, "recovery_time", t.run->recovery_p99_s, "<=", target, duration_text(target),
                              duration_text(t.run->recovery_p99_s));
  c.note =
      "From each unplanned interruption to training again (detection, a node, restart, the checkpoint's read) "
      "over " +
      std::to_string(t.run->inputs.replications) + " replications; p50 " + duration_text(t.run->recovery_p50_s) +
      ". The deployment guides ask for at most 5 minutes.";
  if (c.verdict == Verdict::kFail) {
    c.remedy = "shorter failures.detection and failures.restart (health checks, faster start-up), spares ready";
  }
  return {c};
}

std::vector<Criterion> effective_training(const GoLiveReport& g) {
  const TrainingReport& t = g.cluster.training;
  const std::string name = "Effective training time through failures";
  const double target = g.scenario().report.effective_training_time;
  if (!t.run) return {needs_a_run(name, ">= " + percent(target))};
  const double ett = t.run->effective_training_time.mean;
  Criterion c = run_criterion(g, name, "effective_training_time", ett, ">=", target, percent(target),
                              percent(ett) + " (+-" + percent(t.run->effective_training_time.half_width) + ")");
  c.note = "The share of the whole run's wall time spent on steps it kept, over " +
           std::to_string(t.run->inputs.replications) + " replications; " + number("%.1f", t.run->interruptions.mean) +
           " unplanned interruptions per run.";
  if (c.verdict == Verdict::kFail) {
    c.remedy = "faster recovery (failures.detection, failures.restart), checkpoint interval: auto, a faster tier";
  }
  return {c};
}

std::vector<Criterion> availability(const GoLiveReport& g) {
  const TrainingReport& t = g.cluster.training;
  const std::string name = "Availability of a service";
  const double target = g.scenario().report.availability;
  if (!t.availability) {
    Criterion c;
    c.name = name;
    c.target = ">= " + number("%.2f%%", 100 * target);
    c.verdict = Verdict::kNotEvaluated;
    c.remedy = "describe the service under availability: (replicas, mtbf, repair, failover, depends_on; docs/run.md)";
    return {c};
  }
  const rel::AvailabilityResult& a = *t.availability;
  Criterion c = run_criterion(
      g, name, "availability", a.simulated.mean, ">=", target, number("%.2f%%", 100 * target),
      number("%.4f%%", 100 * a.simulated.mean) + " (" + duration_text(a.simulated_downtime_s.mean) + " down a year)");
  c.note = a.closed_form ? "Simulated; the k-of-n closed form gives " + number("%.4f%%", 100 * *a.closed_form) + "."
                         : "Simulated (no closed form with a failover time).";
  if (c.verdict == Verdict::kFail) c.remedy = "more replicas, faster repair or failover, more available dependencies";
  return {c};
}

std::vector<Criterion> storage_and_data(const GoLiveReport& g) {
  const TrainingReport& t = g.cluster.training;
  const scenario::ReportSpec& spec = g.scenario().report;
  const std::string iops_name = "Storage IOPS", load_name = "Data loading per sample (cold start)";
  const std::string iops_target = ">= " + count_text(spec.storage_iops);
  const std::string load_target = "<= " + duration_text(spec.data_load_per_sample_s);
  if (!t.data) {
    std::vector<Criterion> rows;
    for (const auto& [name, target] : {std::pair{iops_name, iops_target}, {load_name, load_target}}) {
      Criterion c;
      c.name = name;
      c.target = target;
      c.verdict = Verdict::kNotEvaluated;
      c.remedy = "describe what each step reads under workload.data (tier, bytes_per_sample; docs/run.md)";
      rows.push_back(std::move(c));
    }
    return rows;
  }
  const train::DataLoading& d = *t.data;
  Criterion iops =
      run_criterion(g, iops_name, "storage_iops", d.tier_iops, ">=", spec.storage_iops, count_text(spec.storage_iops),
                    count_text(d.tier_iops) + " (the step needs " + count_text(d.required_iops) + ")");
  iops.note = "The data tier's random reads per second for the whole job (tier " + t.scenario.data->tier + ").";
  if (d.tier_iops == 0 && !find(t.expectations, "storage_iops")) {
    iops.verdict = Verdict::kNotEvaluated;
    iops.predicted = "not given (the step needs " + count_text(d.required_iops) + ")";
    iops.margin = 0;
    iops.remedy = "give storage." + t.scenario.data->tier + ".iops (its datasheet, or fio through fathom calibrate)";
  }
  if (iops.verdict == Verdict::kFail) iops.remedy = "a tier with more drives or servers, or a node-local cache";
  Criterion load =
      run_criterion(g, load_name, "data_load_per_sample", d.load_per_sample_s, "<=", spec.data_load_per_sample_s,
                    duration_text(spec.data_load_per_sample_s), duration_text(d.load_per_sample_s));
  load.note = "A loading node's step read from the tier with an empty cache (" + d.cold.limit + "-bound) over its " +
              number("%.4g", d.samples_per_node) + " samples; the step stalls " + duration_text(d.stall_s) +
              " for data (" + percent(d.stall_fraction) + ").";
  if (load.verdict == Verdict::kFail) {
    load.remedy = d.cold.limit == "latency" ? "more loader workers (workload.data.workers)"
                                            : "a faster tier, larger requests (pattern: sequential) or a cache";
  }
  return {iops, load};
}

// The inference service the cluster will also run (`report.service`).
std::vector<Criterion> inference_service(const GoLiveReport& g) { return criteria::service_rows(g.service); }

}  // namespace

const std::vector<CriterionRule>& golive_criteria() {
  static const std::vector<CriterionRule> rules = {
      {"throughput", throughput},
      {"gpu_utilisation", gpu_utilisation},
      {"fabric_bandwidth", fabric},
      {"memory", memory},
      {"time_to_train", time_to_train},
      {"cost", cost_and_power},
      {"expect", other_expectations},
      {"pilot", pilot_path},
      {"inference", inference_service},
      {"failure_recovery", failure_recovery},
      {"effective_training_time", effective_training},
      {"storage", storage_and_data},
      {"availability", availability},
  };
  return rules;
}

}  // namespace fathom::report
