#include "scenarios/jobs_workload.hpp"

#include <cmath>
#include <filesystem>
#include <utility>

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

}  // namespace

void read_jobs_workload(JobsWorkload& w, MapReader& m, const std::string& scenario_file, std::int64_t cluster_gpus,
                        std::map<std::string, Location>& locations) {
  Reader r(locations);
  MapReader t = m.child("trace");
  r.note(t);
  const ValueReader file = t.value("file", "a job trace file, relative to the scenario's folder");
  r.note(file);
  std::filesystem::path path = file.as<std::string>("a file path");
  if (path.is_relative()) path = std::filesystem::path(scenario_file).parent_path() / path;
  w.file = path.lexically_normal().string();
  r.find(t, "format");
  const std::string format = t.one_of("format", {"swf", "itp", "csv"});
  w.format = format == "swf" ? TraceFormat::kSwf : format == "itp" ? TraceFormat::kItp : TraceFormat::kCsv;
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
  w.first_job = t.count("first_job", 1, Sign::kPositive);
  w.window = t.count("jobs", 0, Sign::kPositive);
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
  w.estimates =
      m.one_of("estimates", {"trace", "exact"}, "trace") == "exact" ? EstimateSource::kExact : EstimateSource::kTrace;
  MapReader s = m.optional_child("scheduler");
  r.note(s);
  r.find(s, "order");
  r.find(s, "backfill");
  w.scheduler.order =
      s.one_of("order", {"fcfs", "sjf"}, "fcfs") == "sjf" ? sched::QueueOrder::kSjf : sched::QueueOrder::kFcfs;
  const std::string backfill = s.one_of("backfill", {"none", "easy", "conservative"}, "easy");
  w.scheduler.backfill = backfill == "none"   ? sched::Backfill::kNone
                         : backfill == "easy" ? sched::Backfill::kEasy
                                              : sched::Backfill::kConservative;
  s.finish();
  r.find(m, "placement");
  w.placement = m.one_of("placement", {"first-fit", "best-fit"}, "first-fit") == "best-fit"
                    ? place::PlacementPolicy::kBestFit
                    : place::PlacementPolicy::kFirstFit;

  // The trace, as its format reads it.
  const std::string file_key = t.path() + ".file";
  std::vector<jobs::TraceJob> all;
  switch (w.format) {
    case TraceFormat::kSwf: {
      SwfTrace swf = read_swf(w.file, file.location(), file_key);
      all = std::move(swf.jobs);
      w.left_out = std::move(swf.skipped);
      w.logged_processors = swf.header.machine_processors();
      break;
    }
    case TraceFormat::kItp: {
      const Location member_at = member ? member->location() : t.location();
      all = read_itp_archive(w.file, file.location(), file_key, w.member, member_at, t.path() + ".member").jobs;
      break;
    }
    case TraceFormat::kCsv:
      all = read_job_csv(w.file, file.location(), file_key, w.columns).jobs;
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
  w.window_offset = all[static_cast<std::size_t>(w.first_job - 1)].submit;
  const std::string oversize_reason = "larger than the cluster's " + std::to_string(cluster_gpus) + " GPUs";
  for (std::int64_t k = w.first_job - 1; k < last; ++k) {
    jobs::TraceJob job = all[static_cast<std::size_t>(k)];
    const Location at{w.file, job.line, 1};
    if (job.gpus > cluster_gpus) {
      if (w.oversize == OversizePolicy::kError) {
        throw ScenarioError(at, file_key, "jobs of at most the cluster's " + std::to_string(cluster_gpus) + " GPUs",
                            "job " + std::to_string(job.id) + " asking for " + std::to_string(job.gpus),
                            "set workload.trace.oversize: drop to leave such jobs out, counted");
      }
      add_tally(w.left_out, oversize_reason, at);
      continue;
    }
    const double gap_ns = static_cast<double>((job.submit - w.window_offset).ns()) / w.load;
    job.submit = sim::SimTime::from_ns(std::llround(gap_ns));
    sim::SimTime estimate = job.run;
    if (w.estimates == EstimateSource::kTrace) {
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
