#include "models/workloads/jobs/job_cluster.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>

#include "sim/context.hpp"
#include "sim/errors.hpp"
#include "sim/logical_process.hpp"
#include "sim/simulation.hpp"

namespace fathom::jobs {

namespace {

enum Kind : sim::EventKind { kSubmit, kFinish, kDecide, kCorrect };
// The decision runs after every arrival and end of its instant.
constexpr std::uint8_t kAfterChanges = 1;

class JobClusterLp final : public sim::LogicalProcess, private sched::SchedulingContext {
 public:
  JobClusterLp(std::span<const TraceJob> jobs, std::span<const sim::SimTime> estimates, const JobClusterSpec& spec)
      : jobs_(jobs),
        estimates_(estimates),
        pool_(spec.gpus_per_node, spec.leaf_of_node, spec.island_of_node, spec.pod_of_node),
        placement_(spec.placement),
        scheduler_(sched::make_scheduler(spec.scheduler)),
        predict_(spec.predict_from_history) {
    run_.jobs.resize(jobs.size());
    run_.estimates.assign(estimates.begin(), estimates.end());
    expected_end_.resize(jobs.size());
    // At most one decision per arrival and one per end, and a share per job at least: reserved
    // once rather than grown by copying.
    run_.timeline.reserve(2 * jobs.size());
    run_.shares.reserve(jobs.size());
    run_.total_gpus = pool_.total_gpus();
  }

  JobClusterRun take() { return std::move(run_); }

  void on_start(sim::Context& ctx) override {
    if (!jobs_.empty()) ctx.send(ctx.self(), jobs_[0].submit, kSubmit, sim::Payload::of(std::uint32_t{0}));
  }

  void on_event(const sim::Event& event, sim::Context& ctx) override {
    ctx_ = &ctx;
    const auto job = event.payload.as<std::uint32_t>();
    switch (event.kind) {
      case kSubmit:
        if (predict_) run_.estimates[job] = predicted(job);
        scheduler_->submit({job, jobs_[job].gpus, jobs_[job].submit, run_.estimates[job]});
        if (job + 1 < jobs_.size()) {
          ctx.send(ctx.self(), jobs_[job + 1].submit - ctx.now(), kSubmit, sim::Payload::of(job + 1));
        }
        request_decision(ctx);
        break;
      case kFinish:
        finish(job);
        request_decision(ctx);
        break;
      case kCorrect:
        correct(job);
        request_decision(ctx);
        break;
      case kDecide:
        decision_pending_ = false;
        ++run_.decisions;
        scheduler_->schedule(*this);
        run_.timeline.push_back({ctx.now(), pool_.total_gpus() - pool_.total_free(), pool_.free_on_partial_nodes(),
                                 static_cast<std::uint32_t>(scheduler_->queued()),
                                 static_cast<std::uint32_t>(running_.size())});
        break;
      default:
        throw sim::ModelError("job cluster: an event of unknown kind " + std::to_string(event.kind));
    }
  }

 private:
  void request_decision(sim::Context& ctx) {
    if (decision_pending_) return;
    decision_pending_ = true;
    ctx.send(ctx.self(), sim::SimTime::zero(), kDecide, {}, kAfterChanges);
  }

  // SchedulingContext
  sim::SimTime now() const override { return ctx_->now(); }
  std::int64_t free_gpus() const override { return pool_.total_free(); }
  const sched::RunningJobs& running() const override { return running_; }

  bool start(const sched::QueuedJob& q) override {
    const std::size_t first = run_.shares.size();
    if (!place::place(placement_, pool_, q.gpus, run_.shares)) return false;
    const std::span<const place::NodeShare> shares(run_.shares.data() + first, run_.shares.size() - first);
    pool_.take(shares);
    JobRun& r = run_.jobs[q.job];
    r.start = now();
    r.end = now() + jobs_[q.job].run;
    r.first_share = static_cast<std::uint32_t>(first);
    r.nodes = static_cast<std::int32_t>(shares.size());
    r.leaves = place::leaves_spanned(pool_, shares);
    expected_end_[q.job] = sim::SimTime::saturating_add(r.start, q.estimate);
    running_.insert({expected_end_[q.job], q.job, q.gpus});
    if (jobs_[q.job].run > q.estimate) {
      ++run_.overran_estimate;
      // A prediction the job outlives falls back to the user's request, when that is longer.
      if (predict_ && estimates_[q.job] > q.estimate)
        ctx_->send(ctx_->self(), q.estimate, kCorrect, sim::Payload::of(q.job));
    }
    ctx_->send(ctx_->self(), jobs_[q.job].run, kFinish, sim::Payload::of(q.job));
    return true;
  }

  void finish(std::uint32_t job) {
    const JobRun& r = run_.jobs[job];
    pool_.give(
        std::span<const place::NodeShare>(run_.shares.data() + r.first_share, static_cast<std::size_t>(r.nodes)));
    running_.erase({expected_end_[job], job, jobs_[job].gpus});
    if (predict_ && jobs_[job].user >= 0) {
      History& h = history_[jobs_[job].user];
      h.previous = h.last;
      h.last = jobs_[job].run;
      h.finished = std::min(h.finished + 1, 2);
    }
  }

  // A running job past its predicted end: expected to end when its request runs out instead.
  void correct(std::uint32_t job) {
    running_.erase({expected_end_[job], job, jobs_[job].gpus});
    expected_end_[job] = sim::SimTime::saturating_add(run_.jobs[job].start, estimates_[job]);
    running_.insert({expected_end_[job], job, jobs_[job].gpus});
  }

  // The user's history's prediction of a job's run time, never above its request.
  sim::SimTime predicted(std::uint32_t job) const {
    const sim::SimTime request = estimates_[job];
    const auto it = history_.find(jobs_[job].user);
    if (it == history_.end()) return request;
    const History& h = it->second;
    const std::int64_t a = h.last.ns(), b = h.previous.ns();
    const sim::SimTime mean = h.finished == 1 ? h.last : sim::SimTime::from_ns(a / 2 + b / 2 + (a % 2 + b % 2) / 2);
    return std::min(mean, request);
  }

  struct History {
    sim::SimTime last, previous;
    int finished = 0;
  };

  std::span<const TraceJob> jobs_;
  std::span<const sim::SimTime> estimates_;
  place::GpuPool pool_;
  place::PlacementPolicy placement_;
  std::unique_ptr<sched::Scheduler> scheduler_;
  sched::RunningJobs running_;
  sim::Context* ctx_ = nullptr;
  bool decision_pending_ = false;
  bool predict_ = false;
  std::map<std::int32_t, History> history_;  // by user: their last finished run times
  std::vector<sim::SimTime> expected_end_;   // by job, while it runs: its key in running_
  JobClusterRun run_;
};

}  // namespace

JobClusterRun run_job_cluster(std::span<const TraceJob> jobs, std::span<const sim::SimTime> estimates,
                              const JobClusterSpec& spec, std::uint64_t seed) {
  if (estimates.size() != jobs.size()) {
    throw std::invalid_argument("run_job_cluster: " + std::to_string(estimates.size()) + " estimates for " +
                                std::to_string(jobs.size()) + " jobs");
  }
  std::int64_t total = 0;
  for (const std::int32_t g : spec.gpus_per_node) total += g;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const TraceJob& j = jobs[i];
    const auto where = [&] {
      return "run_job_cluster: job " + std::to_string(j.id) + " (line " + std::to_string(j.line) + ")";
    };
    if (j.gpus < 1 || j.gpus > total) {
      throw std::invalid_argument(where() + " asks for " + std::to_string(j.gpus) + " GPUs of the cluster's " +
                                  std::to_string(total));
    }
    if (j.submit < sim::SimTime::zero() || (i > 0 && j.submit < jobs[i - 1].submit)) {
      throw std::invalid_argument(where() + " is submitted before time 0 or before the job ahead of it");
    }
    if (j.run < sim::SimTime::zero() || estimates[i] < sim::SimTime::zero()) {
      throw std::invalid_argument(where() + " has a negative run time or estimate");
    }
  }
  sim::Simulation simulation(seed);
  auto lp = std::make_unique<JobClusterLp>(jobs, estimates, spec);
  JobClusterLp* cluster = lp.get();
  simulation.add(std::move(lp));
  const sim::RunResult result = simulation.run({});
  JobClusterRun run = cluster->take();
  run.events = result.committed;
  run.fingerprint = result.fingerprint;
  return run;
}

}  // namespace fathom::jobs
