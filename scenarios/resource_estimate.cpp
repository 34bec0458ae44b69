#include "scenarios/resource_estimate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "models/collectives/step_period.hpp"
#include "scenarios/units.hpp"
#include "topologies/cluster.hpp"

namespace fathom::scenario {

namespace {

// Bytes each, measured with /usr/bin/time's peak RSS on fathom's own runs (2026-12-02): the
// difference between two sizes of one scenario over the difference of the counts.
constexpr double kBytesPerLink = 1500;     // fathom topology: 512 and 2,048 nodes, 1,409 B per directed link
constexpr double kBytesPerFlow = 3200;     // fathom simulate, random pattern: 5,000 and 20,000 flows
constexpr double kBytesPerPass = 100;      // fathom simulate, pilot: 3,200 and 12,800 micro-batches, 94 B per pass
constexpr double kBytesPerTransfer = 400;  // fathom nccl-tests, ring 1 GiB, 128 and 512 GPUs: 410 B per DAG transfer

// Directed links inside the nodes and from them to their leaves, and between switches.
struct Links {
  double hosts = 0;
  double switches = 0;
};

Links directed_links(const topo::ClusterSpec& c) {
  const double nodes = c.nodes;
  Links l;
  // Each GPU's NVLink to its plane and, where the node has NICs, its PCIe path to one.
  l.hosts = nodes * c.node.gpus * (c.node.nics > 0 ? 2 : 1);
  try {
    const topo::FabricLayout f = topo::layout_fabric(c);
    l.hosts += f.nic_ports;  // host to leaf
    const double pods = std::max(1, f.pods);
    const double leaves_per_group = f.tiers == 3 ? f.leaves_per_pod : f.leaves;
    l.switches = pods * leaves_per_group * f.spines * f.links_per_leaf_spine;
    if (f.tiers == 3) l.switches += pods * f.spines * f.cores_per_spine * f.links_per_spine_core;
  } catch (const std::exception&) {
    // A fabric that does not lay out is refused by the loader with its own error.
  }
  l.hosts *= 2;
  l.switches *= 2;
  return l;
}

double traffic_flows(const Scenario& s) {
  const TrafficWorkload& t = s.traffic;
  if (t.from_file) return static_cast<double>(t.rows.size());
  const workload::TrafficSpec& g = t.generated;
  const double per_node = t.endpoints == EndpointKind::kGpu ? s.cluster.node.gpus : s.cluster.node.nics;
  // The pattern runs once over the cluster's endpoints, or once per node over its own.
  const double groups = g.within_node ? static_cast<double>(s.cluster.nodes) : 1.0;
  const double all = g.within_node ? per_node : static_cast<double>(s.cluster.nodes) * per_node;
  const double e = g.endpoints > 0 ? std::min(all, static_cast<double>(g.endpoints)) : all;
  switch (g.pattern) {
    case workload::TrafficPattern::kAllToAll:
      return groups * e * (e - 1);
    case workload::TrafficPattern::kIncast:
      return groups * (e - 1);
    case workload::TrafficPattern::kRandom:
      return groups * static_cast<double>(g.flows);
    default:
      return groups * e;  // permutation, ring
  }
}

std::string about(double bytes) {
  return bytes >= 9.2e18 ? std::string("more than 8 EiB") : format_bytes(static_cast<std::int64_t>(bytes));
}

std::string count_text(double count) {
  char buf[32];
  std::snprintf(buf, sizeof buf, count < 1e6 ? "%.0f" : "%.3g", count);
  return buf;
}

}  // namespace

ResourceEstimate estimate_cluster(const topo::ClusterSpec& cluster) {
  ResourceEstimate e;
  const Links links = directed_links(cluster);
  e.uses.push_back({"directed links of the nodes and to their leaves (with vertices and routes)", "cluster.nodes",
                    links.hosts, kBytesPerLink, "cluster.nodes, or the GPUs and NICs per node"});
  e.uses.push_back({"directed links between switches (with vertices and routes)", "cluster.fabric", links.switches,
                    kBytesPerLink, "the fabric: its radix, spines, cores or tiers"});
  return e;
}

ResourceUse nccl_tests_dag(std::int64_t ranks, double max_bytes, const coll::CollectiveParams& params) {
  // A ring all-reduce: 2(n - 1) steps of n sends, each cut into slices of slice_bytes, at most
  // max_slices per GPU of the chain. It is timed by its period (coll::run_by_step_period): the
  // steps held are a prefix, taken here as two prefixes' worth (one doubling); a fabric that
  // breaks the period costs more, up to every step.
  const double n = static_cast<double>(std::max<std::int64_t>(ranks, 1));
  const double real = std::ceil(max_bytes / n / std::max(1.0, params.slice_bytes));
  const double cap = static_cast<double>(params.max_slices) * std::max(1.0, n - 2);
  const double slices = std::clamp(real, 1.0, std::max(1.0, cap));
  const double steps = std::min(2 * (n - 1), 2.0 * coll::kFirstPrefixSteps);
  return {"transfers of the largest size's collective DAG (GPUs x steps simulated x slices)", "collectives.max_slices",
          ranks < 2 ? 0.0 : steps * n * slices, kBytesPerTransfer,
          "the largest size (-e), the GPUs (--nodes, --gpus-per-node) or collectives.max_slices, raise "
          "collectives.slice, or time the sizes with --closed-form"};
}

double ResourceEstimate::bytes() const {
  double total = 0;
  for (const auto& u : uses) total += u.bytes();
  return total;
}

const ResourceUse* ResourceEstimate::largest() const {
  const auto it = std::max_element(uses.begin(), uses.end(),
                                   [](const ResourceUse& a, const ResourceUse& b) { return a.bytes() < b.bytes(); });
  return it == uses.end() ? nullptr : &*it;
}

ResourceEstimate estimate_resources(const Scenario& s) {
  ResourceEstimate e = estimate_cluster(s.cluster);
  if (s.workload == WorkloadKind::kTraffic) {
    const bool random = s.traffic.generated.pattern == workload::TrafficPattern::kRandom;
    const std::string key = s.traffic.from_file ? "workload.flows_file"
                            : random            ? "workload.flows"
                                                : "workload.endpoints";
    e.uses.push_back({"traffic flows", key, traffic_flows(s), kBytesPerFlow, key});
  } else if (s.workload == WorkloadKind::kTraining) {
    const train::TrainingSpec& t = s.training;
    const double micro_batches =
        static_cast<double>(t.global_batch) / std::max(1.0, static_cast<double>(t.micro_batch) * t.parallel.dp);
    const double passes = micro_batches * t.parallel.pp * t.parallel.virtual_stages * 2;
    e.uses.push_back({"pipeline passes per step (micro-batches x stages x chunks, forward and backward)",
                      "workload.global_batch", passes, kBytesPerPass,
                      "workload.global_batch (or raise workload.micro_batch)"});
  } else if (s.workload == WorkloadKind::kInference) {
    // A request (12 bytes), its outcome (24), its three latency samples (24) and its place in a
    // replica's queue (about 40).
    constexpr double kBytesPerRequest = 100;
    const std::string key =
        s.inference.source == RequestSource::kAzureLlm ? "workload.requests.limit" : "workload.requests.count";
    e.uses.push_back(
        {"inference requests", key, static_cast<double>(s.inference.requests.size()), kBytesPerRequest, key});
  }
  return e;
}

ResourceEstimate estimate_nccl_tests(const Scenario& s, std::int64_t ranks, std::int64_t max_bytes, bool closed_form,
                                     unsigned threads) {
  ResourceEstimate e = estimate_cluster(s.cluster);
  if (!closed_form) e.uses.push_back(nccl_tests_dag(ranks, static_cast<double>(max_bytes), s.collectives));
  // Each thread holds a cluster and a DAG of its own: counted as that many of the largest.
  for (ResourceUse& use : e.uses) use.count *= std::max(1U, threads);
  return e;
}

namespace {

// "about X, most of it N <what> at about Y each"
std::string found_text(const ResourceEstimate& estimate) {
  const ResourceUse& big = *estimate.largest();
  return "about " + about(estimate.bytes()) + ", most of it " + count_text(big.count) + " " + big.what + " at about " +
         about(big.bytes_each) + " each";
}

std::string expected_text(double limit_bytes) {
  return "a run within fathom's memory limit of " + about(limit_bytes) + " (--max-memory)";
}

std::string shrink_text(const ResourceUse& big) {
  return "shrink " + (big.shrink.empty() ? big.key : big.shrink) +
         ", or raise --max-memory on a machine with more memory";
}

}  // namespace

void require_within_memory(const Scenario& s, const ResourceEstimate& estimate, double limit_bytes) {
  if (estimate.bytes() <= limit_bytes) return;
  const ResourceUse& big = *estimate.largest();
  std::string key = big.key;
  while (!key.empty() && !s.locations.count(key)) {
    const auto cut = key.find_last_of(".[");
    key = cut == std::string::npos ? std::string() : key.substr(0, cut);
  }
  const Location where = key.empty() ? Location{s.file, 0, 0} : s.locations.at(key);
  throw ScenarioError(where, big.key, expected_text(limit_bytes), found_text(estimate), shrink_text(big));
}

void require_within_memory(const std::string& what, const ResourceEstimate& estimate, double limit_bytes,
                           const std::string& shrink) {
  if (estimate.bytes() <= limit_bytes) return;
  throw std::invalid_argument(what + ": expected " + expected_text(limit_bytes) + ", found " + found_text(estimate) +
                              "; " +
                              (shrink.empty() ? shrink_text(*estimate.largest()) : shrink + ", or raise --max-memory"));
}

}  // namespace fathom::scenario
