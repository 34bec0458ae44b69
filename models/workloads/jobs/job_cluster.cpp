#include "models/workloads/jobs/job_cluster.hpp"

#include <algorithm>
#include <cmath>
#include <list>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>

#include "models/placement/replica_placement.hpp"
#include "models/workloads/jobs/claim_victims.hpp"
#include "sim/context.hpp"
#include "sim/errors.hpp"
#include "sim/logical_process.hpp"
#include "sim/simulation.hpp"

namespace fathom::jobs {

namespace {

enum Kind : sim::EventKind { kSubmit, kFinish, kDecide, kCorrect, kWake, kSaved };

// A finish or correction event names the job and which of its predictions it is: a later
// prediction (a new step time, a preemption, a restart) makes the earlier one stale.
struct EventOf {
  std::uint32_t job;
  std::uint32_t generation;
};

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
        team_from_user_(spec.team_from_user),
        predict_(spec.predict_from_history),
        preemptive_(spec.scheduler.policy != sched::Policy::kQueue),
        restart_ns_(static_cast<double>(spec.restart_overhead.ns())),
        modelled_(spec.modelled),
        reference_rate_(spec.reference_rate),
        fabric_(spec.fabric),
        claimants_(spec.claimants),
        priority_(spec.priority),
        save_(spec.checkpoint_save),
        save_of_(spec.checkpoint_save_of),
        restore_of_(spec.restore_of),
        min_gpus_(spec.min_gpus),
        granule_(spec.granule),
        step_at_(spec.step_at) {
    width_.assign(jobs.size(), 0);
    width_factor_.assign(jobs.size(), 1.0);
    if (preemptive_ || fabric_ != nullptr || !claimants_.empty()) progress_.resize(jobs.size());
    run_.jobs.resize(jobs.size());
    run_.estimates.assign(estimates.begin(), estimates.end());
    expected_end_.resize(jobs.size());
    // At most one decision per arrival and one per end, and a share per job at least: reserved
    // once rather than grown by copying.
    run_.timeline.reserve(2 * jobs.size());
    run_.shares.reserve(jobs.size());
    run_.total_gpus = pool_.total_gpus();
    place_initial_replicas();
  }

  JobClusterRun take() { return std::move(run_); }

  void on_start(sim::Context& ctx) override {
    if (!jobs_.empty()) ctx.send(ctx.self(), jobs_[0].submit, kSubmit, sim::Payload::of(std::uint32_t{0}));
  }

  void on_event(const sim::Event& event, sim::Context& ctx) override {
    ctx_ = &ctx;
    if (event.kind >= kClaim) {
      on_claim(event);
      return;
    }
    const auto job = event.payload.as<std::uint32_t>();  // EventOf's first member
    switch (event.kind) {
      case kSubmit: {
        if (predict_) run_.estimates[job] = predicted(job);
        const std::int32_t team = team_from_user_ ? jobs_[job].user : jobs_[job].group;
        scheduler_->submit({job, jobs_[job].gpus, jobs_[job].submit, run_.estimates[job], team});
        if (job + 1 < jobs_.size()) {
          ctx.send(ctx.self(), jobs_[job + 1].submit - ctx.now(), kSubmit, sim::Payload::of(job + 1));
        }
        request_decision(ctx);
        break;
      }
      case kFinish:
        if (tracked(job) && event.payload.as<EventOf>().generation != progress_[job].generation) break;
        finish(job);
        request_decision(ctx);
        break;
      case kCorrect:
        if (tracked(job) &&
            (!progress_[job].running || event.payload.as<EventOf>().generation != progress_[job].starts))
          break;
        correct(job);
        request_decision(ctx);
        break;
      case kWake:
        wakes_.erase(ctx.now());
        request_decision(ctx);
        break;
      case kSaved:
        if (event.payload.as<EventOf>().generation != progress_[job].generation) break;
        saved(job);
        request_decision(ctx);
        break;
      case kDecide:
        decision_pending_ = false;
        ++run_.decisions;
        serve_claims();
        scheduler_->schedule(*this);
        grow_elastic();
        if (reshare_pending_) reshare();
        sample();
        break;
      default:
        throw sim::ModelError("job cluster: an event of unknown kind " + std::to_string(event.kind));
    }
  }

 private:
  // A job's work is counted in nanoseconds of its run alone (its traced run time, or a modelled
  // job's steps at its step time alone); it runs `stretch` wall nanoseconds per such nanosecond
  // (1, or more while its neighbours slow its step).
  struct Progress {
    double work_left_ns = 0;
    double stretch = 1;
    sim::SimTime since;            // work_left_ns counts from here
    std::uint32_t generation = 0;  // of its predicted end
    std::uint32_t starts = 0;      // runs so far
    bool running = false;
    bool saving = false;  // preempted by a claim: writing its checkpoint on its GPUs
  };

  // A replica's claim while it waits: for GPUs to free, or for the jobs it preempted to checkpoint
  // (`waiting` of them), its GPUs taken from the pool as they free.
  struct Claim {
    std::uint32_t service = 0, replica = 0;
    std::size_t record = 0;                // in run_.claims
    std::vector<place::NodeShare> target;  // where it goes, once its victims have left
    std::vector<place::NodeShare> taken;   // of the target, held for it so far
    std::uint32_t waiting = 0;
    bool cancelled = false;
  };

  void request_decision(sim::Context& ctx) {
    if (decision_pending_) return;
    decision_pending_ = true;
    ctx.send(ctx.self(), sim::SimTime::zero(), kDecide, {}, kAfterChanges);
  }

  void sample() {
    ClusterSample x;
    x.at = now();
    x.busy_gpus = pool_.total_gpus() - pool_.total_free() - service_gpus_;
    x.service_gpus = service_gpus_;
    x.stranded_gpus = pool_.free_on_partial_nodes();
    x.queued = static_cast<std::uint32_t>(scheduler_->queued());
    x.running = static_cast<std::uint32_t>(running_.size());
    run_.timeline.push_back(x);
  }

  int priority(std::uint32_t job) const { return priority_.empty() ? 0 : priority_[job]; }

  // The services' replicas ready at time 0: placed before any job arrives.
  void place_initial_replicas() {
    for (std::uint32_t s = 0; s < claimants_.size(); ++s) {
      const Claimant& c = claimants_[s];
      for (std::uint32_t r = 0; r < static_cast<std::uint32_t>(c.initial); ++r) {
        std::vector<place::NodeShare> shares;
        if (!place::place_replica(pool_, c.gpus_per_replica, shares)) {
          throw sim::ModelError("shared cluster: service " + std::to_string(s + 1) + "'s " + std::to_string(c.initial) +
                                " initial replicas of " + std::to_string(c.gpus_per_replica) +
                                " GPUs do not fit the cluster beside the " + "other services'");
        }
        pool_.take(shares);
        service_gpus_ += c.gpus_per_replica;
        ClaimRecord record;
        record.service = s;
        record.replica = r;
        record.granted = sim::SimTime::zero();
        record.shares = shares;
        run_.claims.push_back(std::move(record));
        held_[{s, r}] = {std::move(shares), run_.claims.size() - 1};
      }
    }
  }

  void on_claim(const sim::Event& event) {
    const auto c = event.payload.as<ClaimOf>();
    if (c.service >= claimants_.size()) throw sim::ModelError("shared cluster: a claim from an unknown service");
    switch (event.kind) {
      case kClaim:
        run_.claims.emplace_back();
        run_.claims.back().service = c.service;
        run_.claims.back().replica = c.replica;
        run_.claims.back().asked = now();
        claims_.emplace_back();
        claims_.back().service = c.service;
        claims_.back().replica = c.replica;
        claims_.back().record = run_.claims.size() - 1;
        break;
      case kCancelClaim: {
        const auto it = std::find_if(claims_.begin(), claims_.end(), [&](const Claim& w) {
          return w.service == c.service && w.replica == c.replica && !w.cancelled;
        });
        if (it == claims_.end()) return;  // granted already: the router releases it on the grant
        pool_.give(it->taken);
        service_gpus_ -= gpus_of(it->taken);
        it->taken.clear();
        if (it->waiting == 0) {
          claims_.erase(it);
        } else {
          it->cancelled = true;  // its victims still checkpoint; their GPUs go to the pool
        }
        break;
      }
      case kRelease: {
        const auto it = held_.find({c.service, c.replica});
        if (it == held_.end()) throw sim::ModelError("shared cluster: a release of GPUs the replica does not hold");
        pool_.give(it->second.first);
        service_gpus_ -= gpus_of(it->second.first);
        run_.claims[it->second.second].released = now();
        held_.erase(it);
        break;
      }
      default:
        throw sim::ModelError("shared cluster: an event of unknown kind " + std::to_string(event.kind));
    }
    request_decision(*ctx_);
  }

  static std::int64_t gpus_of(std::span<const place::NodeShare> shares) {
    std::int64_t n = 0;
    for (const place::NodeShare& x : shares) n += x.gpus;
    return n;
  }

  // Before any waiting job: each claim, in the order they came, gets free GPUs, or preempts jobs of
  // lower priority to make room, or waits.
  void serve_claims() {
    for (Claim& c : claims_) {
      if (c.waiting > 0 || c.cancelled) continue;
      const Claimant& who = claimants_[c.service];
      std::vector<place::NodeShare> shares;
      if (place::place_replica(pool_, who.gpus_per_replica, shares)) {
        c.target = shares;
        take_for(c);
        continue;
      }
      std::vector<VictimCandidate> candidates;
      int lowest = who.priority;
      for (const sched::RunningJob& r : running_) {
        if (progress_[r.job].saving || priority(r.job) >= who.priority) continue;
        const JobRun& run = run_.jobs[r.job];
        candidates.push_back({r.job, priority(r.job), run.last_start,
                              std::span<const place::NodeShare>(run_.shares.data() + run.first_share,
                                                                static_cast<std::size_t>(run.nodes))});
        lowest = std::min(lowest, priority(r.job));
      }
      // An elastic job of the lowest priority among them shrinks, if one can make the room alone.
      std::vector<ShrinkCandidate> elastic;
      for (const VictimCandidate& v : candidates) {
        if (v.priority == lowest && elastic_job(v.job)) {
          elastic.push_back({v, width_[v.job], min_gpus_[v.job], std::max(1, granule_[v.job])});
        }
      }
      if (!elastic.empty()) {
        const auto can_take = [&](std::uint32_t job, std::int32_t gpus) { return step_at_(job, gpus) > 0; };
        if (std::optional<Shrink> k = choose_shrink(pool_, std::move(elastic), who.gpus_per_replica, can_take)) {
          c.target = std::move(k->replica);
          run_.claims[c.record].victims = 1;
          begin_shrink(k->job, k->release, c);
          take_for(c);
          continue;
        }
      }
      std::optional<Eviction> e = choose_victims(pool_, std::move(candidates), who.gpus_per_replica);
      if (!e) continue;  // it waits for GPUs to free
      c.target = std::move(e->replica);
      run_.claims[c.record].victims = static_cast<std::uint32_t>(e->victims.size());
      for (const std::uint32_t job : e->victims) begin_save(job, c);
      take_for(c);
    }
    claims_.remove_if([](const Claim& c) { return c.target.size() > 0 && c.waiting == 0 && !c.cancelled; });
  }

  // Takes the free GPUs of the claim's target it does not hold yet; grants it when it holds all.
  void take_for(Claim& c) {
    for (const place::NodeShare& t : c.target) {
      std::int32_t held = 0;
      for (const place::NodeShare& x : c.taken) held += x.node == t.node ? x.gpus : 0;
      const std::int32_t more = std::min(t.gpus - held, pool_.free(t.node));
      if (more <= 0) continue;
      const place::NodeShare share{t.node, more};
      pool_.take(std::span<const place::NodeShare>(&share, 1));
      c.taken.push_back(share);
      service_gpus_ += more;
    }
    if (c.waiting > 0) return;
    if (gpus_of(c.taken) != claimants_[c.service].gpus_per_replica) {
      throw sim::ModelError("shared cluster: a claim's GPUs did not free as its victims left");
    }
    run_.claims[c.record].granted = now();
    run_.claims[c.record].shares = c.taken;
    held_[{c.service, c.replica}] = {std::move(c.taken), c.record};
    ctx_->send(claimants_[c.service].lp, sim::SimTime::zero(), kGranted,
               sim::Payload::of(ClaimOf{c.service, c.replica}));
  }

  // A job a claim preempts: its work so far is kept, and it writes its checkpoint on its GPUs for
  // checkpoint_save before they free (saved()).
  void begin_save(std::uint32_t job, Claim& c) {
    Progress& p = progress_[job];
    credit(p);
    p.saving = true;
    const std::uint32_t generation = ++p.generation;  // its predicted end is void
    claim_of_[job] = &c;
    ++c.waiting;
    run_.checkpoint_gpu_s += save_for(job).to_seconds() * width_[job];
    leave_sharing(job);  // a reshare while it writes must not re-predict (and void) its end
    // The scheduler expects its GPUs when the checkpoint is written.
    running_.erase({expected_end_[job], job, width_[job]});
    expected_end_[job] = sim::SimTime::saturating_add(now(), save_for(job));
    running_.insert({expected_end_[job], job, width_[job]});
    ctx_->send(ctx_->self(), save_for(job), kSaved, sim::Payload::of(EventOf{job, generation}));
  }

  // A preempted job's checkpoint is written: its GPUs free, the claim takes its part, and the job
  // waits to resume with what is left of its estimate.
  void saved(std::uint32_t job) {
    Progress& p = progress_[job];
    p.saving = false;
    if (const auto it = shrink_.find(job); it != shrink_.end()) {
      const place::NodeShare release = it->second;
      shrink_.erase(it);
      p.since = now();  // it did no work while it wrote its checkpoint (credited when it began)
      finish_shrink(job, release);
      hand_to_claim(job);
      return;
    }
    stop(job);
    JobRun& r = run_.jobs[job];
    ++r.preemptions;
    ++run_.preemptions;
    run_.earlier_runs.push_back({job, r.last_start, now(), r.first_share, r.nodes});
    const sim::SimTime done = r.executed;
    const sim::SimTime estimate = run_.estimates[job] > done ? run_.estimates[job] - done : sim::SimTime::zero();
    const std::int32_t team = team_from_user_ ? jobs_[job].user : jobs_[job].group;
    scheduler_->submit({job, jobs_[job].gpus, jobs_[job].submit, estimate, team});
    hand_to_claim(job);
  }

  // A job's checkpoint is written and its GPUs (some, for a shrink) are free: the claim it
  // checkpointed for takes its part; a claim that has all it waited for leaves the list.
  void hand_to_claim(std::uint32_t job) {
    const auto it = claim_of_.find(job);
    Claim& c = *it->second;
    claim_of_.erase(it);
    --c.waiting;
    if (c.cancelled) {
      if (c.waiting == 0) claims_.remove_if([&](const Claim& x) { return &x == &c; });
      return;
    }
    take_for(c);
    if (c.waiting == 0) claims_.remove_if([&](const Claim& x) { return &x == &c; });
  }

  // A job leaves the fabric's sharing (it stopped, or writes its checkpoint and sends nothing):
  // its neighbours' rates are recomputed at the decision.
  void leave_sharing(std::uint32_t job) {
    const auto it = std::find(sharing_.begin(), sharing_.end(), job);
    if (it == sharing_.end()) return;
    sharing_.erase(it);
    reshare_pending_ = true;
  }

  // What a preempted job spends writing its checkpoint on its GPUs, and restarting (as ns of wall
  // time): its own figures when the cluster has them (from its checkpoint's size and the tier).
  sim::SimTime save_for(std::uint32_t job) const { return save_of_.empty() ? save_ : save_of_[job]; }
  double restart_for(std::uint32_t job) const {
    return restart_ns_ + (restore_of_.empty() ? 0.0 : static_cast<double>(restore_of_[job].ns()));
  }

  bool elastic_job(std::uint32_t job) const {
    return job < min_gpus_.size() && min_gpus_[job] > 0 && min_gpus_[job] < jobs_[job].gpus && step_at_ &&
           job < modelled_.size() && modelled_[job].steps > 0;
  }

  // A claim shrinks an elastic job: it writes its checkpoint on all its GPUs (saved() then
  // finish_shrink()), and runs on afterwards on fewer.
  void begin_shrink(std::uint32_t job, place::NodeShare release, Claim& c) {
    Progress& p = progress_[job];
    credit(p);
    p.saving = true;
    const std::uint32_t generation = ++p.generation;  // its predicted end is void
    claim_of_[job] = &c;
    shrink_[job] = release;
    ++c.waiting;
    run_.checkpoint_gpu_s += save_for(job).to_seconds() * width_[job];
    leave_sharing(job);
    running_.erase({expected_end_[job], job, width_[job]});
    expected_end_[job] = sim::SimTime::saturating_add(now(), save_for(job));  // re-predicted when it restarts
    running_.insert({expected_end_[job], job, width_[job]});
    ctx_->send(ctx_->self(), save_for(job), kSaved, sim::Payload::of(EventOf{job, generation}));
  }

  // The job's run so far ends as a run of its own; it goes on from now on `shares`, `gpus` wide,
  // paying `overhead_ns` of wall time first (a restart, or a checkpoint and a restart).
  void reshape(std::uint32_t job, const std::vector<place::NodeShare>& shares, std::int32_t gpus, double overhead_ns) {
    JobRun& r = run_.jobs[job];
    Progress& p = progress_[job];
    credit(p);
    run_.earlier_runs.push_back({job, r.last_start, now(), r.first_share, r.nodes});
    r.executed = r.executed + (now() - r.last_start);
    leave_sharing(job);
    r.first_share = static_cast<std::uint32_t>(run_.shares.size());
    run_.shares.insert(run_.shares.end(), shares.begin(), shares.end());
    r.nodes = static_cast<std::int32_t>(shares.size());
    r.leaves = place::leaves_spanned(pool_, shares);
    r.last_start = now();
    running_.erase({expected_end_[job], job, width_[job]});
    width_[job] = gpus;
    const ModelledStep& m = modelled_[job];
    width_factor_[job] = gpus == jobs_[job].gpus ? 1.0 : step_at_(job, gpus) / m.step_s;
    p.saving = false;
    p.since = now();
    p.stretch = width_factor_[job];
    p.work_left_ns += overhead_ns / p.stretch;
    expected_end_[job] = sim::SimTime::saturating_add(
        now(), sim::SimTime::from_ns(static_cast<std::int64_t>(std::ceil(p.work_left_ns * p.stretch))));
    running_.insert({expected_end_[job], job, width_[job]});
    run_.step_changes.push_back({now(), job, m.step_s * width_factor_[job], 1.0});
    if (shares_fabric(job)) {
      sharing_.push_back(job);
      fresh_.insert(job);
      reshare_pending_ = true;  // the reshare predicts its end
    } else {
      predict_end(job);
    }
  }

  // A shrinking job's checkpoint is written: `release` goes back to the pool (for the claim), and
  // the job restarts on the rest.
  void finish_shrink(std::uint32_t job, place::NodeShare release) {
    const JobRun& r = run_.jobs[job];
    std::vector<place::NodeShare> kept;
    for (std::uint32_t k = 0; k < static_cast<std::uint32_t>(r.nodes); ++k) {
      place::NodeShare x = run_.shares[r.first_share + k];
      if (x.node == release.node) x.gpus -= release.gpus;
      if (x.gpus > 0) kept.push_back(x);
    }
    pool_.give(std::span<const place::NodeShare>(&release, 1));
    ++run_.jobs[job].shrinks;
    ++run_.shrinks;
    run_.restart_gpu_s += restart_for(job) / 1e9 * (width_[job] - release.gpus);
    reshape(job, kept, width_[job] - release.gpus, restart_for(job));
  }

  // With no job and no claim waiting, shrunk elastic jobs take their GPUs back, the highest
  // priority first (then the lowest number), each where placement puts what it lacks: a
  // checkpoint and a restart, then on at its full width.
  void grow_elastic() {
    if (min_gpus_.empty() || !claims_.empty() || scheduler_->queued() > 0) return;
    std::vector<std::uint32_t> shrunk;
    for (const sched::RunningJob& r : running_) {
      if (!progress_[r.job].saving && width_[r.job] < jobs_[r.job].gpus) shrunk.push_back(r.job);
    }
    std::sort(shrunk.begin(), shrunk.end(), [&](std::uint32_t a, std::uint32_t b) {
      return priority(a) != priority(b) ? priority(a) > priority(b) : a < b;
    });
    for (const std::uint32_t job : shrunk) {
      std::vector<place::NodeShare> more;
      if (!place::place(placement_, pool_, jobs_[job].gpus - width_[job], more)) continue;
      pool_.take(more);
      const JobRun& r = run_.jobs[job];
      std::vector<place::NodeShare> all(run_.shares.begin() + r.first_share,
                                        run_.shares.begin() + r.first_share + r.nodes);
      for (const place::NodeShare& x : more) {
        const auto same =
            std::find_if(all.begin(), all.end(), [&](const place::NodeShare& y) { return y.node == x.node; });
        if (same != all.end()) {
          same->gpus += x.gpus;
        } else {
          all.push_back(x);
        }
      }
      ++run_.jobs[job].grows;
      ++run_.grows;
      run_.checkpoint_gpu_s += save_for(job).to_seconds() * jobs_[job].gpus;
      run_.restart_gpu_s += restart_for(job) / 1e9 * jobs_[job].gpus;
      reshape(job, all, jobs_[job].gpus, static_cast<double>(save_for(job).ns()) + restart_for(job));
    }
  }

  // SchedulingContext
  sim::SimTime now() const override { return ctx_->now(); }
  std::int64_t free_gpus() const override { return pool_.total_free(); }
  std::int64_t total_gpus() const override { return pool_.total_gpus(); }
  std::int64_t held_elsewhere() const override { return service_gpus_; }
  const sched::RunningJobs& running() const override { return running_; }

  sim::SimTime executed(std::uint32_t job) const override {
    const JobRun& r = run_.jobs.at(job);  // r.executed: in its earlier runs
    return tracked(job) && progress_[job].running ? r.executed + (now() - r.last_start) : r.executed;
  }

  void wake_at(sim::SimTime at) override {
    if (at <= now()) throw sim::ModelError("job cluster: a scheduler asked to be woken now or in the past");
    if (wakes_.insert(at).second) ctx_->send(ctx_->self(), at - now(), kWake, {});
  }

  bool start(const sched::QueuedJob& q) override {
    const std::size_t first = run_.shares.size();
    if (!place::place(placement_, pool_, q.gpus, run_.shares)) return false;
    const std::span<const place::NodeShare> shares(run_.shares.data() + first, run_.shares.size() - first);
    pool_.take(shares);
    JobRun& r = run_.jobs[q.job];
    r.first_share = static_cast<std::uint32_t>(first);
    r.nodes = static_cast<std::int32_t>(shares.size());
    r.leaves = place::leaves_spanned(pool_, shares);
    r.last_start = now();
    // An opaque job under a policy that never preempts runs its run time: no progress to keep.
    const bool keep_progress = tracked(q.job);
    const bool resumed = keep_progress && progress_[q.job].starts > 0;
    if (!resumed) r.start = now();
    std::uint32_t starts = 1;
    if (keep_progress) {
      Progress& p = progress_[q.job];
      p.work_left_ns = resumed ? p.work_left_ns + restart_for(q.job)  // restored, reloaded, warmed up again
                               : static_cast<double>(jobs_[q.job].run.ns());
      p.running = true;
      p.since = now();
      p.stretch = 1;
      starts = ++p.starts;
    }
    const sim::SimTime restart = sim::SimTime::from_ns(static_cast<std::int64_t>(resumed ? restart_for(q.job) : 0));
    run_.restart_gpu_s += restart.to_seconds() * q.gpus;
    expected_end_[q.job] = sim::SimTime::saturating_add(now(), sim::SimTime::saturating_add(q.estimate, restart));
    // An elastic job shrunk before it was stopped starts again at its full width.
    if (resumed && width_factor_[q.job] != 1 && !shares_fabric(q.job)) {
      run_.step_changes.push_back({now(), q.job, modelled_[q.job].step_s, 1.0});
    }
    width_[q.job] = q.gpus;
    width_factor_[q.job] = 1;
    running_.insert({expected_end_[q.job], q.job, q.gpus});
    if (!resumed && jobs_[q.job].run > q.estimate) {
      ++run_.overran_estimate;
      // A prediction the job outlives falls back to the user's request, when that is longer.
      if (predict_ && estimates_[q.job] > q.estimate)
        ctx_->send(ctx_->self(), q.estimate, kCorrect, sim::Payload::of(EventOf{q.job, starts}));
    }
    if (!keep_progress) {
      ctx_->send(ctx_->self(), jobs_[q.job].run, kFinish, sim::Payload::of(EventOf{q.job, 0}));
    } else if (shares_fabric(q.job)) {
      sharing_.push_back(q.job);
      fresh_.insert(q.job);
      reshare_pending_ = true;  // its end is predicted once the decision's starts are all known
    } else {
      predict_end(q.job);
    }
    return true;
  }

  // The job's end at its work left and stretch, replacing any earlier prediction.
  void predict_end(std::uint32_t job) {
    Progress& p = progress_[job];
    ++p.generation;
    const double left_ns = std::ceil(p.work_left_ns * p.stretch);
    if (!(left_ns < static_cast<double>((sim::SimTime::max() - now()).ns()))) {
      throw sim::ModelError("job cluster: job " + std::to_string(jobs_[job].id) + " would end beyond the clock (" +
                            std::to_string(left_ns / 1e9) + " s from " + std::to_string(now().to_seconds()) + " s)");
    }
    ctx_->send(ctx_->self(), sim::SimTime::from_ns(static_cast<std::int64_t>(left_ns)), kFinish,
               sim::Payload::of(EventOf{job, p.generation}));
  }

  // Credits the work done since the last credit at the stretch it ran at.
  void credit(Progress& p) {
    p.work_left_ns = std::max(0.0, p.work_left_ns - static_cast<double>((now() - p.since).ns()) / p.stretch);
    p.since = now();
  }

  // Ends the job's current run (it finished or was preempted): its GPUs back to the pool.
  void stop(std::uint32_t job) {
    JobRun& r = run_.jobs[job];
    r.executed = r.executed + (now() - r.last_start);
    if (tracked(job)) progress_[job].running = false;
    pool_.give(
        std::span<const place::NodeShare>(run_.shares.data() + r.first_share, static_cast<std::size_t>(r.nodes)));
    running_.erase({expected_end_[job], job, width_[job]});
    leave_sharing(job);
  }

  void preempt(std::uint32_t job) override {
    if (!tracked(job) || !progress_[job].running)
      throw sim::ModelError("job cluster: job " + std::to_string(jobs_[job].id) + " preempted but not running");
    Progress& p = progress_[job];
    credit(p);
    ++p.generation;  // its predicted end is void
    stop(job);
    JobRun& r = run_.jobs[job];
    ++r.preemptions;
    ++run_.preemptions;
    run_.earlier_runs.push_back({job, r.last_start, now(), r.first_share, r.nodes});
  }

  void finish(std::uint32_t job) {
    stop(job);
    JobRun& r = run_.jobs[job];
    r.end = now();
    // Its run beside the others over its run alone, restarts included in both.
    const double alone = static_cast<double>(jobs_[job].run.ns()) + restart_for(job) * r.preemptions;
    if (alone > 0) r.interference = static_cast<double>(r.executed.ns()) / alone;
    scheduler_->ended(job);
    if (predict_ && jobs_[job].user >= 0) {
      History& h = history_[jobs_[job].user];
      h.previous = h.last;
      h.last = jobs_[job].run;
      h.finished = std::min(h.finished + 1, 2);
    }
  }

  // A running job past its predicted end: expected to end when its request runs out instead.
  void correct(std::uint32_t job) {
    if (tracked(job) && progress_[job].saving) return;  // it ends when its checkpoint is written
    running_.erase({expected_end_[job], job, width_[job]});
    expected_end_[job] = sim::SimTime::saturating_add(run_.jobs[job].start, estimates_[job]);
    running_.insert({expected_end_[job], job, width_[job]});
  }

  // A job whose progress is kept: one a policy may preempt, or whose step time may change.
  bool tracked(std::uint32_t job) const { return preemptive_ || !claimants_.empty() || shares_fabric(job); }

  // A modelled job on several nodes: its step time depends on its neighbours on the fabric.
  bool shares_fabric(std::uint32_t job) const {
    return fabric_ != nullptr && job < modelled_.size() && modelled_[job].steps > 0 && run_.jobs[job].nodes > 1;
  }

  // Every fabric-sharing job's stretch under the jobs running now, and its end re-predicted
  // where the stretch changed: work done so far is credited at the old stretch.
  void reshare() {
    reshare_pending_ = false;
    std::vector<std::vector<std::int32_t>> nodes;
    nodes.reserve(sharing_.size());
    for (const std::uint32_t job : sharing_) {
      const JobRun& r = run_.jobs[job];
      std::vector<std::int32_t>& n = nodes.emplace_back();
      for (std::uint32_t k = 0; k < static_cast<std::uint32_t>(r.nodes); ++k)
        n.push_back(run_.shares[r.first_share + k].node);
      std::sort(n.begin(), n.end());
    }
    const std::vector<double> rates = fabric_->ring_rates(nodes);
    for (std::size_t k = 0; k < sharing_.size(); ++k) {
      const std::uint32_t job = sharing_[k];
      Progress& p = progress_[job];
      credit(p);
      const double slowdown =
          std::isfinite(rates[k]) && std::isfinite(reference_rate_[job]) ? reference_rate_[job] / rates[k] : 1.0;
      const ModelledStep& m = modelled_[job];
      // A shrunk elastic job's step is longer by its width's factor too.
      const double step_s = m.step_under(slowdown) * width_factor_[job];
      const double stretch = step_s / m.step_s;
      if (stretch == p.stretch && fresh_.count(job) == 0) continue;
      p.stretch = stretch;
      run_.step_changes.push_back({now(), job, step_s, slowdown});
      predict_end(job);
    }
    fresh_.clear();
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
  bool team_from_user_ = false;
  sched::RunningJobs running_;
  sim::Context* ctx_ = nullptr;
  bool decision_pending_ = false;
  bool predict_ = false;
  bool preemptive_ = false;
  double restart_ns_ = 0;
  std::map<std::int32_t, History> history_;  // by user: their last finished run times
  std::vector<sim::SimTime> expected_end_;   // by job, while it runs: its key in running_
  JobClusterRun run_;
  std::span<const ModelledStep> modelled_;
  std::span<const double> reference_rate_;
  FabricShare* fabric_ = nullptr;
  std::vector<Progress> progress_;      // by job
  std::vector<std::uint32_t> sharing_;  // fabric-sharing jobs running now, in start order
  std::set<std::uint32_t> fresh_;       // sharing jobs started since the last reshare
  std::set<sim::SimTime> wakes_;        // wake-ups asked for and not yet come
  bool reshare_pending_ = false;
  std::span<const Claimant> claimants_;
  std::span<const int> priority_;
  sim::SimTime save_;
  std::span<const sim::SimTime> save_of_, restore_of_;
  std::list<Claim> claims_;                   // waiting, in the order they came
  std::map<std::uint32_t, Claim*> claim_of_;  // by job checkpointing: the claim it frees GPUs for
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::pair<std::vector<place::NodeShare>, std::size_t>>
      held_;                       // by (service, replica): its GPUs and its record
  std::int64_t service_gpus_ = 0;  // held by replicas and for claims
  std::span<const std::int32_t> min_gpus_, granule_;
  std::function<double(std::uint32_t, std::int32_t)> step_at_;
  std::vector<std::int32_t> width_;                   // by running job: the GPUs it holds now
  std::vector<double> width_factor_;                  // its step at that width over its step at its own
  std::map<std::uint32_t, place::NodeShare> shrink_;  // by job checkpointing to shrink: what it gives up
};

}  // namespace

std::vector<JobSegment> all_runs(const JobClusterRun& run) {
  std::vector<JobSegment> runs(run.earlier_runs);
  runs.reserve(run.earlier_runs.size() + run.jobs.size());
  for (std::size_t j = 0; j < run.jobs.size(); ++j) {
    const JobRun& r = run.jobs[j];
    runs.push_back({static_cast<std::uint32_t>(j), r.last_start, r.end, r.first_share, r.nodes});
  }
  std::stable_sort(runs.begin(), runs.end(), [](const JobSegment& a, const JobSegment& b) {
    return a.start != b.start ? a.start < b.start : a.job < b.job;
  });
  return runs;
}

JobClusterRun run_job_cluster(std::span<const TraceJob> jobs, std::span<const sim::SimTime> estimates,
                              const JobClusterSpec& spec, std::uint64_t seed, const ClusterTenants* tenants) {
  if (estimates.size() != jobs.size()) {
    throw std::invalid_argument("run_job_cluster: " + std::to_string(estimates.size()) + " estimates for " +
                                std::to_string(jobs.size()) + " jobs");
  }
  if (!spec.modelled.empty() && (spec.modelled.size() != jobs.size() || spec.reference_rate.size() != jobs.size())) {
    throw std::invalid_argument("run_job_cluster: " + std::to_string(spec.modelled.size()) + " modelled steps and " +
                                std::to_string(spec.reference_rate.size()) + " reference rates for " +
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
  if (!spec.priority.empty() && spec.priority.size() != jobs.size()) {
    throw std::invalid_argument("run_job_cluster: " + std::to_string(spec.priority.size()) + " priorities for " +
                                std::to_string(jobs.size()) + " jobs");
  }
  if (!spec.claimants.empty() && tenants == nullptr) {
    throw std::invalid_argument("run_job_cluster: services claim GPUs but none are on the engine");
  }
  if (!spec.claimants.empty() && spec.scheduler.policy != sched::Policy::kQueue) {
    throw std::invalid_argument("run_job_cluster: services run beside the queue policies only, not " +
                                std::string(sched::policy_name(spec.scheduler.policy)));
  }
  sim::Simulation simulation(seed);
  auto lp = std::make_unique<JobClusterLp>(jobs, estimates, spec);
  JobClusterLp* cluster = lp.get();
  // The cluster's group: the services' routers join it, so that claims take no time.
  constexpr std::uint32_t kClusterGroup = 0;
  const sim::LpId id = simulation.add(std::move(lp), kClusterGroup);
  if (tenants != nullptr && tenants->add) tenants->add(simulation, id, kClusterGroup);
  const sim::RunResult result = simulation.run(tenants != nullptr ? tenants->options : sim::RunOptions{});
  if (tenants != nullptr && tenants->collect) tenants->collect(result);
  JobClusterRun run = cluster->take();
  run.events = result.committed;
  run.fingerprint = result.fingerprint;
  return run;
}

}  // namespace fathom::jobs
