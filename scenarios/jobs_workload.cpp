#include "scenarios/jobs_workload.hpp"

#include <charconv>
#include <cmath>
#include <filesystem>
#include <set>
#include <utility>

#include "scenarios/distribution_reader.hpp"
#include "scenarios/yaml_reader.hpp"

namespace fathom::scenario {

namespace {

class Reader {
 public:
  Reader(std::map<std::string, Location>& locations) : locations_(locations) {}
  void note(const ValueReader& v) { locations_[v.path()] = v.location(); }
  void note(const MapReader& m) { locations_[m.path()] = m.location(); }
  // The key's value, noted, if present.
  std::optional<ValueReader> find(MapReader& m, std::string_view key) {
    auto v = m.find(key);
    if (v) note(*v);
    return v;
  }

 private:
  std::map<std::string, Location>& locations_;
};

JobCsvColumns read_columns(MapReader c) {
  JobCsvColumns columns;
  columns.submit = c.required<std::string>("submit", "the name of the column of submit times (s)");
  columns.run = c.required<std::string>("run", "the name of the column of run times (s)");
  columns.gpus = c.required<std::string>("gpus", "the name of the column of GPU counts");
  columns.id = c.optional<std::string>("id", "", "the name of the column of job ids");
  columns.estimate = c.optional<std::string>("estimate", "", "the name of the column of requested times (s)");
  columns.user = c.optional<std::string>("user", "", "the name of the column of users");
  columns.group = c.optional<std::string>("group", "", "the name of the column of groups");
  c.finish();
  return columns;
}

void read_generator(jobs::JobGeneratorSpec& g, MapReader& t, Reader& r) {
  const auto note = [&](const ValueReader& v) { r.note(v); };
  g.interarrival_s = read_distribution(t, "interarrival", kDurationDistribution, note);
  g.gpus = read_distribution(t, "gpus", "a number of GPUs, or {values: [1, 8], weights: [0.9, 0.1]}", note);
  g.run_s = read_distribution(t, "run", kDurationDistribution, note);
}

// `fill`: "130%" or 1.3, a positive fraction of the cluster's GPUs (above 1 allowed).
double read_fill(const ValueReader& v) {
  constexpr std::string_view kWhat = "a positive share of the cluster's GPUs, such as 130% or 1.3";
  std::string text = v.as<std::string>(kWhat);
  const bool percent = !text.empty() && text.back() == '%';
  if (percent) text.pop_back();
  double x = 0;
  const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), x, std::chars_format::fixed);
  if (text.empty() || ec != std::errc() || p != text.data() + text.size() || !(x > 0) || !std::isfinite(x)) {
    v.fail(std::string(kWhat));
  }
  return percent ? x / 100 : x;
}

// format: alibaba, the packing experiment: the pod list, the node list (which must be the
// cluster's nodes), the fill level and the placement policy.
void read_packing(JobsWorkload& w, MapReader& m, MapReader& t, const ValueReader& file,
                  const std::string& scenario_file, int cluster_nodes, Reader& r) {
  const ValueReader nodes = t.value("nodes", "the node list (a CSV: sn,cpu_milli,memory_mib,gpu,model)");
  r.note(nodes);
  w.nodes_file = resolve(scenario_file, nodes.as<std::string>("a file path"));
  for (auto key : {"member", "columns", "first_job", "jobs", "load", "oversize"}) {
    t.forbid(key, "not with format: alibaba (the packing experiment draws from every pod)");
  }
  t.finish();
  const ValueReader fill = m.value("fill", "how much GPU demand arrives, such as 130% (the packing experiment)");
  r.note(fill);
  w.fill = read_fill(fill);
  for (auto key : {"estimates", "scheduler"}) {
    m.forbid(key, "not with format: alibaba (the packing experiment places every task as it arrives)");
  }
  r.find(m, "placement");
  const std::string policy = m.one_of("placement", {"first-fit", "best-fit", "random", "packing", "fgd"}, "first-fit");
  w.share_policy = policy == "best-fit"  ? place::SharePolicy::kBestFit
                   : policy == "random"  ? place::SharePolicy::kRandom
                   : policy == "packing" ? place::SharePolicy::kPacking
                   : policy == "fgd"     ? place::SharePolicy::kFgd
                                         : place::SharePolicy::kFirstFit;
  w.share_tasks = read_alibaba_pods(w.file, file.location(), t.path() + ".file");
  w.share_nodes = read_alibaba_nodes(w.nodes_file, nodes.location(), t.path() + ".nodes");
  w.trace_jobs = static_cast<std::int64_t>(w.share_tasks.size());
  if (static_cast<std::size_t>(cluster_nodes) != w.share_nodes.nodes.size()) {
    throw ScenarioError(nodes.location(), t.path() + ".nodes",
                        "a node list of the cluster's " + std::to_string(cluster_nodes) + " nodes",
                        std::to_string(w.share_nodes.nodes.size()) + " nodes",
                        "set cluster.nodes to the list's count: its rows give each node's GPUs, CPU and memory");
  }
}

// `scheduler` and `placement`: who starts when, and where.
void read_policy(JobsWorkload& w, MapReader& m, Reader& r, std::int64_t cluster_gpus) {
  MapReader s = m.optional_child("scheduler");
  r.note(s);
  for (auto key : {"policy", "order", "backfill", "thresholds", "quantum", "teams", "team_of", "restart_overhead",
                   "checkpoint_save", "checkpoint_tier"})
    r.find(s, key);
  const std::string policy = s.one_of("policy", {"queue", "las", "gang", "quota"}, "queue");
  sched::SchedulerSpec& spec = w.scheduler;
  spec.policy = policy == "las"     ? sched::Policy::kLas
                : policy == "gang"  ? sched::Policy::kGang
                : policy == "quota" ? sched::Policy::kQuota
                                    : sched::Policy::kQueue;
  const bool queue = spec.policy == sched::Policy::kQueue;
  if (queue) {
    spec.order =
        s.one_of("order", {"fcfs", "sjf"}, "fcfs") == "sjf" ? sched::QueueOrder::kSjf : sched::QueueOrder::kFcfs;
    const std::string backfill = s.one_of("backfill", {"none", "easy", "conservative"}, "easy");
    spec.backfill = backfill == "none"   ? sched::Backfill::kNone
                    : backfill == "easy" ? sched::Backfill::kEasy
                                         : sched::Backfill::kConservative;
    if (w.services.empty()) {
      s.forbid("restart_overhead",
               "only with a preemptive policy (las, gang, quota) or services: nothing is stopped otherwise");
    } else {
      w.restart_overhead = s.duration("restart_overhead", sim::SimTime::zero());
    }
  } else {
    if (!w.services.empty()) {
      s.fail("policy", "queue: services run beside the queue policies (fcfs or sjf, any backfill)",
             "a preemptive policy would stop the jobs the services stop; they do not yet share the cluster");
    }
    s.forbid("order", "only with policy: queue (" + policy + " orders the jobs itself)");
    s.forbid("backfill", "only with policy: queue (" + policy + " runs whatever fits, in its own order)");
    w.restart_overhead = s.duration("restart_overhead", sim::SimTime::zero());
  }
  if (w.services.empty()) {
    s.forbid("checkpoint_save", "only with services: a job a service preempts writes its checkpoint first");
    s.forbid("checkpoint_tier", "only with services: a job a service preempts writes its checkpoint first");
  } else {
    w.checkpoint_save = s.duration("checkpoint_save", sim::SimTime::zero());
    w.checkpoint_tier = s.optional<std::string>("checkpoint_tier", "", "a storage tier's name (under storage:)");
  }
  if (spec.policy == sched::Policy::kLas) {
    // Thresholds of attained service: GPU-time, written as durations ("1h": one GPU-hour).
    ListReader t = s.optional_list("thresholds");
    if (!t.empty()) {
      spec.las_thresholds_gpu_s.clear();
      for (std::size_t i = 0; i < t.size(); ++i) {
        const ValueReader v = t.at(i);
        const double x = v.duration(Sign::kPositive).to_seconds();
        if (!spec.las_thresholds_gpu_s.empty() && x <= spec.las_thresholds_gpu_s.back())
          v.fail("GPU-times in ascending order, each above the one before");
        spec.las_thresholds_gpu_s.push_back(x);
      }
    }
  } else {
    s.forbid("thresholds", "only with policy: las");
  }
  if (spec.policy == sched::Policy::kGang) {
    spec.quantum = s.duration("quantum", spec.quantum, Sign::kPositive);
  } else {
    s.forbid("quantum", "only with policy: gang");
  }
  if (spec.policy == sched::Policy::kQuota) {
    w.team_from_user = s.one_of("team_of", {"group", "user"}, "group") == "user";
    ListReader teams = s.list("teams");
    if (teams.empty()) teams.fail("a list of teams, each {team: N, gpus: G}");
    std::int64_t guaranteed = 0;
    std::set<std::int32_t> seen;
    for (std::size_t i = 0; i < teams.size(); ++i) {
      MapReader t = teams.at(i).map();
      r.note(t);
      for (auto key : {"team", "gpus", "priority"}) r.find(t, key);
      sched::TeamQuota q;
      q.team = t.required<std::int32_t>("team", "the team's number: the trace's group (or user) id");
      if (!seen.insert(q.team).second) t.fail("team", "each team once");
      q.gpus = t.count("gpus", Sign::kNonNegative);
      q.priority = t.optional<int>("priority", 0, "an integer: higher borrows idle GPUs first");
      guaranteed += q.gpus;
      if (guaranteed > cluster_gpus) {
        t.fail("gpus", "quotas that add up to at most the cluster's " + std::to_string(cluster_gpus) + " GPUs");
      }
      t.finish();
      spec.quotas.push_back(q);
    }
  } else {
    s.forbid("teams", "only with policy: quota");
    s.forbid("team_of", "only with policy: quota");
  }
  s.finish();
  if (const auto v = r.find(m, "placement"); v && v->is_scalar()) {
    const std::string& x = v->node().Scalar();
    if (x == "random" || x == "packing" || x == "fgd") {
      m.fail("placement", "first-fit, best-fit or topology-aware",
             "random, packing and fgd place shares of GPUs: only with format: alibaba");
    }
  }
  const std::string placement = m.one_of("placement", {"first-fit", "best-fit", "topology-aware"}, "first-fit");
  w.placement = placement == "best-fit"         ? place::PlacementPolicy::kBestFit
                : placement == "topology-aware" ? place::PlacementPolicy::kTopologyAware
                                                : place::PlacementPolicy::kFirstFit;
}

// `training_jobs`, read by the scenario loader into w.training: each job's submit time and GPUs.
void read_training_trace(JobsWorkload& w, MapReader& m, Reader& r, std::int64_t cluster_gpus) {
  m.forbid("trace", "not with training_jobs (the jobs are listed there)");
  m.forbid("estimates", "not with training_jobs (the scheduler is told each job's run time alone)");
  m.forbid("fill", "only with format: alibaba (the packing experiment)");
  read_policy(w, m, r, cluster_gpus);
  w.format = TraceFormat::kTraining;
  w.file = "training_jobs";
  w.estimates = EstimateSource::kExact;
  for (std::size_t i = 0; i < w.training.size(); ++i) {
    jobs::TraceJob job;
    job.id = static_cast<std::int64_t>(i) + 1;
    job.submit = w.training_submit[i];
    job.gpus = w.training[i].spec.gpus;
    job.group = w.training_team[i];
    job.status = jobs::JobStatus::kCompleted;
    job.line = w.training_at[i].line;
    // Its run time is its steps at its step time alone, known once the step is simulated
    // (report/jobs): the loader only orders and sizes the jobs.
    w.jobs.push_back(job);
    w.job_estimates.push_back(sim::SimTime::zero());
  }
  w.trace_jobs = static_cast<std::int64_t>(w.jobs.size());
}

}  // namespace

std::string resolve(const std::string& scenario_file, const std::string& written) {
  std::filesystem::path path = written;
  if (path.is_relative()) path = std::filesystem::path(scenario_file).parent_path() / path;
  return path.lexically_normal().string();
}

void read_jobs_workload(JobsWorkload& w, MapReader& m, const std::string& scenario_file, int cluster_nodes,
                        std::int64_t cluster_gpus, std::uint64_t seed, std::map<std::string, Location>& locations) {
  Reader r(locations);
  if (!w.training.empty()) {
    read_training_trace(w, m, r, cluster_gpus);
    return;
  }
  MapReader t = m.child("trace");
  r.note(t);
  r.find(t, "format");
  const std::string format = t.one_of("format", {"swf", "itp", "csv", "alibaba", "synthetic"});
  w.format = format == "swf"       ? TraceFormat::kSwf
             : format == "itp"     ? TraceFormat::kItp
             : format == "csv"     ? TraceFormat::kCsv
             : format == "alibaba" ? TraceFormat::kAlibaba
                                   : TraceFormat::kSynthetic;
  std::optional<ValueReader> file;
  if (w.format == TraceFormat::kSynthetic) {
    t.forbid("file", "not with format: synthetic (its jobs are drawn from the distributions)");
    w.file = "synthetic";
  } else {
    file = t.value("file", "a job trace file, relative to the scenario's folder");
    r.note(*file);
    w.file = resolve(scenario_file, file->as<std::string>("a file path"));
  }
  if (w.format == TraceFormat::kAlibaba) {
    m.forbid("services", "not with format: alibaba (the packing experiment places pods, not replicas over time)");
    read_packing(w, m, t, *file, scenario_file, cluster_nodes, r);
    return;
  }
  t.forbid("nodes", "only with format: alibaba");
  m.forbid("fill", "only with format: alibaba (the packing experiment)");
  if (w.format == TraceFormat::kSynthetic) {
    read_generator(w.generator, t, r);
  } else {
    for (auto key : {"interarrival", "gpus", "run"}) t.forbid(key, "only with format: synthetic");
    if (const auto v = r.find(t, "resample")) w.resample = v->count(Sign::kPositive);
  }
  std::optional<ValueReader> member;
  if (w.format == TraceFormat::kItp) {
    member = r.find(t, "member");
    w.member = t.optional<std::string>("member", "all", "a member of the archive (cluster04.csv), or all");
  } else {
    t.forbid("member", "only with format: itp");
  }
  if (w.format == TraceFormat::kCsv) {
    MapReader c = t.child("columns");
    r.note(c);
    w.columns = read_columns(std::move(c));
  } else {
    t.forbid("columns", "only with format: csv (the other formats name their own columns)");
  }
  for (auto key : {"first_job", "jobs", "load", "oversize"}) r.find(t, key);
  if (w.format == TraceFormat::kSynthetic) {
    t.forbid("first_job", "not with format: synthetic (jobs says how many to draw)");
    t.forbid("resample", "not with format: synthetic");
    w.generator.jobs = t.count("jobs", Sign::kPositive);
  } else {
    w.first_job = t.count("first_job", 1, Sign::kPositive);
    w.window = t.count("jobs", 0, Sign::kPositive);
  }
  w.load = t.optional<double>("load", 1.0, "a positive number");
  if (!(w.load > 0) || !std::isfinite(w.load))
    t.fail("load", "a positive arrival-rate multiplier (2 halves every gap)");
  w.oversize =
      t.one_of("oversize", {"error", "drop"}, "error") == "drop" ? OversizePolicy::kDrop : OversizePolicy::kError;
  const Location first_job_at =
      locations.count(t.path() + ".first_job") ? locations[t.path() + ".first_job"] : t.location();
  const Location window_at = locations.count(t.path() + ".jobs") ? locations[t.path() + ".jobs"] : t.location();
  t.finish();

  r.find(m, "estimates");
  const std::string estimates = m.one_of("estimates", {"trace", "exact", "predicted"}, "trace");
  w.estimates = estimates == "exact"       ? EstimateSource::kExact
                : estimates == "predicted" ? EstimateSource::kPredicted
                                           : EstimateSource::kTrace;
  read_policy(w, m, r, cluster_gpus);

  // The trace, as its format reads it.
  const std::string file_key = t.path() + ".file";
  std::vector<jobs::TraceJob> all;
  switch (w.format) {
    case TraceFormat::kSwf: {
      SwfTrace swf = read_swf(w.file, file->location(), file_key);
      all = std::move(swf.jobs);
      w.left_out = std::move(swf.skipped);
      w.logged_processors = swf.header.machine_processors();
      break;
    }
    case TraceFormat::kItp: {
      const Location member_at = member ? member->location() : t.location();
      all = read_itp_archive(w.file, file->location(), file_key, w.member, member_at, t.path() + ".member").jobs;
      break;
    }
    case TraceFormat::kCsv:
      all = read_job_csv(w.file, file->location(), file_key, w.columns).jobs;
      break;
    case TraceFormat::kSynthetic:
      all = jobs::generate_jobs(w.generator, seed);
      break;
    case TraceFormat::kAlibaba:   // read by read_packing
    case TraceFormat::kTraining:  // read by read_training_trace
      break;
  }
  w.trace_jobs = static_cast<std::int64_t>(all.size());

  // The window.
  const std::int64_t n = w.trace_jobs;
  if (w.first_job > n) {
    throw ScenarioError(first_job_at, t.path() + ".first_job",
                        "a position within the trace's " + std::to_string(n) + " jobs", std::to_string(w.first_job));
  }
  const std::int64_t last = w.window > 0 ? w.first_job - 1 + w.window : n;
  if (last > n) {
    throw ScenarioError(window_at, t.path() + ".jobs",
                        "a window within the trace's " + std::to_string(n) + " jobs (" +
                            std::to_string(n - w.first_job + 1) + " from job " + std::to_string(w.first_job) + " on)",
                        std::to_string(w.window));
  }
  std::vector<jobs::TraceJob> window(all.begin() + (w.first_job - 1), all.begin() + last);
  if (w.resample > 0) window = jobs::resample_jobs(window, w.resample, seed);
  w.window_offset = window.front().submit;
  const std::string oversize_reason = "larger than the cluster's " + std::to_string(cluster_gpus) + " GPUs";
  for (jobs::TraceJob job : window) {
    // A generated job has no line: its size came from the `gpus` key.
    const Location at = job.line > 0 ? Location{w.file, job.line, 1} : locations[t.path() + ".gpus"];
    if (job.gpus > cluster_gpus) {
      if (w.oversize == OversizePolicy::kError) {
        throw ScenarioError(at, job.line > 0 ? file_key : t.path() + ".gpus",
                            "jobs of at most the cluster's " + std::to_string(cluster_gpus) + " GPUs",
                            "job " + std::to_string(job.id) + " asking for " + std::to_string(job.gpus),
                            "set workload.trace.oversize: drop to leave such jobs out, counted");
      }
      add_tally(w.left_out, oversize_reason, at);
      continue;
    }
    const double gap_ns = static_cast<double>((job.submit - w.window_offset).ns()) / w.load;
    job.submit = sim::SimTime::from_ns(std::llround(gap_ns));
    sim::SimTime estimate = job.run;
    if (w.estimates != EstimateSource::kExact) {
      if (job.estimate) {
        estimate = *job.estimate;
      } else {
        ++w.without_estimate;
      }
    }
    w.jobs.push_back(job);
    w.job_estimates.push_back(estimate);
  }
  if (w.jobs.empty()) {
    throw ScenarioError(first_job_at, t.path(), "a window with at least one job the cluster can hold",
                        "every job of the window " + oversize_reason);
  }
}

}  // namespace fathom::scenario
