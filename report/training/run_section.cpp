// The whole run's part of the training reports: the step's data loading, the checkpoint's size
// and times, then the run's replications summarised (docs/run.md, docs/report.md).
#include <cstdio>

#include "report/training/training_labels.hpp"
#include "report/training/training_report.hpp"
#include "sim/output/json_writer.hpp"

namespace fathom::report {

namespace {

struct Part {
  const char* key;
  const char* label;
  std::int64_t rel::RunTime::*ns;
};
constexpr Part kParts[] = {
    {"kept_s", "steps kept", &rel::RunTime::kept_ns},
    {"data_s", "kept steps waiting for data", &rel::RunTime::data_ns},
    {"lost_s", "steps lost and redone", &rel::RunTime::lost_ns},
    {"checkpoint_s", "checkpoints (blocking)", &rel::RunTime::checkpoint_ns},
    {"detection_s", "detecting failures", &rel::RunTime::detection_ns},
    {"waiting_s", "waiting for a node", &rel::RunTime::waiting_ns},
    {"restart_s", "restarting", &rel::RunTime::restart_ns},
    {"restore_s", "reading checkpoints back", &rel::RunTime::restore_ns},
    {"resubmit_s", "resubmitted, queued", &rel::RunTime::resubmit_ns},
};

void interval(sim::JsonWriter& j, const char* key, const sim::MeanInterval& m) {
  j.key(key);
  j.begin_object();
  j.key("mean");
  j.value(m.mean);
  j.key("ci95_low");
  j.value(m.low());
  j.key("ci95_high");
  j.value(m.high());
  j.end_object();
}

void write_availability_summary(std::FILE* out, const TrainingReport& report) {
  if (!report.availability || !report.scenario.availability) return;
  const rel::ServiceSpec& spec = *report.scenario.availability;
  const rel::AvailabilityResult& a = *report.availability;
  std::fprintf(out, "\navailability of the service: %d of %d replicas, %zu dependencies, %d replications of %s\n",
               spec.needed, spec.replicas, spec.depends_on.size(), spec.replications,
               duration_text(spec.horizon_s).c_str());
  std::fprintf(out, "  simulated %.5f%% (+-%.5f), yearly downtime %s\n", 100 * a.simulated.mean,
               100 * a.simulated.half_width, duration_text(a.simulated_downtime_s.mean).c_str());
  if (a.closed_form) {
    std::fprintf(out, "  closed form %.5f%%, yearly downtime %s (k of n replicas, dependencies in series)\n",
                 100 * *a.closed_form, duration_text(*a.closed_form_downtime_s).c_str());
  } else {
    std::fprintf(out, "  closed form: none with a failover time\n");
  }
}

void write_availability_json(sim::JsonWriter& j, const TrainingReport& report) {
  if (!report.availability) return;
  const rel::AvailabilityResult& a = *report.availability;
  j.key("availability");
  j.begin_object();
  interval(j, "simulated", a.simulated);
  interval(j, "yearly_downtime_s", a.simulated_downtime_s);
  j.key("closed_form");
  if (a.closed_form) {
    j.value(*a.closed_form);
  } else {
    j.value(nullptr);
  }
  j.key("closed_form_yearly_downtime_s");
  if (a.closed_form_downtime_s) {
    j.value(*a.closed_form_downtime_s);
  } else {
    j.value(nullptr);
  }
  j.end_object();
}

void write_data_summary(std::FILE* out, const TrainingReport& report) {
  if (!report.data || !report.scenario.data) return;
  const train::DataLoading& d = *report.data;
  const train::DataSpec& spec = *report.scenario.data;
  std::fprintf(out, "\ndata loading from tier %s%s: %d nodes read %.4g samples (%s) each per step, %s\n",
               spec.tier.c_str(), spec.cache.empty() ? "" : (", cached on " + spec.cache).c_str(), d.loading_nodes,
               d.samples_per_node, size_text(d.bytes_per_node).c_str(),
               spec.pattern == train::ReadPattern::kShuffle ? "shuffled" : "sequential");
  std::fprintf(out, "  required %s/s and %.4g IOPS at the step's pace; delivered %s/s cold; tier IOPS %.4g\n",
               size_text(d.required_bytes_per_s).c_str(), d.required_iops, size_text(d.delivered_bytes_per_s).c_str(),
               d.tier_iops);
  std::fprintf(out,
               "  a step's read: cold %s (%s-bound), warm %s (%s-bound, cache hits %.1f%%, %.1f%% of steps cold)\n",
               duration_text(d.cold.seconds).c_str(), d.cold.limit.c_str(), duration_text(d.warm.seconds).c_str(),
               d.warm.limit.c_str(), 100 * d.hit_rate, 100 * d.cold_fraction);
  std::fprintf(out, "  stall %s per step (%.2f%% of the step with it); load %s per sample cold\n",
               duration_text(d.stall_s).c_str(), 100 * d.stall_fraction, duration_text(d.load_per_sample_s).c_str());
  if (d.traffic_step_s > 0) {
    std::fprintf(out,
                 "  the read shares the fabric (%.3g%% of the NIC links it crosses over a step): a step takes %s "
                 "beside it, %s more\n",
                 100 * d.link_load[0], duration_text(d.traffic_step_s).c_str(),
                 duration_text(d.traffic_slowdown_s).c_str());
  }
}

void write_data_json(sim::JsonWriter& j, const TrainingReport& report) {
  if (!report.data || !report.scenario.data) return;
  const train::DataLoading& d = *report.data;
  j.key("data");
  j.begin_object();
  j.member("tier", report.scenario.data->tier);
  j.member("loading_nodes", d.loading_nodes);
  j.member("samples_per_node", d.samples_per_node);
  j.member("bytes_per_node", d.bytes_per_node);
  j.member("requests_per_node", d.requests_per_node);
  j.member("required_bytes_per_s", d.required_bytes_per_s);
  j.member("required_iops", d.required_iops);
  j.member("delivered_bytes_per_s", d.delivered_bytes_per_s);
  j.member("tier_iops", d.tier_iops);
  j.member("cold_read_s", d.cold.seconds);
  j.member("cold_limit", d.cold.limit);
  j.member("warm_read_s", d.warm.seconds);
  j.member("warm_limit", d.warm.limit);
  j.member("cache_hit_rate", d.hit_rate);
  j.member("cold_fraction", d.cold_fraction);
  j.member("stall_s", d.stall_s);
  j.member("data_stall_fraction", d.stall_fraction);
  j.member("load_per_sample_s", d.load_per_sample_s);
  j.member("traffic_step_s", d.traffic_step_s);
  j.member("traffic_slowdown_s", d.traffic_slowdown_s);
  j.end_object();
}

// Where the checkpoint's tier carries its traffic: "fabric" or "storage_network".
std::string_view checkpoint_attach(const scenario::Scenario& s) {
  for (const storage::TierSpec& t : s.storage) {
    if (s.checkpoint && t.name == s.checkpoint->tier) return t.on_fabric() ? "fabric" : "storage_network";
  }
  return "storage_network";
}

void write_whole_run_summary(std::FILE* out, const TrainingReport& report) {
  if (!report.run_setup) return;
  const rel::RunSetup& setup = *report.run_setup;
  const scenario::Scenario& s = report.scenario;
  if (setup.checkpoint && s.checkpoint) {
    const auto& c = *setup.checkpoint;
    std::fprintf(out, "\ncheckpoint %.4g TB (%s, %s) to tier %s%s: written by %d nodes in %s; restore %s\n",
                 c.bytes / 1e12, s.checkpoint->sharded ? "sharded" : "gathered", s.checkpoint->async ? "async" : "sync",
                 s.checkpoint->tier.c_str(), checkpoint_attach(s) == "fabric" ? " over the fabric" : "",
                 c.writing_nodes, duration_text(setup.write_s).c_str(), duration_text(setup.restore_s).c_str());
    std::fprintf(out, "  blocks the steps %s each; every %d steps (%s); Young %s, Daly %s of work\n",
                 duration_text(setup.block_s).c_str(), setup.interval_steps,
                 s.checkpoint->auto_interval ? "auto: Daly's" : "as set", duration_text(setup.young_s).c_str(),
                 duration_text(setup.daly_s).c_str());
    if (setup.drain_step_s > 0) {
      std::fprintf(out,
                   "  the drain shares the fabric (%.1f%% of the NIC links it crosses, %.1f%% leaf-spine): a step "
                   "takes %s behind it, %s lost per checkpoint\n",
                   100 * setup.drain_link_load[0], 100 * setup.drain_link_load[1],
                   duration_text(setup.drain_step_s).c_str(), duration_text(setup.drain_slowdown_s).c_str());
    }
  }
  if (!report.run) return;
  const rel::RunResult& r = *report.run;
  const rel::RunInputs& in = r.inputs;
  std::fprintf(out, "\nwhole run: %d replications, %s, mean time between interruptions %s\n", in.replications,
               in.steps > 0 ? ("to " + std::to_string(in.steps) + " steps").c_str()
                            : ("for " + duration_text(static_cast<double>(in.duration_ns) / 1e9)).c_str(),
               duration_text(r.mtbf_s).c_str());
  std::fprintf(out, "  %s %s (95%% interval %s to %s)\n", in.steps > 0 ? "time to train " : "wall time     ",
               duration_text(r.wall_s.mean).c_str(), duration_text(r.wall_s.low()).c_str(),
               duration_text(r.wall_s.high()).c_str());
  std::fprintf(out, "  effective training time %.2f%% (+-%.2f), goodput %.4g tokens/s\n",
               100 * r.effective_training_time.mean, 100 * r.effective_training_time.half_width,
               r.goodput_tokens_per_s.mean);
  std::fprintf(out, "  interruptions %.1f unplanned per run (+-%.1f); recovery p50 %s, p99 %s; lost %.4g GPU-hours\n",
               r.interruptions.mean, r.interruptions.half_width, duration_text(r.recovery_p50_s).c_str(),
               duration_text(r.recovery_p99_s).c_str(), r.lost_gpu_hours.mean);
  std::fprintf(out, "  %-28s %14s %7s\n", "wall time spent on", "mean", "share");
  for (const Part& p : kParts) {
    const double sec = static_cast<double>(r.mean_time.*p.ns) / 1e9;
    if (p.ns == &rel::RunTime::data_ns && !report.data) continue;
    std::fprintf(out, "  %-28s %14s %6.2f%%\n", p.label, duration_text(sec).c_str(),
                 100 * sec / (static_cast<double>(r.mean_time.wall_ns) / 1e9));
  }
  std::fprintf(out, "  %-28s %8s\n", "interruptions by component", "per run");
  for (int c = 0; c < rel::kComponents; ++c) {
    const double n = r.interruptions_by_component[static_cast<std::size_t>(c)];
    if (n > 0)
      std::fprintf(out, "  %-28s %8.1f\n", std::string(rel::component_name(static_cast<rel::Component>(c))).c_str(), n);
  }
}

void write_whole_run_json(sim::JsonWriter& j, const TrainingReport& report) {
  if (!report.run_setup) return;
  const rel::RunSetup& setup = *report.run_setup;
  const scenario::Scenario& s = report.scenario;
  if (setup.checkpoint && s.checkpoint) {
    const auto& c = *setup.checkpoint;
    j.key("checkpoint");
    j.begin_object();
    j.key("tier");
    j.value(s.checkpoint->tier);
    j.key("attach");
    j.value(checkpoint_attach(s));
    j.key("bytes");
    j.value(c.bytes);
    j.key("writing_nodes");
    j.value(c.writing_nodes);
    j.key("bytes_per_writing_node");
    j.value(c.bytes_per_writing_node);
    j.key("restore_bytes");
    j.value(c.restore_bytes());
    j.key("write_s");
    j.value(setup.write_s);
    j.key("block_s");
    j.value(setup.block_s);
    j.key("drain_s");
    j.value(setup.drain_s);
    j.key("restore_s");
    j.value(setup.restore_s);
    j.key("drain_step_s");
    j.value(setup.drain_step_s);
    j.key("drain_slowdown_s");
    j.value(setup.drain_slowdown_s);
    j.key("drain_link_load");
    j.begin_object();
    j.key("nic_leaf");
    j.value(setup.drain_link_load[0]);
    j.key("leaf_spine");
    j.value(setup.drain_link_load[1]);
    j.key("spine_core");
    j.value(setup.drain_link_load[2]);
    j.end_object();
    j.key("interval_steps");
    j.value(setup.interval_steps);
    j.key("young_interval_s");
    j.value(setup.young_s);
    j.key("daly_interval_s");
    j.value(setup.daly_s);
    j.end_object();
  }
  if (!report.run) return;
  const rel::RunResult& r = *report.run;
  j.key("run");
  j.begin_object();
  j.key("replications");
  j.value(r.inputs.replications);
  j.key("steps");
  j.value(r.inputs.steps);
  j.key("duration_s");
  j.value(static_cast<double>(r.inputs.duration_ns) / 1e9);
  j.key("spares");
  j.value(r.inputs.spares);
  j.key("mtbf_s");
  j.value(r.mtbf_s);
  interval(j, r.inputs.steps > 0 ? "time_to_train_s" : "wall_time_s", r.wall_s);
  interval(j, "effective_training_time", r.effective_training_time);
  interval(j, "goodput_tokens_per_s", r.goodput_tokens_per_s);
  interval(j, "unplanned_interruptions", r.interruptions);
  interval(j, "lost_gpu_hours", r.lost_gpu_hours);
  j.key("interruptions");
  j.begin_object();
  for (int c = 0; c < rel::kComponents; ++c) {
    j.key(std::string(rel::component_name(static_cast<rel::Component>(c))));
    j.value(r.interruptions_by_component[static_cast<std::size_t>(c)]);
  }
  j.end_object();
  j.key("recovery_s");
  j.begin_object();
  j.key("p50");
  j.value(r.recovery_p50_s);
  j.key("p99");
  j.value(r.recovery_p99_s);
  j.end_object();
  j.member("data_stall_fraction", report.data ? report.data->stall_fraction : 0.0);
  j.key("checkpoint_write_s");
  j.value(setup.write_s);
  j.key("restore_s");
  j.value(setup.restore_s);
  j.key("time");
  j.begin_object();
  for (const Part& p : kParts) {
    j.key(p.key);
    j.value(static_cast<double>(r.mean_time.*p.ns) / 1e9);
  }
  j.key("wall_s");
  j.value(static_cast<double>(r.mean_time.wall_ns) / 1e9);
  j.end_object();
  j.end_object();
}

}  // namespace

void write_run_summary(std::FILE* out, const TrainingReport& report) {
  write_data_summary(out, report);
  write_whole_run_summary(out, report);
  write_availability_summary(out, report);
}

void write_run_json(sim::JsonWriter& j, const TrainingReport& report) {
  write_data_json(j, report);
  write_whole_run_json(j, report);
  write_availability_json(j, report);
}

}  // namespace fathom::report
