// The jobs report's part for the services beside the jobs (docs/jobs.md, "Services beside
// training"): each service's figures, as an inference scenario reports them, and what sharing
// the cluster cost each side: how long replicas waited for GPUs, which jobs they preempted.
#include <algorithm>
#include <cstdio>

#include "report/jobs/jobs_report.hpp"
#include "report/number_text.hpp"
#include "sim/output/json_writer.hpp"

namespace fathom::report {

ServiceClaims service_claims(const jobs::JobClusterRun& run, std::uint32_t service) {
  ServiceClaims c;
  double waited = 0;
  for (const jobs::ClaimRecord& r : run.claims) {
    if (r.service != service || (r.asked == sim::SimTime::zero() && r.granted == sim::SimTime::zero())) continue;
    ++c.claims;
    c.victims += r.victims;
    if (r.granted < sim::SimTime::zero()) continue;
    ++c.granted;
    const double w = (r.granted - r.asked).to_seconds();
    waited += w;
    c.max_wait_s = std::max(c.max_wait_s, w);
  }
  if (c.granted > 0) c.mean_wait_s = waited / static_cast<double>(c.granted);
  return c;
}

void write_services_summary(std::FILE* out, const JobsReport& report) {
  const scenario::JobsWorkload& w = report.scenario.jobs;
  if (report.checkpoints.empty()) {
    std::fprintf(out,
                 "\nservices beside the jobs: a job a service preempts or shrinks writes its checkpoint for %s s, "
                 "then restarts in %s s\n",
                 ten_digits(w.checkpoint_save.to_seconds()).c_str(),
                 ten_digits(w.restart_overhead.to_seconds()).c_str());
  } else {
    std::fprintf(out,
                 "\nservices beside the jobs: a job a service preempts or shrinks writes its checkpoint to %s, then "
                 "reads it back and restarts in %s s more\n",
                 w.checkpoint_tier.c_str(), ten_digits(w.restart_overhead.to_seconds()).c_str());
    for (std::size_t j = 0; j < report.checkpoints.size(); ++j) {
      const JobsReport::Checkpoint& c = report.checkpoints[j];
      std::fprintf(out, "  %-18s checkpoint %.4g GB (sharded): written in %.4g s, read in %.4g s\n",
                   w.training[j].name.c_str(), c.bytes / 1e9, c.write_s, c.restore_s);
    }
  }
  // What the jobs paid (every preemption, shrink and growth on a shared cluster is the services'
  // doing), and the services' share of the GPU time.
  double service_gpu_s = 0;
  for (std::size_t k = 0; k + 1 < report.run.timeline.size(); ++k) {
    const jobs::ClusterSample& x = report.run.timeline[k];
    service_gpu_s += static_cast<double>(x.service_gpus) * (report.run.timeline[k + 1].at - x.at).to_seconds();
  }
  std::fprintf(out,
               "the jobs: %llu preemptions, %llu shrinks, %llu grown back; %.4g GPU-hours writing checkpoints and "
               "%.4g restarting; the services held %.4g GPU-hours of the makespan's %.4g\n",
               static_cast<unsigned long long>(report.run.preemptions),
               static_cast<unsigned long long>(report.run.shrinks), static_cast<unsigned long long>(report.run.grows),
               report.run.checkpoint_gpu_s / 3600, report.run.restart_gpu_s / 3600, service_gpu_s / 3600,
               static_cast<double>(report.run.total_gpus) * report.summary.makespan_s / 3600);
  for (std::size_t k = 0; k < report.services.size(); ++k) {
    const InferenceReport& r = report.services[k];
    const scenario::InferenceWorkload& sw = r.scenario.inference;
    const ServiceClaims c = service_claims(report.run, static_cast<std::uint32_t>(k));
    std::fprintf(out, "\n%s (priority %d): %s, replicas of tp %d x pp %d (%d GPUs), %d at the start\n",
                 w.services[k].name.c_str(), w.services[k].priority, sw.model.name.c_str(), sw.serving.tp,
                 sw.serving.pp, sw.gpus_per_replica(), sw.serving.replicas);
    write_service_figures(out, r);
    std::fprintf(out,
                 "GPUs           %.4g GPU-hours; %d replicas asked for GPUs, %d got them after %.4g s on average "
                 "(%.4g s at most), preempting or shrinking jobs %d times\n",
                 r.gpu_hours, c.claims, c.granted, c.mean_wait_s, c.max_wait_s, c.victims);
  }
}

void write_services_json(sim::JsonWriter& j, const JobsReport& report) {
  const scenario::JobsWorkload& w = report.scenario.jobs;
  j.member("checkpoint_save_s", w.checkpoint_save.to_seconds());
  j.key("sharing");  // what the jobs paid for the services
  j.begin_object();
  j.member("preemptions", report.run.preemptions);
  j.member("shrinks", report.run.shrinks);
  j.member("grows", report.run.grows);
  j.member("checkpoint_tier", w.checkpoint_tier);
  j.key("checkpoints");  // with checkpoint_tier: each training job's
  j.begin_array();
  for (std::size_t k = 0; k < report.checkpoints.size(); ++k) {
    const JobsReport::Checkpoint& c = report.checkpoints[k];
    j.begin_object();
    j.member("job", w.training[k].name);
    j.member("bytes", c.bytes);
    j.member("write_s", c.write_s);
    j.member("restore_s", c.restore_s);
    j.end_object();
  }
  j.end_array();
  j.member("checkpoint_gpu_hours", report.run.checkpoint_gpu_s / 3600);
  j.member("restart_gpu_hours", report.run.restart_gpu_s / 3600);
  j.end_object();
  j.key("services");
  j.begin_array();
  for (std::size_t k = 0; k < report.services.size(); ++k) {
    const InferenceReport& r = report.services[k];
    const scenario::InferenceWorkload& sw = r.scenario.inference;
    const ServiceClaims c = service_claims(report.run, static_cast<std::uint32_t>(k));
    j.begin_object();
    j.member("name", w.services[k].name);
    j.member("priority", w.services[k].priority);
    j.member("model", sw.model.name);
    j.member("tp", sw.serving.tp);
    j.member("pp", sw.serving.pp);
    j.member("gpus_per_replica", sw.gpus_per_replica());
    j.member("initial_replicas", sw.serving.replicas);
    j.key("claims");
    j.begin_object();
    j.member("asked", c.claims);
    j.member("granted", c.granted);
    j.member("mean_wait_s", c.mean_wait_s);
    j.member("max_wait_s", c.max_wait_s);
    j.member("preemptions_or_shrinks", c.victims);
    j.end_object();
    write_inference_figures(j, r);
    j.end_object();
  }
  j.end_array();
}

void write_services_requests_csv(std::ostream& out, const JobsReport& report) {
  out << "service," << kRequestsCsvHeader << '\n';
  for (std::size_t k = 0; k < report.services.size(); ++k) {
    write_request_rows(out, report.services[k], report.scenario.jobs.services[k].name + ",");
  }
}

}  // namespace fathom::report
