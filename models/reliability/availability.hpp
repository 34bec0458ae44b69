// The availability of a service (docs/run.md#availability-of-a-service): n replicas of which k
// must be up, each failing and being repaired on its own, a failover outage whenever a serving
// replica fails, and dependencies (a storage tier, the network) in series.
//
// Each replica and each dependency alternates between up (exponential, mean `mtbf`) and down
// (exponential, mean `repair`), every one with its own repair crew. The service is up while at
// least k replicas and every dependency are up, outside failover windows: when a replica fails
// while the service is up and leaves at least k up, the service still stops for `failover` (the
// clients move to another replica) if the failed replica was one of the k serving (a share k/n
// of failures, the serving ones being any k of those up).
//
// Closed form (no failover): a replica is up with probability p = repair rate / (failure rate +
// repair rate) independently of the others (its own crew), so the replicas' availability is the
// binomial tail sum over j >= k of C(n, j) p^j (1-p)^(n-j), the stationary probability of the
// birth-death Markov chain of failed replicas; dependencies multiply it by theirs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/params/parameter.hpp"
#include "sim/stats/confidence.hpp"

namespace fathom::rel {

struct Dependency {
  std::string name;
  double mtbf_s = 0;  // 0: never fails
  double repair_s = 0;
};

struct ServiceSpec {
  int replicas = 2;
  int needed = 1;
  double mtbf_s = 0;    // per replica
  double repair_s = 0;  // per replica
  double failover_s = 0;
  std::vector<Dependency> depends_on;
  double horizon_s = 1000 * 365.25 * 86'400;  // simulated per replication
  int replications = 100;
};

struct AvailabilityResult {
  std::optional<double> closed_form;  // none with a failover time: the chain has no product form
  sim::MeanInterval simulated;
  // Yearly downtime, seconds: (1 - availability) x a year of 365.25 days.
  std::optional<double> closed_form_downtime_s;
  sim::MeanInterval simulated_downtime_s;
};

// The declared scalar keys of `availability:` (docs/parameters.md), beside `depends_on`; and of
// one dependency under it.
const std::vector<params::Parameter<ServiceSpec>>& service_parameters();
const std::vector<params::Parameter<Dependency>>& dependency_parameters();

// The binomial tail: at least `needed` of `replicas` up, each with probability `p`.
double k_of_n_availability(int replicas, int needed, double p);
// The closed form of the spec without failover; std::invalid_argument with one.
double closed_form_availability(const ServiceSpec& spec);

// std::invalid_argument on an inconsistent spec (needed > replicas, a negative time).
AvailabilityResult service_availability(const ServiceSpec& spec, std::uint64_t seed);

}  // namespace fathom::rel
