// What a run will hold in memory, estimated from the scenario before anything large is built,
// so that a scenario too large for the machine is refused at once, at the key to shrink, instead
// of running for minutes and dying with std::bad_alloc (issue 13).
//
// Each use is a count the scenario implies (topology links, traffic flows, pipeline passes,
// transfers of a collective's DAG) times the bytes one of them takes, measured on fathom's own
// structures (docs/scenarios.md, "Errors": "Memory limit"). The estimate is an order of magnitude, not an
// accounting: it is there to turn away a million nodes or a billion micro-batches, and the limit
// (kDefaultMemoryLimit, or --max-memory) leaves room for what it does not count.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/collectives/collective_params.hpp"
#include "scenarios/scenario.hpp"
#include "topologies/cluster_spec.hpp"

namespace fathom::scenario {

struct ResourceUse {
  std::string what;  // "directed links of the topology"
  std::string key;   // the scenario key that sets the count: where to shrink it
  double count = 0;  // how many
  double bytes_each = 0;
  std::string shrink;  // what to make smaller, in the user's words (default: the key)
  double bytes() const { return count * bytes_each; }
};

struct ResourceEstimate {
  std::vector<ResourceUse> uses;
  double bytes() const;
  const ResourceUse* largest() const;  // nullptr when empty
};

// The default limit: 16 GiB, below the memory of the machines fathom's CI and users run on.
inline constexpr double kDefaultMemoryLimit = 16.0 * (1ULL << 30);

// The topology a cluster builds into (its directed links, with their vertices and routes).
ResourceEstimate estimate_cluster(const topo::ClusterSpec& cluster);

// The transfers of the largest DAG a simulated nccl-tests sweep up to `max_bytes` over `ranks`
// GPUs builds (a ring all-reduce cut into params' slices); a count of 0 below two ranks.
ResourceUse nccl_tests_dag(std::int64_t ranks, double max_bytes, const coll::CollectiveParams& params);

// The topology and the scenario's own workload (traffic flows, training passes).
ResourceEstimate estimate_resources(const Scenario& scenario);

// A simulated nccl-tests sweep up to `max_bytes` over `ranks` GPUs: the topology, plus the
// largest size's transfer DAG (none with closed forms); both once per thread timing sizes.
ResourceEstimate estimate_nccl_tests(const Scenario& scenario, std::int64_t ranks, std::int64_t max_bytes,
                                     bool closed_form, unsigned threads = 1);

// Throws ScenarioError at the largest use's key when the estimate passes `limit_bytes`: what it
// counted, how much that is, and what to shrink (or --max-memory to raise the limit).
void require_within_memory(const Scenario& scenario, const ResourceEstimate& estimate, double limit_bytes);
// The same for a system that is not a scenario's (a calibration's or validation's, resized to a
// log's node count): std::invalid_argument starting with `what` ("a system of 100000 nodes"),
// ending with `shrink` (what the user can make smaller; default: the largest use's).
void require_within_memory(const std::string& what, const ResourceEstimate& estimate, double limit_bytes,
                           const std::string& shrink = {});

}  // namespace fathom::scenario
