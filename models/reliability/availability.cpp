#include "models/reliability/availability.hpp"

#include <tbb/parallel_for.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "sim/random.hpp"

namespace fathom::rel {

namespace {

constexpr double kYear = 365.25 * 86'400;
constexpr double kNever = std::numeric_limits<double>::infinity();

double up_probability(double mtbf_s, double repair_s) {
  if (!(mtbf_s > 0)) return 1.0;
  return mtbf_s / (mtbf_s + repair_s);
}

void check(const ServiceSpec& s) {
  if (s.replicas < 1 || s.needed < 1 || s.needed > s.replicas) {
    throw std::invalid_argument("service availability: needed must be between 1 and the replicas");
  }
  if (s.mtbf_s < 0 || s.repair_s < 0 || s.failover_s < 0 || !(s.horizon_s > 0) || s.replications < 1) {
    throw std::invalid_argument("service availability: negative times, no horizon or no replication");
  }
  for (const Dependency& d : s.depends_on) {
    if (d.mtbf_s < 0 || d.repair_s < 0) throw std::invalid_argument("service availability: negative times");
  }
}

// One replication: the share of the horizon the service was up. Time is in seconds here: the
// horizon (a thousand years) is past the integer clock's 292 years, and the figure is a share.
double simulate_once(const ServiceSpec& s, sim::RandomStream& random) {
  // Entities: the replicas, then the dependencies.
  struct Entity {
    double mtbf, repair;
    bool up = true;
    double next = kNever;
  };
  std::vector<Entity> e;
  for (int i = 0; i < s.replicas; ++i) e.push_back({s.mtbf_s, s.repair_s});
  for (const Dependency& d : s.depends_on) e.push_back({d.mtbf_s, d.repair_s});
  for (Entity& x : e) x.next = x.mtbf > 0 ? random.exponential(x.mtbf) : kNever;
  int replicas_up = s.replicas, deps_down = 0;
  double now = 0, uptime = 0, failover_until = 0;
  const auto service_up = [&] { return replicas_up >= s.needed && deps_down == 0; };
  while (true) {
    std::size_t first = 0;
    for (std::size_t i = 1; i < e.size(); ++i) {
      if (e[i].next < e[first].next) first = i;
    }
    const double t = std::min(e[first].next, s.horizon_s);
    if (service_up()) uptime += std::max(0.0, t - std::max(now, std::min(failover_until, t)));
    now = t;
    if (now >= s.horizon_s) break;
    Entity& x = e[first];
    const bool replica = first < static_cast<std::size_t>(s.replicas);
    if (x.up) {
      const bool was_up = service_up();
      x.up = false;
      x.next = now + (x.repair > 0 ? random.exponential(x.repair) : 0.0);
      if (replica) {
        // A serving replica (any k of the up ones serve) fails with probability k / up.
        const bool serving = random.uniform01() * replicas_up < s.needed;
        --replicas_up;
        if (was_up && service_up() && serving && s.failover_s > 0) {
          failover_until = std::max(failover_until, now + s.failover_s);
        }
      } else {
        ++deps_down;
      }
    } else {
      x.up = true;
      x.next = now + random.exponential(x.mtbf);
      if (replica) {
        ++replicas_up;
      } else {
        --deps_down;
      }
    }
  }
  return uptime / s.horizon_s;
}

}  // namespace

const std::vector<params::Parameter<ServiceSpec>>& service_parameters() {
  using params::Quantity;
  static constexpr std::string_view kService = "none: the service's own figure";
  static const std::vector<params::Parameter<ServiceSpec>> declared = {
      {"replicas", Quantity::kPositiveInt, FATHOM_PARAMETER_MEMBER(ServiceSpec, replicas),
       "replicas of the service, each failing and repaired on its own", "2"},
      {"needed", Quantity::kPositiveInt, FATHOM_PARAMETER_MEMBER(ServiceSpec, needed),
       "replicas that must be up for the service to be up (k of n)", "1"},
      {"mtbf", Quantity::kSeconds, FATHOM_PARAMETER_MEMBER(ServiceSpec, mtbf_s),
       "mean time between failures of one replica (exponential); 0: never fails", kService},
      {"repair", Quantity::kSeconds, FATHOM_PARAMETER_MEMBER(ServiceSpec, repair_s),
       "mean time to bring a failed replica back (exponential, a crew per replica)", kService},
      {"failover", Quantity::kSeconds, FATHOM_PARAMETER_MEMBER(ServiceSpec, failover_s),
       "outage when a serving replica fails and the clients move to another (no closed form with it)", "0"},
      {"horizon", Quantity::kSeconds, FATHOM_PARAMETER_MEMBER(ServiceSpec, horizon_s),
       "simulated time per replication (rare outages need a long one)", "1000 years"},
      {"replications",
       Quantity::kPositiveInt,
       FATHOM_PARAMETER_MEMBER(ServiceSpec, replications),
       "independent replications, each on its own random stream",
       "100",
       {},
       {},
       false,
       100'000},
  };
  return declared;
}

const std::vector<params::Parameter<Dependency>>& dependency_parameters() {
  using params::Quantity;
  static const std::vector<params::Parameter<Dependency>> declared = {
      {"mtbf", Quantity::kSeconds, FATHOM_PARAMETER_MEMBER(Dependency, mtbf_s),
       "mean time between the dependency's outages (exponential); 0: never fails", "none: the dependency's figure"},
      {"repair", Quantity::kSeconds, FATHOM_PARAMETER_MEMBER(Dependency, repair_s),
       "mean length of one of its outages (exponential)", "none: the dependency's figure"},
  };
  return declared;
}

double k_of_n_availability(int replicas, int needed, double p) {
  double sum = 0;
  for (int j = needed; j <= replicas; ++j) {
    const double ways = std::exp(std::lgamma(replicas + 1.0) - std::lgamma(j + 1.0) - std::lgamma(replicas - j + 1.0));
    sum += ways * std::pow(p, j) * std::pow(1 - p, replicas - j);
  }
  return std::min(1.0, sum);
}

double closed_form_availability(const ServiceSpec& s) {
  check(s);
  if (s.failover_s > 0) throw std::invalid_argument("closed_form_availability: no closed form with a failover time");
  double a = k_of_n_availability(s.replicas, s.needed, up_probability(s.mtbf_s, s.repair_s));
  for (const Dependency& d : s.depends_on) a *= up_probability(d.mtbf_s, d.repair_s);
  return a;
}

AvailabilityResult service_availability(const ServiceSpec& s, std::uint64_t seed) {
  check(s);
  AvailabilityResult r;
  if (!(s.failover_s > 0)) {
    r.closed_form = closed_form_availability(s);
    r.closed_form_downtime_s = (1 - *r.closed_form) * kYear;
  }
  std::vector<double> shares(static_cast<std::size_t>(s.replications)), downtime(shares.size());
  tbb::parallel_for(0, s.replications, [&](int i) {
    sim::RandomStream random(seed, static_cast<std::uint64_t>(i));
    shares[static_cast<std::size_t>(i)] = simulate_once(s, random);
  });
  for (std::size_t i = 0; i < shares.size(); ++i) downtime[i] = (1 - shares[i]) * kYear;
  r.simulated = sim::mean_interval(shares);
  r.simulated_downtime_s = sim::mean_interval(downtime);
  return r;
}

}  // namespace fathom::rel
