// The jobs report's writers: terminal summary, JSON, per-job CSV, cluster timeline CSV.
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "report/jobs/jobs_report.hpp"
#include "report/json_header.hpp"
#include "report/number_text.hpp"
#include "report/terminal.hpp"
#include "sim/output/json_writer.hpp"
#include "sim/simulation.hpp"

namespace fathom::report {

namespace {

// Six significant digits, for the terminal.
std::string g6(double x) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.6g", x);
  return buf;
}

std::string policy_name(const scenario::JobsWorkload& w) {
  const sched::SchedulerSpec& s = w.scheduler;
  std::string scheduler;
  switch (s.policy) {
    case sched::Policy::kQueue:
      scheduler =
          std::string(sched::order_name(s.order)) + ", backfill " + std::string(sched::backfill_name(s.backfill));
      break;
    case sched::Policy::kLas:
      scheduler = "least attained service (" + std::to_string(s.las_thresholds_gpu_s.size() + 1) + " queues)";
      break;
    case sched::Policy::kGang:
      scheduler = "gang scheduling, " + g6(s.quantum.to_seconds()) + " s slices";
      break;
    case sched::Policy::kQuota:
      scheduler = "team quotas (" + std::to_string(s.quotas.size()) + " teams)";
      break;
  }
  if (s.policy != sched::Policy::kQueue) scheduler += ", restart " + g6(w.restart_overhead.to_seconds()) + " s";
  return scheduler + ", placement " + std::string(place::placement_name(w.placement));
}

std::string_view format_name(scenario::TraceFormat f) {
  switch (f) {
    case scenario::TraceFormat::kSwf:
      return "swf";
    case scenario::TraceFormat::kItp:
      return "itp";
    case scenario::TraceFormat::kCsv:
      return "csv";
    case scenario::TraceFormat::kAlibaba:
      return "alibaba";
    case scenario::TraceFormat::kSynthetic:
      return "synthetic";
    case scenario::TraceFormat::kTraining:
      return "training_jobs";
  }
  return "?";
}

std::string_view estimates_name(scenario::EstimateSource e) {
  switch (e) {
    case scenario::EstimateSource::kTrace:
      return "trace";
    case scenario::EstimateSource::kExact:
      return "exact";
    case scenario::EstimateSource::kPredicted:
      return "predicted";
  }
  return "?";
}

std::int64_t left_out_count(const scenario::JobsWorkload& w) {
  std::int64_t n = 0;
  for (const auto& t : w.left_out) n += t.count;
  return n;
}

// Under team quotas: each team's jobs, waits and preemptions, the teams with a quota first.
struct TeamRow {
  std::int32_t team = -1;
  std::int64_t quota = 0;
  std::int64_t jobs = 0;
  double wait_s = 0, jct_s = 0;  // sums, then means
  std::uint64_t preemptions = 0;
};

std::vector<TeamRow> team_rows(const JobsReport& report) {
  const scenario::JobsWorkload& w = report.scenario.jobs;
  std::map<std::int32_t, TeamRow> by_team;
  for (const sched::TeamQuota& q : w.scheduler.quotas) by_team[q.team] = {q.team, q.gpus, 0, 0, 0, 0};
  for (std::size_t i = 0; i < w.jobs.size(); ++i) {
    const jobs::TraceJob& job = w.jobs[i];
    const jobs::JobRun& r = report.run.jobs[i];
    TeamRow& row = by_team.try_emplace(w.team_from_user ? job.user : job.group).first->second;
    row.team = w.team_from_user ? job.user : job.group;
    ++row.jobs;
    row.wait_s += (r.start - job.submit).to_seconds();
    row.jct_s += (r.end - job.submit).to_seconds();
    row.preemptions += r.preemptions;
  }
  std::vector<TeamRow> rows, unlisted;
  for (auto& [team, row] : by_team) {
    if (row.jobs > 0) {
      row.wait_s /= static_cast<double>(row.jobs);
      row.jct_s /= static_cast<double>(row.jobs);
    }
    const bool listed = std::any_of(w.scheduler.quotas.begin(), w.scheduler.quotas.end(),
                                    [&](const sched::TeamQuota& q) { return q.team == team; });
    (listed ? rows : unlisted).push_back(row);
  }
  rows.insert(rows.end(), unlisted.begin(), unlisted.end());
  return rows;
}

void write_team_summary(std::FILE* out, const JobsReport& report) {
  constexpr std::size_t kRows = 20;
  const std::vector<TeamRow> rows = team_rows(report);
  std::fprintf(out, "\n  %-8s %10s %8s %14s %14s %12s\n", "team", "quota", "jobs", "mean wait", "mean JCT",
               "preemptions");
  for (std::size_t i = 0; i < rows.size() && i < kRows; ++i) {
    const TeamRow& t = rows[i];
    std::fprintf(out, "  %-8d %5lld GPUs %8lld %12s s %12s s %12llu\n", t.team, static_cast<long long>(t.quota),
                 static_cast<long long>(t.jobs), g6(t.wait_s).c_str(), g6(t.jct_s).c_str(),
                 static_cast<unsigned long long>(t.preemptions));
  }
  if (rows.size() > kRows) std::fprintf(out, "  ... %zu more teams in --json\n", rows.size() - kRows);
}

void write_team_json(sim::JsonWriter& j, const JobsReport& report) {
  j.key("teams");
  j.begin_array();
  for (const TeamRow& t : team_rows(report)) {
    j.begin_object();
    j.member("team", t.team);
    j.member("quota_gpus", t.quota);
    j.member("jobs", t.jobs);
    j.member("mean_wait_s", t.wait_s);
    j.member("mean_jct_s", t.jct_s);
    j.member("preemptions", t.preemptions);
    j.end_object();
  }
  j.end_array();
}

// What training_jobs ran at: a row per job, step alone and beside its neighbours.
void write_training_jobs_summary(std::FILE* out, const JobsReport& report) {
  const scenario::JobsWorkload& w = report.scenario.jobs;
  constexpr std::size_t kRows = 20;
  std::fprintf(out, "\n  %-16s %6s %5s %6s %8s %12s %8s %12s %12s\n", "training job", "GPUs", "nodes", "leaves",
               "steps", "step alone", "MFU", "run alone", "interference");
  for (std::size_t i = 0; i < w.training.size() && i < kRows; ++i) {
    const jobs::JobRun& r = report.run.jobs[i];
    std::fprintf(out, "  %-16s %6d %5d %6d %8lld %10.4g s %7.2f%% %10.6g s %11.4fx\n", w.training[i].name.c_str(),
                 w.jobs[i].gpus, r.nodes, r.leaves, static_cast<long long>(w.training[i].steps), report.alone[i].step_s,
                 100 * report.alone[i].mfu, w.jobs[i].run.to_seconds(), r.interference);
  }
  if (w.training.size() > kRows) {
    std::fprintf(out, "  ... %zu more in --jobs-out and --json\n", w.training.size() - kRows);
  }
}

void write_training_jobs_json(sim::JsonWriter& j, const JobsReport& report) {
  const scenario::JobsWorkload& w = report.scenario.jobs;
  j.key("training_jobs");
  j.begin_array();
  for (std::size_t i = 0; i < w.training.size(); ++i) {
    const jobs::JobRun& r = report.run.jobs[i];
    const jobs::ModelledStep& m = report.modelled[i];
    j.begin_object();
    j.member("name", w.training[i].name);
    j.member("model", w.training[i].spec.model.name);
    j.member("gpus", w.jobs[i].gpus);
    j.member("steps", w.training[i].steps);
    j.member("step_alone_s", m.step_s);
    j.member("mfu_alone", report.alone[i].mfu);
    j.member("tokens_per_s_alone", report.alone[i].tokens_per_s);
    j.member("reduce_s", m.reduce_s);
    j.member("overhang_s", m.overhang_s);
    j.member("exposed_dp_s", m.exposed_s);
    j.member("run_alone_s", w.jobs[i].run.to_seconds());
    j.member("run_s", (r.end - r.start).to_seconds());
    j.member("interference", r.interference);
    j.key("step_changes");
    j.begin_array();
    for (const jobs::StepChange& c : report.run.step_changes) {
      if (c.job != i) continue;
      j.begin_object();
      j.member("at_s", c.at.to_seconds());
      j.member("step_s", c.step_s);
      j.member("slowdown", c.slowdown);
      j.end_object();
    }
    j.end_array();
    j.end_object();
  }
  j.end_array();
}

}  // namespace

void write_jobs_summary(std::FILE* out, const JobsReport& report) {
  if (report.packing) {
    write_packing_summary(out, report);
    return;
  }
  const scenario::Scenario& s = report.scenario;
  const scenario::JobsWorkload& w = s.jobs;
  const JobsSummary& m = report.summary;
  std::fprintf(out, "scenario: %s (seed %llu)\n", s.file.c_str(), static_cast<unsigned long long>(s.seed));
  std::fprintf(out, "cluster:  %d nodes x %d GPUs = %lld GPUs\n", s.cluster.nodes, s.cluster.node.gpus,
               static_cast<long long>(report.run.total_gpus));
  std::fprintf(out, "workload: jobs, %lld of the trace's %lld (from job %lld, load x%g), %s\n",
               static_cast<long long>(m.count), static_cast<long long>(w.trace_jobs),
               static_cast<long long>(w.first_job), w.load, w.file.c_str());
  for (const auto& t : w.left_out) {
    std::fprintf(out, "          left out: %d %s (first at %s:%d)\n", t.count, t.reason.c_str(), t.first.file.c_str(),
                 t.first.line);
  }
  std::fprintf(out, "policy:   %s; estimates: %s\n", policy_name(w).c_str(),
               w.estimates == scenario::EstimateSource::kExact       ? "exact run times"
               : w.estimates == scenario::EstimateSource::kPredicted ? "predicted from each user's last two jobs"
                                                                     : "the trace's requested times");
  if (w.without_estimate > 0) {
    std::fprintf(out, "          %lld jobs have no requested time: their run time stands in\n",
                 static_cast<long long>(w.without_estimate));
  }
  print_user_catalog_entries(out, s);
  std::fprintf(out, "\n");
  std::fprintf(out, "  makespan                 %s s (%.2f days)\n", g6(m.makespan_s).c_str(), m.makespan_s / 86400);
  std::fprintf(out, "  utilisation              %.2f%% of GPU time over the makespan\n", 100 * m.utilization);
  std::fprintf(out, "  wait                     mean %s s, p50 %s s, p90 %s s, p99 %s s, max %s s\n",
               g6(m.mean_wait_s).c_str(), g6(m.p50_wait_s).c_str(), g6(m.p90_wait_s).c_str(), g6(m.p99_wait_s).c_str(),
               g6(m.max_wait_s).c_str());
  std::fprintf(out, "  bounded slowdown         mean %.4g (run times floored at %g s)\n", m.mean_bounded_slowdown,
               kBoundedSlowdownFloorS);
  std::fprintf(out, "  job completion time      mean %s s\n", g6(m.mean_jct_s).c_str());
  if (m.allocation_ratio >= 0) {
    std::fprintf(out, "  allocated while waiting  %.2f%% of GPUs, over the %s s some job waited\n",
                 100 * m.allocation_ratio, g6(m.waiting_time_s).c_str());
  } else {
    std::fprintf(out, "  allocated while waiting  no job ever waited\n");
  }
  std::fprintf(out, "  queue                    at most %u jobs\n", m.max_queued);
  if (!w.training.empty()) {
    std::fprintf(out, "  interference             mean x%.4f, max x%.4f (run time beside the others over alone)\n",
                 m.mean_interference, m.max_interference);
  }
  if (report.run.preemptions > 0) {
    std::fprintf(out, "  preemptions              %llu\n", static_cast<unsigned long long>(report.run.preemptions));
  }
  if (report.run.overran_estimate > 0) {
    std::fprintf(out, "  past their estimate      %llu jobs ran longer than the scheduler was told\n",
                 static_cast<unsigned long long>(report.run.overran_estimate));
  }
  std::fprintf(out, "  events                   %llu (%llu scheduling decisions)\n",
               static_cast<unsigned long long>(report.run.events),
               static_cast<unsigned long long>(report.run.decisions));
  if (!w.training.empty()) write_training_jobs_summary(out, report);
  if (w.scheduler.policy == sched::Policy::kQuota) write_team_summary(out, report);
  if (!report.services.empty()) write_services_summary(out, report);
  std::fprintf(out, "\nfingerprint=%s\n", sim::format_fingerprint(report.run.fingerprint).c_str());
}

void write_jobs_json(std::ostream& out, const JobsReport& report) {
  if (report.packing) {
    write_packing_json(out, report);
    return;
  }
  const scenario::Scenario& s = report.scenario;
  const scenario::JobsWorkload& w = s.jobs;
  const JobsSummary& m = report.summary;
  sim::JsonWriter j(out, sim::JsonLayout::kPretty, 4);
  begin_report_json(j, s);
  j.key("cluster");
  j.begin_object();
  j.member("nodes", s.cluster.nodes);
  j.member("gpus_per_node", s.cluster.node.gpus);
  j.member("gpus", report.run.total_gpus);
  j.end_object();
  j.key("trace");
  j.begin_object();
  j.member("file", w.file);
  j.member("format", format_name(w.format));
  j.member("trace_jobs", w.trace_jobs);
  j.member("first_job", w.first_job);
  j.member("load", w.load);
  j.member("resample", w.resample);
  j.member("window_offset_s", w.window_offset.to_seconds());
  j.member("left_out", left_out_count(w));
  j.key("left_out_by_reason");
  j.begin_array();
  for (const auto& t : w.left_out) {
    j.begin_object();
    j.member("reason", t.reason);
    j.member("count", t.count);
    j.member("first_line", t.first.line);
    j.end_object();
  }
  j.end_array();
  j.member("estimates", estimates_name(w.estimates));
  j.member("without_estimate", w.without_estimate);
  j.end_object();
  j.key("policy");
  j.begin_object();
  j.member("scheduler", sched::policy_name(w.scheduler.policy));
  j.member("order", sched::order_name(w.scheduler.order));
  j.member("backfill", sched::backfill_name(w.scheduler.backfill));
  j.member("restart_overhead_s", w.restart_overhead.to_seconds());
  j.member("placement", place::placement_name(w.placement));
  j.end_object();
  j.key("jobs");
  j.begin_object();
  j.member("count", m.count);
  j.member("utilization", m.utilization);
  j.member("makespan_s", m.makespan_s);
  j.member("mean_wait_s", m.mean_wait_s);
  j.member("p50_wait_s", m.p50_wait_s);
  j.member("p90_wait_s", m.p90_wait_s);
  j.member("p99_wait_s", m.p99_wait_s);
  j.member("max_wait_s", m.max_wait_s);
  j.member("mean_bounded_slowdown", m.mean_bounded_slowdown);
  j.member("mean_jct_s", m.mean_jct_s);
  j.key("allocation_ratio");
  if (m.allocation_ratio >= 0) {
    j.value(m.allocation_ratio);
  } else {
    j.value(nullptr);
  }
  j.member("waiting_time_s", m.waiting_time_s);
  j.member("max_queued", m.max_queued);
  j.member("overran_estimate", report.run.overran_estimate);
  j.member("preemptions", report.run.preemptions);
  j.member("mean_interference", m.mean_interference);
  j.member("max_interference", m.max_interference);
  j.end_object();
  if (!w.training.empty()) write_training_jobs_json(j, report);
  if (w.scheduler.policy == sched::Policy::kQuota) write_team_json(j, report);
  if (!report.services.empty()) write_services_json(j, report);
  j.key("simulation");
  j.begin_object();
  j.member("events", report.run.events);
  j.member("decisions", report.run.decisions);
  j.member("fingerprint", sim::format_fingerprint(report.run.fingerprint));
  j.end_object();
  j.end_object();
  out << '\n';
}

void write_jobs_csv(std::ostream& out, const JobsReport& report) {
  const scenario::JobsWorkload& w = report.scenario.jobs;
  out << "job,name,user,group,line,submit_s,start_s,end_s,wait_s,run_s,alone_run_s,interference,estimate_s,gpus,nodes,"
         "leaves,slowdown,bounded_slowdown,preemptions,logged_wait_s\n";
  for (std::size_t i = 0; i < w.jobs.size(); ++i) {
    const jobs::TraceJob& job = w.jobs[i];
    const jobs::JobRun& r = report.run.jobs[i];
    const sim::SimTime wait = r.start - job.submit;
    // Slowdowns against the run alone (job.run): a modelled job may run longer beside others.
    const double alone_s = job.run.to_seconds();
    const double response_s = (r.end - job.submit).to_seconds();
    out << job.id << ',' << (i < w.training.size() ? w.training[i].name : std::string()) << ',' << job.user << ','
        << job.group << ',' << job.line << ',' << exact_seconds(job.submit) << ',' << exact_seconds(r.start) << ','
        << exact_seconds(r.end) << ',' << exact_seconds(wait) << ',' << exact_seconds(r.executed) << ','
        << exact_seconds(job.run) << ',' << ten_digits(r.interference) << ',' << exact_seconds(report.run.estimates[i])
        << ',' << job.gpus << ',' << r.nodes << ',' << r.leaves << ','
        << (alone_s > 0 ? ten_digits(response_s / alone_s) : std::string()) << ','
        << ten_digits(std::max(1.0, response_s / std::max(alone_s, kBoundedSlowdownFloorS))) << ',' << r.preemptions
        << ','

        << (job.logged_wait ? exact_seconds(*job.logged_wait) : std::string()) << '\n';
  }
}

void write_cluster_timeline_csv(std::ostream& out, const JobsReport& report) {
  const double total = static_cast<double>(report.run.total_gpus);
  // With services beside the jobs, their GPUs in a last column: busy_gpus are the jobs' alone.
  const bool services = !report.services.empty();
  out << "time_s,busy_gpus,utilisation,queued,running,free_gpus,stranded_gpus,fragmentation"
      << (services ? ",service_gpus\n" : "\n");
  for (const jobs::ClusterSample& c : report.run.timeline) {
    const std::int64_t free = report.run.total_gpus - c.busy_gpus - c.service_gpus;
    out << exact_seconds(c.at) << ',' << c.busy_gpus << ',' << ten_digits(static_cast<double>(c.busy_gpus) / total)
        << ',' << c.queued << ',' << c.running << ',' << free << ',' << c.stranded_gpus << ','
        << ten_digits(free > 0 ? static_cast<double>(c.stranded_gpus) / static_cast<double>(free) : 0.0);
    if (services) out << ',' << c.service_gpus;
    out << '\n';
  }
}

}  // namespace fathom::report
