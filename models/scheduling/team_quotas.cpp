// Teams' guaranteed quotas (virtual clusters, as Microsoft's Philly and ITP clusters ran them,
// and as Kubernetes capacity schedulers and YARN's capacity scheduler do): each team is
// guaranteed `gpus` GPUs. Its jobs are taken in order (running first, so that a team never
// preempts itself, then by submit time) while they fit in its quota: those run, and are never
// preempted. GPUs the teams leave idle are lent to the remaining jobs of any team: jobs already
// borrowing keep their GPUs first, then waiting ones by team priority (higher first), then
// submit time. A team's job that fits its quota takes back lent GPUs by preempting borrowers:
// whatever the guaranteed jobs need, the borrowers lose, last chosen first.
#include <algorithm>
#include <map>
#include <utility>

#include "models/scheduling/preemptive.hpp"

namespace fathom::sched {

namespace {

class TeamQuotas final : public PreemptiveScheduler {
 public:
  explicit TeamQuotas(std::vector<TeamQuota> quotas) {
    for (const TeamQuota& q : quotas) quotas_[q.team] = q;
  }

 private:
  std::vector<const Entry*> choose(SchedulingContext& ctx) override {
    std::vector<const Entry*> all;
    all.reserve(active_.size());
    for (const auto& [job, e] : active_) all.push_back(&e);
    const auto by_submit = [](const Entry* a, const Entry* b) {
      if (a->running != b->running) return a->running;
      if (a->job.submit != b->job.submit) return a->job.submit < b->job.submit;
      return a->job.job < b->job.job;
    };
    std::sort(all.begin(), all.end(), by_submit);
    // Each team's jobs within its quota.
    std::map<std::int32_t, std::int64_t> left;
    for (const auto& [team, q] : quotas_) left[team] = q.gpus;
    std::vector<const Entry*> chosen, borrowers;
    std::int64_t budget = ctx.total_gpus();
    for (const Entry* e : all) {
      const auto it = left.find(e->job.team);
      if (it != left.end() && e->job.gpus <= it->second) {
        it->second -= e->job.gpus;
        budget -= e->job.gpus;
        chosen.push_back(e);
      } else {
        borrowers.push_back(e);
      }
    }
    // The rest borrow what is idle.
    std::stable_sort(borrowers.begin(), borrowers.end(), [&](const Entry* a, const Entry* b) {
      if (a->running != b->running) return a->running;
      const int pa = priority(a->job.team), pb = priority(b->job.team);
      if (pa != pb) return pa > pb;
      return false;  // stable: submit order from above
    });
    take_in_order(borrowers, budget, chosen);
    return chosen;
  }

  int priority(std::int32_t team) const {
    const auto it = quotas_.find(team);
    return it == quotas_.end() ? 0 : it->second.priority;
  }

  std::map<std::int32_t, TeamQuota> quotas_;
};

}  // namespace

std::unique_ptr<Scheduler> make_team_quotas(std::vector<TeamQuota> quotas) {
  return std::make_unique<TeamQuotas>(std::move(quotas));
}

}  // namespace fathom::sched
