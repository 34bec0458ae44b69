#include "models/workloads/jobs/shared_cluster.hpp"

#include <memory>
#include <stdexcept>
#include <string>

namespace fathom::jobs {

SharedClusterRun run_shared_cluster(std::span<const TraceJob> jobs, std::span<const sim::SimTime> estimates,
                                    JobClusterSpec spec, std::span<const SharedService> services, std::uint64_t seed,
                                    const sim::RunOptions& options) {
  spec.claimants.clear();
  std::vector<std::unique_ptr<infer::ServiceOnEngine>> engines;
  for (std::size_t k = 0; k < services.size(); ++k) {
    const SharedService& s = services[k];
    if (s.model == nullptr)
      throw std::invalid_argument("run_shared_cluster: service " + std::to_string(k) + " has no model");
    if (s.spec.disaggregation.enabled()) {
      throw std::invalid_argument("run_shared_cluster: service " + std::to_string(k) + " is disaggregated");
    }
    Claimant c;
    c.gpus_per_replica = s.gpus_per_replica;
    c.priority = s.priority;
    c.initial = s.spec.serving.replicas;
    spec.claimants.push_back(c);
    // The cluster's LP is found when the services join the engine (below).
    engines.push_back(std::make_unique<infer::ServiceOnEngine>(s.requests, s.spec, *s.model, nullptr,
                                                               infer::ClaimLink{0, static_cast<std::uint32_t>(k)}));
  }
  SharedClusterRun out;
  ClusterTenants tenants;
  tenants.options = options;
  tenants.add = [&](sim::Simulation& simulation, sim::LpId cluster, std::uint32_t group) {
    if (cluster != 0) throw std::logic_error("run_shared_cluster: the cluster is not the engine's first LP");
    for (std::size_t k = 0; k < engines.size(); ++k) spec.claimants[k].lp = engines[k]->add_to(simulation, group);
  };
  tenants.collect = [&](const sim::RunResult& result) {
    for (auto& e : engines) out.services.push_back(e->collect(result));
  };
  out.jobs = run_job_cluster(jobs, estimates, spec, seed, &tenants);
  return out;
}

}  // namespace fathom::jobs
