#include "models/collectives/collective_timer.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

#include "models/collectives/alpha_beta.hpp"
#include "models/collectives/nccl_tuner.hpp"
#include "models/collectives/step_period.hpp"
#include "models/collectives/transfer_dag.hpp"
#include "topologies/cluster.hpp"

namespace fathom::coll {

namespace {

constexpr std::string_view kSetByCaller = "set by caller";

// Which of AlgorithmEfficiency's figures scales NVLink for an algorithm.
enum class NvlinkFigure { kNvls, kTree, kRing };
NvlinkFigure nvlink_figure(Algorithm algorithm) {
  switch (algorithm) {
    case Algorithm::kNvls:
    case Algorithm::kNvlsTree:
      return NvlinkFigure::kNvls;
    case Algorithm::kDoubleBinaryTree:
      return NvlinkFigure::kTree;
    case Algorithm::kRing:
    case Algorithm::kDirect:
    case Algorithm::kHalvingDoubling:
    case Algorithm::kHierarchical:
      return NvlinkFigure::kRing;
  }
  return NvlinkFigure::kRing;
}

}  // namespace

double nvlink_efficiency(Algorithm algorithm, const AlgorithmEfficiency& efficiency) {
  switch (nvlink_figure(algorithm)) {
    case NvlinkFigure::kNvls:
      return efficiency.nvls;
    case NvlinkFigure::kTree:
      return efficiency.tree;
    case NvlinkFigure::kRing:
      return efficiency.ring;
  }
  return efficiency.ring;
}

void scale_rates(const topo::Topology& plain, topo::Topology& into, double nvlink_fraction, double nic_fraction) {
  if (into.links().size() != plain.links().size()) {
    throw std::logic_error("scale_rates: the copy has other links than the plain topology");
  }
  for (topo::LinkId l = 0; l < plain.links().size(); ++l) {
    const topo::Link& link = plain.link(l);
    const double fraction = link.cls == topo::LinkClass::kNvLink    ? nvlink_fraction
                            : link.cls == topo::LinkClass::kStorage ? 1.0
                                                                    : nic_fraction;
    into.set_rate(l, link.bytes_per_s * fraction);
  }
}

CollectiveTimer::CollectiveTimer(topo::ClusterSpec cluster, CollectiveParams params, std::uint64_t seed)
    : cluster_(std::move(cluster)), params_(params), seed_(seed), plain_(topo::build_cluster(cluster_)) {}

void CollectiveTimer::set_params(const CollectiveParams& params) {
  params_ = params;
  memo_.clear();
  concurrent_memo_.clear();
}

CollectiveTimer::Scaled& CollectiveTimer::scaled(Algorithm algorithm, Protocol protocol) {
  const double wire = params_.cost(protocol).bandwidth_fraction;  // a protocol's flags ride every link
  const double nvlink = nvlink_efficiency(algorithm, params_.efficiency) * wire;
  const double nic = params_.efficiency.nic * wire;
  auto& slot = scaled_[{static_cast<int>(nvlink_figure(algorithm)), static_cast<int>(protocol)}];
  if (!slot) {
    slot = std::make_unique<Scaled>();
    slot->topology = plain_;
    // Routes go by hops alone, and every scaled copy has plain_'s links in plain_'s order: one
    // router (on the first copy, which lives as long as the timer) routes for all of them, so a
    // connection is routed once whatever the protocol or efficiency its collective runs at.
    if (!router_) router_ = std::make_unique<topo::Router>(slot->topology);
  }
  if (slot->nvlink_fraction != nvlink || slot->nic_fraction != nic) {
    // New parameters: the same links at new rates; the routes (by hops alone) stay cached.
    scale_rates(plain_, slot->topology, nvlink, nic);
    slot->nvlink_fraction = nvlink;
    slot->nic_fraction = nic;
  }
  return *slot;
}

const topo::Topology& CollectiveTimer::topology_for(Algorithm algorithm, Protocol protocol) {
  return scaled(algorithm, protocol).topology;
}

CollectiveSpec CollectiveTimer::spec(const std::vector<topo::VertexId>& ranks, double bytes, Protocol protocol) const {
  CollectiveSpec spec;
  spec.ranks = ranks;
  spec.bytes = bytes;
  spec.alpha_ns = params_.cost(protocol).alpha_ns;
  spec.slice_bytes = params_.slice_bytes;
  spec.nvls_slice_bytes = params_.nvls_slice_bytes();
  // NVLS on one plane: NCCL's chunk for this size (NVLS-tree keeps the largest: NCCL's own rule
  // for it differs by version and node count).
  const GroupShape shape = group_shape(plain_, ranks);
  if (shape.one_nvlink_domain && shape.nvls) {
    spec.nvls_slice_bytes = params_.nvls_chunk_for(bytes, shape.ranks) * params_.nvls_channels;
  }
  spec.max_slices = params_.max_slices;
  spec.step_ns = params_.step_ns;
  spec.nvls_step_ns = params_.nvls_step_ns;
  spec.router = router_.get();
  spec.root = 0;
  return spec;
}

CollectiveTiming CollectiveTimer::resolve(Op op, const std::vector<topo::VertexId>& ranks, double bytes,
                                          std::optional<Algorithm> algorithm) const {
  CollectiveTiming t;
  if (params_.tuner == Tuner::kNccl) {
    if (op == Op::kAllToAll || op == Op::kSendRecv) {
      t.algorithm = algorithm.value_or(Algorithm::kDirect);
      t.reason = algorithm ? kSetByCaller : std::string_view("point-to-point: every pair at once");
      const double per_peer = op == Op::kAllToAll && !ranks.empty() ? bytes / static_cast<double>(ranks.size()) : bytes;
      t.protocol = params_.protocol.value_or(nccl_p2p_protocol(per_peer));
      return t;
    }
    if (const auto choice = nccl_choice(op, bytes, tuner_group(plain_, ranks), params_.protocol, algorithm)) {
      t.algorithm = choice->algorithm;
      t.protocol = choice->protocol;
      t.reason = algorithm ? kSetByCaller : std::string_view("NCCL's cost model: least estimated time");
      return t;
    }
    // One rank, or an algorithm NCCL has no model for: the thresholds' choice below.
  }
  if (algorithm) {
    t.algorithm = *algorithm;
    t.reason = kSetByCaller;
  } else {
    const AlgorithmChoice choice =
        choose_algorithm(op, bytes, group_shape(plain_, ranks), params_.nvls_min_bytes, params_.tree_max_bytes);
    t.algorithm = choice.algorithm;
    t.reason = choice.reason;
  }
  const bool nvls = t.algorithm == Algorithm::kNvls || t.algorithm == Algorithm::kNvlsTree;
  t.protocol =
      nvls ? Protocol::kSimple
           : params_.protocol.value_or(params_.protocol_for(bytes, t.algorithm == Algorithm::kDoubleBinaryTree));
  return t;
}

TransferDag CollectiveTimer::build(Op op, const CollectiveTiming& t, const topo::Topology& topology,
                                   const std::vector<topo::VertexId>& ranks, double bytes) const {
  return build_collective(op, t.algorithm, topology, spec(ranks, bytes, t.protocol));
}

CollectiveTiming CollectiveTimer::time(Op op, const std::vector<topo::VertexId>& ranks, double bytes,
                                       std::optional<Algorithm> algorithm) {
  Key key{static_cast<int>(op), algorithm ? static_cast<int>(*algorithm) : -1, bytes, ranks};
  if (auto it = memo_.find(key); it != memo_.end()) return it->second;
  CollectiveTiming t = resolve(op, ranks, bytes, algorithm);
  Scaled& s = scaled(t.algorithm, t.protocol);
  sim::SimTime makespan;
  const CollectiveSpec sliced = spec(ranks, bytes, t.protocol);
  if (const auto steps = stepped_collective(op, t.algorithm, s.topology, sliced)) {
    // Its steps repeat: simulated until they show their period, or scaled by the ring's lattice
    // where they show none within the prefix budget (step_period.hpp).
    const StepModel lattice = [&](int k) { return ring_steps_seconds(s.topology, *router_, sliced, k); };
    makespan = run_by_step_period(s.topology, *router_, steps->build, steps->steps, seed_, params_.flows_per_connection,
                                  nullptr, &lattice)
                   .makespan;
  } else {
    const TransferDag dag = build(op, t, s.topology, ranks, bytes);
    makespan = run_dag(s.topology, *router_, dag, seed_, params_.flows_per_connection, DagRecord::kMakespan).makespan;
  }
  t.seconds = makespan.to_seconds() + static_cast<double>(params_.launch_ns) * 1e-9;
  memo_.emplace(std::move(key), t);
  return t;
}

CollectiveTiming CollectiveTimer::closed_form(Op op, const std::vector<topo::VertexId>& ranks, double bytes,
                                              std::optional<Algorithm> algorithm) {
  CollectiveTiming t = resolve(op, ranks, bytes, algorithm);
  Scaled& s = scaled(t.algorithm, t.protocol);
  // The spec differs from the validated one only in sizes and costs: validate once per group.
  const bool first = validated_.emplace(static_cast<int>(op), static_cast<int>(t.algorithm), ranks).second;
  t.seconds = alpha_beta_seconds(op, t.algorithm, s.topology, *router_, spec(ranks, bytes, t.protocol), seed_, first,
                                 &shapes_) +
              static_cast<double>(params_.launch_ns) * 1e-9;
  return t;
}

std::vector<CollectiveTiming> CollectiveTimer::time_concurrent(Op op,
                                                               const std::vector<std::vector<topo::VertexId>>& groups,
                                                               double bytes, std::optional<Algorithm> algorithm) {
  ConcurrentKey key{static_cast<int>(op), algorithm ? static_cast<int>(*algorithm) : -1, bytes, groups};
  if (auto it = concurrent_memo_.find(key); it != concurrent_memo_.end()) return it->second;
  std::vector<CollectiveTiming> out;
  if (groups.empty()) return out;
  for (const auto& g : groups) {
    out.push_back(resolve(op, g, bytes, algorithm));
    if (out.back().algorithm != out.front().algorithm) {
      throw std::invalid_argument("CollectiveTimer::time_concurrent: group " + std::to_string(out.size() - 1) +
                                  " gets " + std::string(to_string(out.back().algorithm)) + ", group 0 gets " +
                                  std::string(to_string(out.front().algorithm)) + "; the groups must share one");
    }
  }
  Scaled& s = scaled(out.front().algorithm, out.front().protocol);
  // One DAG: each group's transfers in turn, their predecessors shifted by the group's offset.
  TransferDag merged;
  std::vector<std::size_t> begin;
  for (const auto& g : groups) begin.push_back(merged.append(build(op, out.front(), s.topology, g, bytes)));
  begin.push_back(merged.size());
  const DagResult result = run_dag(s.topology, *router_, merged, seed_, params_.flows_per_connection);
  for (std::size_t k = 0; k < groups.size(); ++k) {
    sim::SimTime finish;
    for (std::size_t i = begin[k]; i < begin[k + 1]; ++i) finish = std::max(finish, result.transfers[i].finish);
    out[k].seconds = finish.to_seconds() + static_cast<double>(params_.launch_ns) * 1e-9;
  }
  concurrent_memo_.emplace(std::move(key), out);
  return out;
}

}  // namespace fathom::coll
