// Router: BFS distance tables keyed on a destination's attachment, ECMP walks over them.
#include "topologies/routing.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "sim/hash.hpp"

namespace fathom::topo {

std::uint64_t ecmp_mix(std::uint64_t flow_hash, std::uint32_t hop) { return sim::hash_combine(flow_hash, hop); }

bool forwards(VertexKind kind) {
  switch (kind) {
    case VertexKind::kNic:
    case VertexKind::kNvSwitch:
    case VertexKind::kSwitch:
      return true;
    case VertexKind::kGpu:
    case VertexKind::kCpu:
    case VertexKind::kStorage:
    case VertexKind::kWafer:
      return false;
  }
  return false;
}

std::uint32_t Router::Target::distance(VertexId v, bool via_pcie) const {
  const std::size_t p = via_pcie ? 1 : 0;
  std::uint32_t best = kNoPath;
  for (std::size_t i = 0; i < count; ++i) {
    const Term& term = terms[i];
    if (term.table == nullptr) {
      if (v == term.vertex && ((term.states >> p) & 1) != 0) best = std::min(best, term.offset);
    } else if (const std::uint16_t d = term.table->dist[2 * static_cast<std::size_t>(v) + p]; d != kNoPath16) {
      best = std::min(best, d + term.offset);
    }
  }
  return best;
}

std::size_t Router::RouteKeyHash::operator()(const RouteKey& k) const {
  return static_cast<std::size_t>(sim::hash_combine((static_cast<std::uint64_t>(k.src) << 32) | k.dst, k.flow_hash));
}

Router::Router(const Topology& topology, std::size_t table_budget_bytes, Tables tables)
    : topo_(topology), table_budget_bytes_(table_budget_bytes), sharing_(tables) {
  const std::size_t n = topology.vertices().size();
  // BFS states are numbered 2 * vertex + p in 32 bits.
  if (n >= (std::size_t{1} << 31)) throw std::length_error("Router: more than 2^31 vertices");
  forwards_.resize(n);
  pcie_in_.assign(n, 0);
  out_begin_.assign(n + 1, 0);
  in_begin_.assign(n + 1, 0);
  for (VertexId v = 0; v < n; ++v) {
    forwards_[v] = forwards(topology.vertex(v).kind) ? 1 : 0;
    out_begin_[v + 1] = out_begin_[v] + static_cast<std::uint32_t>(topology.out_links(v).size());
    in_begin_[v + 1] = in_begin_[v] + static_cast<std::uint32_t>(topology.in_links(v).size());
  }
  out_arcs_.reserve(topology.links().size());
  in_arcs_.reserve(topology.links().size());
  for (VertexId v = 0; v < n; ++v) {
    for (LinkId l : topology.out_links(v)) {
      const Link& link = topology.link(l);
      out_arcs_.push_back(Arc{link.to, l, link.cls == LinkClass::kPcie});
    }
    for (LinkId l : topology.in_links(v)) {
      const Link& link = topology.link(l);
      in_arcs_.push_back(Arc{link.from, l, link.cls == LinkClass::kPcie});
      if (link.cls == LinkClass::kPcie) pcie_in_[v] = 1;
    }
  }
  number_destinations();
}

// D-mod-K numbering, from the wiring alone. Leaves are the tier-1 switches in the order they were
// built (leaf0, leaf1, ...); a host's port is its place among its leaf's endpoint in-links, in
// LinkId order (the order the builder cabled them); H is the most host ports any leaf has.
void Router::number_destinations() {
  const std::size_t n = forwards_.size();
  tier_.assign(n, -1);
  std::int32_t top = 1;
  for (VertexId v = 0; v < n; ++v) {
    const Vertex& x = topo_.vertex(v);
    if (x.kind == VertexKind::kSwitch) {
      tier_[v] = std::max(x.tier, 0);
      top = std::max(top, tier_[v]);
    }
  }
  auto is_endpoint = [&](VertexId v) {
    const VertexKind kind = topo_.vertex(v).kind;
    return kind != VertexKind::kSwitch && kind != VertexKind::kNvSwitch;
  };
  // Up ports per switch of each tier (the most any switch of the tier has), then
  // tier_divisor_[l] = the product of those of tiers 1 .. l-1.
  std::vector<std::uint64_t> up_ports(static_cast<std::size_t>(top) + 1, 1);
  std::uint64_t host_ports = 1;
  for (VertexId v = 0; v < n; ++v) {
    if (tier_[v] < 1) continue;
    std::uint64_t up = 0;
    for (std::uint32_t i = out_begin_[v]; i < out_begin_[v + 1]; ++i)
      up += tier_[out_arcs_[i].other] > tier_[v] ? 1 : 0;
    auto& most = up_ports[static_cast<std::size_t>(tier_[v])];
    most = std::max(most, up);
    if (tier_[v] == 1) {
      std::uint64_t hosts = 0;
      for (std::uint32_t i = in_begin_[v]; i < in_begin_[v + 1]; ++i) hosts += is_endpoint(in_arcs_[i].other) ? 1 : 0;
      host_ports = std::max(host_ports, hosts);
    }
  }
  // Saturating, so that no made-up graph of many tiers wraps a divisor round to zero.
  constexpr std::uint64_t kMaxDivisor = std::uint64_t{1} << 62;
  tier_divisor_.assign(static_cast<std::size_t>(top) + 1, 1);
  for (std::size_t l = 2; l < tier_divisor_.size(); ++l) {
    const std::uint64_t below = tier_divisor_[l - 1];
    tier_divisor_[l] = below > kMaxDivisor / up_ports[l - 1] ? kMaxDivisor : below * up_ports[l - 1];
  }

  constexpr std::uint64_t kUnset = ~std::uint64_t{0};
  destination_index_.assign(n, kUnset);
  std::uint64_t leaf = 0;
  for (VertexId v = 0; v < n; ++v) {
    if (tier_[v] != 1) continue;
    std::uint64_t port = 0;
    for (std::uint32_t i = in_begin_[v]; i < in_begin_[v + 1]; ++i) {
      const VertexId host = in_arcs_[i].other;
      if (!is_endpoint(host)) continue;
      if (destination_index_[host] == kUnset) destination_index_[host] = leaf * host_ports + port;
      ++port;
    }
    ++leaf;
  }
  // An endpoint off the fabric takes the index of the first host it is cabled behind (a GPU: its
  // NIC); anything else (a switch, where no host route ends) its own id.
  const std::vector<std::uint64_t> hosts = destination_index_;
  for (VertexId v = 0; v < n; ++v) {
    if (hosts[v] != kUnset) continue;
    std::uint64_t index = v;
    for (std::uint32_t i = in_begin_[v]; i < in_begin_[v + 1] && is_endpoint(v); ++i) {
      if (hosts[in_arcs_[i].other] != kUnset) {
        index = hosts[in_arcs_[i].other];
        break;
      }
    }
    destination_index_[v] = index;
  }
}

void Router::check(VertexId src, VertexId dst) const {
  const std::size_t n = forwards_.size();
  if (src >= n || dst >= n) {
    throw std::invalid_argument("Router: vertex id " + std::to_string(src >= n ? src : dst) +
                                " does not exist (the topology has " + std::to_string(n) + " vertices)");
  }
}

void Router::unreachable(VertexId src, VertexId dst) const {
  throw std::invalid_argument("Router: no route from \"" + topo_.vertex(src).name + "\" to \"" +
                              topo_.vertex(dst).name + "\"");
}

Router::Target Router::target(VertexId src, VertexId dst) {
  ++target_epoch_;
  Target t;
  t.dst = dst;
  compose(t, dst, 3, 0, 0, 0);
  // Routes start at src not having arrived over PCIe (state 2 * src).
  for (std::size_t i = 0; i < t.count; ++i) {
    if (t.terms[i].table != nullptr && src != dst) reach(*t.terms[i].table, 2 * src);
  }
  return t;
}

void Router::compose(Target& t, VertexId v, std::uint8_t states, std::uint32_t offset, int depth, std::size_t reserve) {
  // A route to v ends over one of its in-links that arrives in one of `states`.
  constexpr int kMaxDepth = 3;
  constexpr std::size_t kMaxFanIn = 2;
  std::size_t ways = 0;
  for (std::uint32_t i = in_begin_[v]; i < in_begin_[v + 1]; ++i) ways += (states >> in_arcs_[i].pcie) & 1;
  const bool split = sharing_ == Tables::kComposed && depth < kMaxDepth && ways <= kMaxFanIn &&
                     t.count + 1 + ways + reserve <= kMaxTerms;
  if (!split) {
    t.terms[t.count++] = Term{&table_for(v, states), v, states, offset};
    return;
  }
  t.terms[t.count++] = Term{nullptr, v, states, offset};  // a route already at v
  std::size_t left = ways;
  for (std::uint32_t i = in_begin_[v]; i < in_begin_[v + 1]; ++i) {
    const Arc& arc = in_arcs_[i];
    if (((states >> arc.pcie) & 1) == 0) continue;
    --left;
    // A flow never turns from one PCIe link onto another; a vertex that does not forward can
    // only be where the route starts (state 0).
    const std::uint8_t before = arc.pcie ? 1 : 3;
    if (forwards_[arc.other] != 0) {
      compose(t, arc.other, before, offset + 1, depth + 1, reserve + left);
    } else {
      t.terms[t.count++] = Term{nullptr, arc.other, 1, offset + 1};
    }
  }
}

Router::Table& Router::table_for(VertexId vertex, std::uint8_t states) {
  ++clock_;
  const std::uint64_t key = table_key(vertex, states);
  if (auto it = tables_.find(key); it != tables_.end()) {
    it->second.last_used = clock_;
    it->second.pinned = target_epoch_;
    return it->second;
  }
  const std::size_t least_bytes = 2 * forwards_.size() * sizeof(std::uint16_t);
  Table fresh;
  // A BFS that stopped after a small part of the graph (a destination asked about only from its
  // own node) is cheaper to run again than to keep: the oldest such table gives its storage
  // to the new one, so a node-local workload reuses a few tables' memory instead of touching a
  // fresh table per destination. A table the current target() uses stays.
  std::vector<std::uint64_t> in_use;
  while (!small_tables_.empty() && fresh.dist.empty()) {
    const std::uint64_t old_key = small_tables_.front();
    small_tables_.pop_front();
    auto it = tables_.find(old_key);
    if (it == tables_.end() || !is_small(it->second)) continue;
    if (it->second.pinned == target_epoch_) {
      in_use.push_back(old_key);
      continue;
    }
    table_bytes_held_ -= it->second.bytes();
    for (std::uint32_t state : it->second.queue) it->second.dist[state] = kNoPath16;
    fresh.queue = std::move(it->second.queue);
    fresh.queue.clear();
    fresh.dist = std::move(it->second.dist);
    tables_.erase(it);
  }
  small_tables_.insert(small_tables_.begin(), in_use.begin(), in_use.end());
  // Over budget: the least recently used table goes, and its storage is reused.
  while (fresh.dist.empty() && table_bytes_held_ + least_bytes > table_budget_bytes_) {
    auto oldest = tables_.end();
    for (auto it = tables_.begin(); it != tables_.end(); ++it) {
      if (it->second.pinned == target_epoch_) continue;
      if (oldest == tables_.end() || it->second.last_used < oldest->second.last_used) oldest = it;
    }
    if (oldest == tables_.end()) break;  // every table held is in use: over budget for now
    table_bytes_held_ -= oldest->second.bytes();
    // A BFS that kept its queue set only the states in it: resetting those is enough.
    if (!oldest->second.queue.empty()) {
      for (std::uint32_t state : oldest->second.queue) oldest->second.dist[state] = kNoPath16;
      fresh.queue = std::move(oldest->second.queue);
      fresh.queue.clear();
    } else {
      std::fill(oldest->second.dist.begin(), oldest->second.dist.end(), kNoPath16);
    }
    fresh.dist = std::move(oldest->second.dist);
    tables_.erase(oldest);
  }
  Table& table = tables_.emplace(key, std::move(fresh)).first->second;
  table.last_used = clock_;
  table.pinned = target_epoch_;
  start_bfs(table, vertex, states);
  table_bytes_held_ += table.bytes();
  small_tables_.push_back(key);
  return table;
}

bool Router::is_small(const Table& table) const {
  return !table.queue.empty() && table.queue.size() * kSmallShare < table.dist.size();
}

// Reverse BFS from `key` over states (vertex, arrived over PCIe). A state (v, p) steps to w over
// link v->w unless p and the link are both PCIe; a vertex other than `key` that does not
// forward is a start only, never expanded.
void Router::start_bfs(Table& table, VertexId key, std::uint8_t states) {
  const std::size_t n = forwards_.size();
  if (table.dist.size() != 2 * n) table.dist.assign(2 * n, kNoPath16);
  table.key = key;
  table.complete = false;
  table.head = 0;
  if (table.queue.capacity() < spare_queue_.capacity()) table.queue.swap(spare_queue_);
  table.queue.clear();
  for (std::uint32_t p = 0; p < 2; ++p) {
    if (((states >> p) & 1) == 0) continue;
    table.dist[2 * key + p] = 0;
    table.queue.push_back(2 * key + p);
  }
}

void Router::reach(Table& table, std::uint32_t state) {
  if (table.complete || table.dist[state] != kNoPath16) return;
  const std::size_t bytes_before = table.bytes();
  const VertexId key = table.key;
  auto& queue = table.queue;
  std::size_t head = table.head;
  // A BFS that has outgrown a small one runs to the end: what is left is a small part of the
  // work, and a complete table needs no queue.
  while (head < queue.size() && (table.dist[state] == kNoPath16 || queue.size() * kSmallShare >= table.dist.size())) {
    const std::uint32_t at = queue[head++];
    const VertexId w = at / 2;
    const bool arrived_pcie = (at & 1) != 0;
    if (w != key && forwards_[w] == 0) continue;
    const std::uint16_t d = table.dist[at];
    if (d + 1 >= kNoPath16) throw std::length_error("Router: a shortest route is longer than 65534 links");
    for (std::uint32_t i = in_begin_[w]; i < in_begin_[w + 1]; ++i) {
      const Arc& arc = in_arcs_[i];
      if (arc.pcie != arrived_pcie) continue;  // this link arrives in the other state
      const std::size_t base = 2 * static_cast<std::size_t>(arc.other);
      // State 1 exists only at vertices with a PCIe in-link; skipping it elsewhere halves the
      // work on fabrics without PCIe. After a PCIe link only state 0 may precede it (no
      // PCIe -> PCIe turn).
      const std::size_t states = arc.pcie || pcie_in_[arc.other] == 0 ? 1 : 2;
      for (std::size_t p = 0; p < states; ++p) {
        if (table.dist[base + p] != kNoPath16) continue;
        table.dist[base + p] = static_cast<std::uint16_t>(d + 1);
        queue.push_back(static_cast<std::uint32_t>(base + p));
      }
    }
  }
  table.head = head;
  if (head == queue.size()) {
    // Every reachable state has its distance: the queue is no longer needed, unless it is
    // short (a search that found no way out of a node), when it is what resets the table cheaply.
    table.complete = true;
    if (queue.size() * kSmallShare >= table.dist.size()) {
      if (queue.capacity() > spare_queue_.capacity()) spare_queue_.swap(queue);
      std::vector<std::uint32_t>().swap(queue);
    }
    table.head = 0;
  }
  table_bytes_held_ = table_bytes_held_ - bytes_before + table.bytes();
}

void Router::candidates(const Target& t, VertexId at, bool via_pcie, std::uint32_t dist,
                        std::vector<std::uint32_t>& out) const {
  for (std::uint32_t i = out_begin_[at]; i < out_begin_[at + 1]; ++i) {
    const Arc& arc = out_arcs_[i];
    if (via_pcie && arc.pcie) continue;
    if (arc.other != t.dst && forwards_[arc.other] == 0) continue;
    const std::uint32_t rest = t.distance(arc.other, arc.pcie);
    if (rest != kNoPath && rest + 1 == dist) out.push_back(i);
  }
}

std::uint64_t Router::destination_index(VertexId v) const {
  if (v >= destination_index_.size()) {
    throw std::invalid_argument("Router: vertex id " + std::to_string(v) + " does not exist (the topology has " +
                                std::to_string(destination_index_.size()) + " vertices)");
  }
  return destination_index_[v];
}

std::uint64_t Router::dmodk_divisor(VertexId at, VertexId next) const {
  const std::int32_t tier = tier_[at];
  if (tier < 1) return 1;
  // Up from tier l: digit l; down from tier l: the digit the same destination used going up
  // from tier l - 1, so parallel cables down mirror the way up from the destination's side.
  const std::int32_t digit = tier_[next] > tier ? tier : tier - 1;
  return tier_divisor_[static_cast<std::size_t>(digit)];
}

const std::vector<LinkId>& Router::route(VertexId src, VertexId dst, std::uint64_t flow_hash) {
  return route(src, dst, flow_hash, dst < destination_index_.size() ? destination_index_[dst] : dst);
}

const std::vector<LinkId>& Router::route(VertexId src, VertexId dst, std::uint64_t flow_hash,
                                         std::uint64_t destination_key) {
  // Destination routing ignores the flow's hash: the cache is keyed by what picks the branches.
  const bool by_destination = topo_.routing == Routing::kDestination;
  const RouteKey key{src, dst, by_destination ? destination_key : flow_hash};
  if (auto it = routes_.find(key); it != routes_.end()) return it->second;
  std::vector<LinkId> path;
  walk(src, dst, flow_hash, destination_key, path);
  return routes_.emplace(key, std::move(path)).first->second;
}

void Router::route_into(VertexId src, VertexId dst, std::uint64_t flow_hash, std::vector<LinkId>& out) {
  walk(src, dst, flow_hash, dst < destination_index_.size() ? destination_index_[dst] : dst, out);
}

void Router::walk(VertexId src, VertexId dst, std::uint64_t flow_hash, std::uint64_t destination_key,
                  std::vector<LinkId>& path) {
  const bool by_destination = topo_.routing == Routing::kDestination;
  check(src, dst);
  path.clear();
  if (src == dst) return;
  const Target t = target(src, dst);
  std::uint32_t dist = t.distance(src, false);
  if (dist == kNoPath) unreachable(src, dst);
  path.reserve(dist);
  VertexId at = src;
  bool via_pcie = false;
  for (std::uint32_t hop = 0; at != dst; ++hop, --dist) {
    scratch_.clear();
    candidates(t, at, via_pcie, dist, scratch_);
    // Cannot happen: the BFS gave `at` its distance through one of these very arcs.
    if (scratch_.empty()) throw std::logic_error("Router: no shortest continuation at " + topo_.vertex(at).name);
    // D-mod-K: a digit of the destination's index picks the branch (Routing::kDestination).
    const std::uint64_t branch = by_destination ? destination_key / dmodk_divisor(at, out_arcs_[scratch_.front()].other)
                                                : ecmp_mix(flow_hash, hop);
    const Arc& pick = out_arcs_[scratch_[branch % scratch_.size()]];
    path.push_back(pick.link);
    at = pick.other;
    via_pcie = pick.pcie;
  }
}

const std::vector<SpreadLink>& Router::spread(VertexId src, VertexId dst) {
  const RouteKey key{src, dst, 0};
  if (auto it = spreads_.find(key); it != spreads_.end()) return it->second;
  check(src, dst);
  std::vector<SpreadLink> out;
  if (src != dst) {
    const Target t = target(src, dst);
    std::uint32_t dist = t.distance(src, false);
    if (dist == kNoPath) unreachable(src, dst);
    // Hop by hop: every state (vertex, arrived over PCIe) at this distance with the fraction of
    // the flow that reaches it, split evenly over its candidates. States and links of one hop are
    // merged in id order, so the sums are taken in the same order on every run.
    frontier_.assign(1, {2 * src, 1.0});
    for (; dist > 0; --dist) {
      next_frontier_.clear();
      const std::size_t hop_begin = out.size();
      for (const auto& [state, fraction] : frontier_) {
        scratch_.clear();
        candidates(t, state / 2, (state & 1) != 0, dist, scratch_);
        if (scratch_.empty())
          throw std::logic_error("Router: no shortest continuation at " + topo_.vertex(state / 2).name);
        const double each = fraction / static_cast<double>(scratch_.size());
        for (std::uint32_t arc : scratch_) {
          const Arc& a = out_arcs_[arc];
          out.push_back({a.link, each});
          next_frontier_.emplace_back(2 * a.other + (a.pcie ? 1 : 0), each);
        }
      }
      auto merge = [](auto& v, auto key, auto add) {
        std::stable_sort(v.begin(), v.end(), [&](const auto& a, const auto& b) { return key(a) < key(b); });
        std::size_t kept = 0;
        for (std::size_t i = 0; i < v.size(); ++i) {
          if (kept > 0 && key(v[kept - 1]) == key(v[i])) {
            add(v[kept - 1], v[i]);
          } else {
            v[kept++] = v[i];
          }
        }
        v.resize(kept);
      };
      std::vector<SpreadLink> hop(out.begin() + static_cast<std::ptrdiff_t>(hop_begin), out.end());
      merge(
          hop, [](const SpreadLink& l) { return l.link; },
          [](SpreadLink& a, const SpreadLink& b) { a.fraction += b.fraction; });
      out.resize(hop_begin);
      out.insert(out.end(), hop.begin(), hop.end());
      merge(
          next_frontier_, [](const auto& s) { return s.first; }, [](auto& a, const auto& b) { a.second += b.second; });
      frontier_.swap(next_frontier_);
    }
  }
  return spreads_.emplace(key, std::move(out)).first->second;
}

std::vector<LinkId> Router::next_links(VertexId src, VertexId dst) {
  check(src, dst);
  std::vector<LinkId> out;
  if (src == dst) return out;
  const Target t = target(src, dst);
  const std::uint32_t dist = t.distance(src, false);
  if (dist == kNoPath) unreachable(src, dst);
  scratch_.clear();
  candidates(t, src, false, dist, scratch_);
  for (std::uint32_t arc : scratch_) out.push_back(out_arcs_[arc].link);
  return out;
}

std::optional<std::uint32_t> Router::hop_count(VertexId src, VertexId dst) {
  check(src, dst);
  if (src == dst) return 0;
  const std::uint32_t dist = target(src, dst).distance(src, false);
  if (dist == kNoPath) return std::nullopt;
  return dist;
}

}  // namespace fathom::topo
