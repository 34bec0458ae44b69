#include "models/workloads/training/step_comms.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>
#include <unordered_map>

#include "models/collectives/algorithms.hpp"
#include "models/collectives/nccl_tuner.hpp"
#include "models/network/flow_network.hpp"
#include "models/network/flow_transfer.hpp"

namespace fathom::train {

namespace {
constexpr topo::VertexId kNone = std::numeric_limits<topo::VertexId>::max();
}  // namespace

StepComms::StepComms(const topo::ClusterSpec& cluster, const coll::CollectiveParams& params, std::uint64_t seed)
    : timer_(cluster, params, seed),
      router_(timer_.topology()),
      params_(params),
      seed_(seed),
      link_bytes_(timer_.topology().links().size(), 0.0) {
  const topo::Topology& t = timer_.topology();
  fabric_vertex_.assign(t.vertices().size(), kNone);
  for (topo::VertexId v = 0; v < t.vertices().size(); ++v) {
    const auto& vertex = t.vertex(v);
    if (vertex.kind == topo::VertexKind::kSwitch)
      fabric_vertex_[v] = fabric_.add_vertex(vertex.name, vertex.kind, vertex.tier);
  }
  for (topo::LinkId l = 0; l < t.links().size(); ++l) {
    const auto& link = t.link(l);
    if (fabric_vertex_[link.from] == kNone || fabric_vertex_[link.to] == kNone) continue;
    fabric_.add_link(fabric_vertex_[link.from], fabric_vertex_[link.to], link.bytes_per_s, link.latency_ns, link.cls);
    fabric_link_.push_back(l);
  }
  fabric_.routing = t.routing;
  fabric_router_ = std::make_unique<topo::Router>(fabric_);
}

void StepComms::begin_step() {
  group_sets_.clear();
  data_parallel_memo_.clear();
  std::fill(link_bytes_.begin(), link_bytes_.end(), 0.0);
}

coll::CollectiveTiming StepComms::group(coll::Op op, const std::vector<topo::VertexId>& ranks, double bytes) {
  if (ranks.size() < 2 || bytes <= 0) return {};
  return timer_.time(op, ranks, bytes);
}

double StepComms::pairs(const std::vector<FlowPair>& flows, double bytes) {
  if (flows.empty() || bytes <= 0) return 0;
  const Round r = round(flows);
  return static_cast<double>(params_.launch_ns + params_.alpha_ns + r.latency_ns) * 1e-9 + bytes * r.seconds_per_byte;
}

std::vector<topo::LinkId> StepComms::route(const FlowPair& flow, std::uint64_t hash) {
  std::vector<topo::LinkId> links;
  for (const auto& l : path(flow, hash, false)) links.push_back(l.link);
  return links;
}

std::vector<topo::SpreadLink> StepComms::path(const FlowPair& flow, std::uint64_t hash, bool spread) {
  const topo::Topology& t = timer_.topology();
  const auto [src, dst] = flow;
  std::vector<topo::SpreadLink> path;
  auto whole = [&](topo::LinkId l) { path.push_back({l, 1.0}); };
  // Router r's way from a to b: its route (fraction 1) or its spread; `map` turns r's link ids
  // into the cluster's.
  auto append = [&](topo::Router& r, topo::VertexId a, topo::VertexId b, std::uint64_t key, auto map) {
    if (spread) {
      for (const auto& l : r.spread(a, b)) path.push_back({map(l.link), l.fraction});
    } else {
      for (auto l : r.route(a, b, hash, key)) whole(map(l));
    }
  };
  const auto same = [](topo::LinkId l) { return l; };
  // Between GPUs of different nodes a route leaves over the source GPU's PCIe link to its NIC
  // and arrives over the destination NIC's PCIe link: routing NIC to NIC shares the router's
  // per-leaf distance tables instead of building one per destination GPU.
  auto nic_of = [&](topo::VertexId gpu, bool out) -> std::optional<topo::LinkId> {
    if (t.vertex(gpu).kind != topo::VertexKind::kGpu) return std::nullopt;
    std::optional<topo::LinkId> found;
    for (auto l : out ? t.out_links(gpu) : t.in_links(gpu)) {
      if (t.link(l).cls != topo::LinkClass::kPcie) continue;
      if (found) return std::nullopt;  // several NICs: let the router choose
      found = l;
    }
    return found;
  };
  if (src != dst && t.vertex(src).node != t.vertex(dst).node) {
    const auto up = nic_of(src, true);
    const auto down = nic_of(dst, false);
    if (up && down) {
      // And into the destination NIC over its one fabric link: route to that link's switch,
      // whose distance table every NIC under it shares.
      const topo::VertexId nic = t.link(*down).from;
      std::optional<topo::LinkId> last;
      int fabric_in = 0;
      for (auto l : t.in_links(nic)) {
        if (t.link(l).cls != topo::LinkClass::kPcie) {
          last = l;
          ++fabric_in;
        }
      }
      whole(*up);
      const topo::VertexId target = fabric_in == 1 ? t.link(*last).from : nic;
      // From the source NIC onto its one fabric link, then switch to switch.
      const topo::VertexId src_nic = t.link(*up).to;
      std::optional<topo::LinkId> first;
      int fabric_out = 0;
      for (auto l : t.out_links(src_nic)) {
        if (t.link(l).cls != topo::LinkClass::kPcie) {
          first = l;
          ++fabric_out;
        }
      }
      // D-mod-K branches by the destination NIC's host port, which the switch-only fabric_ cannot
      // number itself.
      const std::uint64_t key = router_.destination_index(nic);
      if (fabric_in == 1 && fabric_out == 1 && fabric_vertex_[t.link(*first).to] != kNone &&
          fabric_vertex_[target] != kNone) {
        whole(*first);
        append(*fabric_router_, fabric_vertex_[t.link(*first).to], fabric_vertex_[target], key,
               [&](topo::LinkId l) { return fabric_link_[l]; });
      } else {
        append(router_, src_nic, target, key, same);
      }
      if (fabric_in == 1) whole(*last);
      whole(*down);
      return path;
    }
  }
  append(router_, src, dst, router_.destination_index(dst), same);
  return path;
}

namespace {
// Whether a route leaves its node (crosses a NIC-leaf, leaf-spine or spine-core link).
bool crosses_fabric(const topo::Topology& t, const std::vector<topo::SpreadLink>& path) {
  for (const auto& l : path) {
    if (topo::is_fabric(t.link(l.link).cls)) return true;
  }
  return false;
}
}  // namespace

const StepComms::Round& StepComms::round(const std::vector<FlowPair>& flows) {
  auto it = rounds_.find(flows);
  if (it != rounds_.end()) return it->second;
  const topo::Topology& t = timer_.topology();
  const bool spread = t.routing == topo::Routing::kAdaptive;
  const int split = t.routing == topo::Routing::kEcmpHash ? params_.flows_per_connection : 1;
  Round result;
  result.routes.resize(flows.size());
  result.fractions.resize(flows.size());
  // The flows of the max-min round: each pair's path, or its sub-flows' (pair-major).
  std::vector<std::vector<topo::SpreadLink>> subflows;
  std::vector<std::uint32_t> first(flows.size() + 1, 0);
  subflows.reserve(flows.size());
  for (std::size_t i = 0; i < flows.size(); ++i) {
    first[i] = static_cast<std::uint32_t>(subflows.size());
    const std::uint64_t hash = net::flow_hash(seed_, i);
    subflows.push_back(path(flows[i], hash, spread));
    if (split > 1 && crosses_fabric(t, subflows.back())) {
      for (int j = 1; j < split; ++j) {
        subflows.push_back(path(flows[i], net::subflow_hash(hash, static_cast<std::uint32_t>(j)), false));
      }
    }
  }
  first[flows.size()] = static_cast<std::uint32_t>(subflows.size());
  result.subflows = subflows.size();
  // Each pair: the links its sub-flows load, with the part of its bytes on each (sub-flow k of n
  // carries 1/n), merged in order of first use.
  for (std::size_t i = 0; i < flows.size(); ++i) {
    const double each = 1.0 / (first[i + 1] - first[i]);
    std::unordered_map<topo::LinkId, std::size_t> at;
    auto& links = result.routes[i];
    auto& fractions = result.fractions[i];
    bool whole = true;
    for (std::uint32_t k = first[i]; k < first[i + 1]; ++k) {
      for (const auto& l : subflows[k]) {
        auto [pos, fresh] = at.try_emplace(l.link, links.size());
        if (fresh) {
          links.push_back(l.link);
          fractions.push_back(0.0);
        }
        fractions[pos->second] += l.fraction * each;
      }
    }
    for (double x : fractions) whole = whole && x == 1.0;
    if (whole) fractions.clear();
    std::int64_t latency = 0;
    for (std::uint32_t k = first[i]; k < first[i + 1]; ++k) {
      double ns = 0;
      for (const auto& l : subflows[k]) ns += l.fraction * static_cast<double>(t.link(l.link).latency_ns);
      latency = std::max(latency, static_cast<std::int64_t>(std::llround(ns)));
    }
    result.latency_ns = std::max(result.latency_ns, latency);
  }
  // Max-min over the links these flows use only (renumbered densely): the round costs what
  // its flows touch, not the size of the cluster.
  std::unordered_map<topo::LinkId, net::LinkId> local;
  std::vector<net::LinkCapacity> caps;
  std::vector<std::vector<net::LinkId>> local_routes(subflows.size());
  std::vector<std::vector<double>> local_fractions(subflows.size());
  for (std::size_t k = 0; k < subflows.size(); ++k) {
    bool whole = true;
    for (const auto& l : subflows[k]) {
      auto [pos, fresh] = local.try_emplace(l.link, static_cast<net::LinkId>(caps.size()));
      if (fresh) caps.push_back({t.link(l.link).bytes_per_s});
      local_routes[k].push_back(pos->second);
      local_fractions[k].push_back(l.fraction);
      whole = whole && l.fraction == 1.0;
    }
    if (whole) local_fractions[k].clear();
  }
  net::FlowNetwork network(std::move(caps));
  std::vector<net::FlowId> ids;
  ids.reserve(subflows.size());
  for (std::size_t k = 0; k < subflows.size(); ++k) {
    ids.push_back(network.add_flow(local_routes[k], local_fractions[k], 1.0, sim::SimTime{}));
  }
  network.update(sim::SimTime{});
  // The achievable share of a flow's max-min rate: the NIC efficiency when its route leaves
  // the node (PCIe, NICs and fabric run at it, docs/nccl-tests.md), the ring's NVLink
  // efficiency when it stays on NVLink. A pair split into n sub-flows moves n times its slowest
  // sub-flow's rate (each carries 1/n of the bytes, and the pair ends with the last).
  double slowest = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < flows.size(); ++i) {
    if (flows[i].first == flows[i].second) continue;
    bool nvlink_only = true;
    for (auto l : result.routes[i]) nvlink_only = nvlink_only && t.link(l).cls == topo::LinkClass::kNvLink;
    const double share = nvlink_only ? params_.efficiency.ring : params_.efficiency.nic;
    double rate = std::numeric_limits<double>::infinity();
    for (std::uint32_t k = first[i]; k < first[i + 1]; ++k) rate = std::min(rate, network.rate_bytes_per_s(ids[k]));
    slowest = std::min(slowest, rate * (first[i + 1] - first[i]) * share);
  }
  result.seconds_per_byte = std::isfinite(slowest) ? 1.0 / slowest : 0.0;
  return rounds_.emplace(flows, std::move(result)).first->second;
}

const std::vector<double>& StepComms::link_bytes() {
  for (auto& [key, cost] : data_parallel_memo_) {
    if (cost.calls > 0) record(cost.flows, cost.bytes_per_flow * cost.calls);
    cost.calls = 0;
  }
  return link_bytes_;
}

void StepComms::record(const std::vector<FlowPair>& flows, double bytes_per_flow) {
  if (bytes_per_flow <= 0 || flows.empty()) return;
  const Round& r = round(flows);
  for (std::size_t i = 0; i < r.routes.size(); ++i) {
    const auto& fractions = r.fractions[i];
    for (std::size_t h = 0; h < r.routes[i].size(); ++h) {
      link_bytes_[r.routes[i][h]] += bytes_per_flow * (fractions.empty() ? 1.0 : fractions[h]);
    }
  }
}

int StepComms::add_groups(std::vector<std::vector<topo::VertexId>> groups) {
  group_sets_.push_back(std::move(groups));
  return static_cast<int>(group_sets_.size()) - 1;
}

int StepComms::data_parallel_channels(int groups) const {
  const auto& set = group_sets_.at(static_cast<std::size_t>(groups));
  if (set.empty() || set.front().size() < 2) return 0;
  return coll::tuner_group(timer_.topology(), set.front()).channels;
}

double StepComms::data_parallel(coll::Op op, int groups, double bytes, double share) {
  const auto& set = group_sets_.at(static_cast<std::size_t>(groups));
  if (set.empty() || set.front().size() < 2 || bytes <= 0) return 0;
  const auto key = std::make_tuple(static_cast<int>(op), bytes, groups);
  auto it = data_parallel_memo_.find(key);
  if (it == data_parallel_memo_.end()) it = data_parallel_memo_.emplace(key, time_data_parallel(op, set, bytes)).first;
  // Link bytes are added once, in link_bytes(): one pass over the routes per distinct call.
  it->second.calls += share;
  return it->second.seconds;
}

StepComms::DataParallelCost StepComms::time_data_parallel(coll::Op op,
                                                          const std::vector<std::vector<topo::VertexId>>& groups,
                                                          double bytes) {
  DataParallelCost cost;
  const topo::Topology& t = timer_.topology();
  const auto nodes0 = coll::ranks_by_node(t, groups.front());
  const auto m = static_cast<int>(nodes0.size());
  const auto g = static_cast<int>(nodes0.front().size());
  double& seconds = cost.seconds;
  if (m == 1) {
    seconds = timer_.time(op, groups.front(), bytes).seconds;
  } else {
    // Inter-node rings: rail j of every group, node i sends to node i + 1.
    std::vector<FlowPair>& flows = cost.flows;
    for (const auto& group : groups) {
      const auto nodes = coll::ranks_by_node(t, group);
      if (static_cast<int>(nodes.size()) != m) throw std::invalid_argument("data-parallel groups of unequal shape");
      for (const auto& rail : coll::rails_of(nodes)) {
        for (std::size_t i = 0; i < rail.size(); ++i) flows.emplace_back(rail[i], rail[(i + 1) % rail.size()]);
      }
    }
    const Round r = round(flows);
    if (op != coll::Op::kAllReduce && g > 1) {
      // NCCL runs reduce-scatter and all-gather as one flat ring over every rank of the group
      // (its only algorithm for them across nodes with several GPUs a node): g channels, each a
      // ring through all n = g m ranks that enters and leaves each node once, through its own
      // NIC. A channel's n - 1 steps are n - m NVLink hops and m - 1 network hops, each paying
      // alpha and its own hop's latency (NCCL's tuning model charges the same: n - 1 - (m - 1)
      // intra-node step latencies and m - 1 network ones), and its bytes, (n - 1)/n of the
      // channel's S / g, cross every node boundary at the network rate. The latency grows with
      // n, not m: what makes ZeRO-3's many gathers over thousands of GPUs latency-bound.
      std::vector<FlowPair> nvlink;
      for (int j = 0; j < g; ++j) nvlink.emplace_back(nodes0.front()[j], nodes0.front()[(j + 1) % g]);
      const std::int64_t nvlink_latency_ns = round(nvlink).latency_ns;
      const int n = g * m;
      const double channel_bytes = bytes / g * (n - 1) / n;
      seconds = static_cast<double>(n - m) * static_cast<double>(params_.alpha_ns + nvlink_latency_ns) * 1e-9 +
                static_cast<double>(m - 1) * static_cast<double>(params_.alpha_ns + r.latency_ns) * 1e-9 +
                channel_bytes * r.seconds_per_byte + static_cast<double>(params_.launch_ns) * 1e-9;
      cost.bytes_per_flow = channel_bytes;
      return cost;
    }
    const double piece = bytes / g / m;  // what one rail's ring moves per step
    const int steps = op == coll::Op::kAllReduce ? 2 * (m - 1) : m - 1;
    const double step_s = static_cast<double>(params_.alpha_ns + r.latency_ns) * 1e-9 + piece * r.seconds_per_byte;
    seconds = steps * step_s;
    cost.bytes_per_flow = steps * piece;
    // One launch for the whole collective: the intra-node phases' timings include one each.
    seconds += static_cast<double>(params_.launch_ns) * 1e-9;
    if (g > 1) {
      // Intra-node phases on one node (every node's phase runs on its own NVLink links).
      const double launch = static_cast<double>(params_.launch_ns) * 1e-9;
      if (op != coll::Op::kAllGather) {
        seconds += timer_.time(coll::Op::kReduceScatter, nodes0.front(), bytes).seconds - launch;
      }
      if (op != coll::Op::kReduceScatter) {
        seconds += timer_.time(coll::Op::kAllGather, nodes0.front(), bytes).seconds - launch;
      }
    }
  }
  return cost;
}

}  // namespace fathom::train
