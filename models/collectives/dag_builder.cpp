#include "models/collectives/dag_builder.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <unordered_set>

namespace fathom::coll::detail {

using topo::VertexId;

void validate(const CollectiveSpec& spec, std::string_view what, std::size_t min_ranks) {
  const std::string where(what);
  if (spec.ranks.size() < min_ranks) {
    throw std::invalid_argument(where + ": needs at least " + std::to_string(min_ranks) + " ranks, got " +
                                std::to_string(spec.ranks.size()));
  }
  std::unordered_set<VertexId> seen;
  for (VertexId v : spec.ranks) {
    if (!seen.insert(v).second)
      throw std::invalid_argument(where + ": vertex " + std::to_string(v) + " is a rank twice");
  }
  if (!(spec.slice_bytes >= 0) || !std::isfinite(spec.slice_bytes) || !(spec.nvls_slice_bytes >= 0) ||
      !std::isfinite(spec.nvls_slice_bytes)) {
    throw std::invalid_argument(where + ": slice sizes must be finite and >= 0, got " +
                                std::to_string(spec.slice_bytes) + " and " + std::to_string(spec.nvls_slice_bytes));
  }
  if (spec.max_slices < 1) {
    throw std::invalid_argument(where + ": max_slices must be >= 1, got " + std::to_string(spec.max_slices));
  }
  if (!(spec.bytes >= 0) || !std::isfinite(spec.bytes)) {
    throw std::invalid_argument(where + ": bytes must be finite and >= 0, got " + std::to_string(spec.bytes));
  }
  if (spec.alpha_ns < 0) throw std::invalid_argument(where + ": alpha_ns must be >= 0");
  if (spec.step_ns < 0 || spec.nvls_step_ns < 0) {
    throw std::invalid_argument(where + ": step_ns and nvls_step_ns must be >= 0");
  }
  if (spec.root < 0 || static_cast<std::size_t>(spec.root) >= spec.ranks.size()) {
    throw std::invalid_argument(where + ": root " + std::to_string(spec.root) + " is not a rank");
  }
}

Pieces Pieces::of(const Slicing& slicing, double message_bytes) {
  Pieces p;
  p.count = slicing.count;
  p.first_bytes = message_bytes * slicing.fraction(0);
  if (slicing.count >= 2) {
    p.middle_bytes = message_bytes * slicing.fraction(1);
    p.middle_ns = slicing.delay_ns(1);
  }
  if (slicing.count >= 3) {
    p.last_bytes = message_bytes * slicing.fraction(slicing.count - 1);
    p.last_ns = slicing.delay_ns(slicing.count - 1);
  }
  return p;
}

Pieces Pieces::with_count(int new_count) const {
  if (new_count < 3 || count < 3) throw std::invalid_argument("Pieces::with_count: needs three slices or more");
  Pieces p = *this;
  p.count = new_count;
  return p;
}

std::uint32_t Ports::index(VertexId src, VertexId dst) {
  const std::uint64_t key = (static_cast<std::uint64_t>(src) << 32) | dst;
  if (const auto it = index_.find(key); it != index_.end()) return it->second;
  const auto is_end = [&](VertexId v) {
    const topo::VertexKind kind = topology_.vertex(v).kind;
    return kind == topo::VertexKind::kGpu || kind == topo::VertexKind::kNic;
  };
  // Not kept in the router: the ends are kept here, and the router keeps the flows' routes.
  std::vector<topo::LinkId>& route = route_;
  router_.route_into(src, dst, 0, route);
  Ends& e = ends_.emplace_back();
  e.first = static_cast<std::uint32_t>(links_.size());
  std::size_t lead = 0;
  while (lead < route.size() && is_end(topology_.link(route[lead]).from)) links_.push_back(route[lead++]);
  if (lead > 0) e.out = route[lead - 1];
  std::size_t back = route.size();
  while (back > lead && is_end(topology_.link(route[back - 1]).to)) links_.push_back(route[--back]);
  if (back < route.size()) e.in = route[back];
  e.count = static_cast<std::uint32_t>(links_.size() - e.first);
  const auto number = static_cast<std::uint32_t>(ends_.size() - 1);
  index_.emplace(key, number);
  return number;
}

std::vector<int> step_slots(const std::vector<SlotItem>& items) {
  std::vector<int> colour(items.size(), 0);
  std::vector<std::size_t> order(items.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return items[a].step < items[b].step; });
  // One step at a time: ends numbered densely (sending ends even, receiving ends odd, an end
  // missing on one side a vertex of its own), at[v * width + c] the item of colour c at v.
  std::unordered_map<std::int64_t, int> index;
  std::vector<int> end_of(2 * items.size());
  std::vector<int> at;
  for (std::size_t begin = 0; begin < order.size();) {
    std::size_t end = begin;
    while (end < order.size() && items[order[end]].step == items[order[begin]].step) ++end;
    index.clear();
    int vertices = 0;
    const auto vertex = [&](std::int64_t key) {
      auto [it, fresh] = index.try_emplace(key, vertices);
      if (fresh) ++vertices;
      return it->second;
    };
    std::vector<int> degree;
    for (std::size_t k = begin; k < end; ++k) {
      const SlotItem& it = items[order[k]];
      const std::int64_t solo = -2 - static_cast<std::int64_t>(k);  // a vertex of its own
      const int u = vertex(it.out >= 0 ? 2 * it.out : 2 * solo);
      const int v = vertex(it.in >= 0 ? 2 * it.in + 1 : 2 * solo + 1);
      end_of[2 * k] = u;
      end_of[2 * k + 1] = v;
      degree.resize(static_cast<std::size_t>(vertices), 0);
      ++degree[static_cast<std::size_t>(u)];
      ++degree[static_cast<std::size_t>(v)];
    }
    const int width = degree.empty() ? 0 : *std::max_element(degree.begin(), degree.end());
    at.assign(static_cast<std::size_t>(vertices) * static_cast<std::size_t>(width), -1);
    const auto slot = [&](int v, int c) -> int& {
      return at[static_cast<std::size_t>(v) * static_cast<std::size_t>(width) + static_cast<std::size_t>(c)];
    };
    const auto free_colour = [&](int v) {
      int c = 0;
      while (slot(v, c) >= 0) ++c;
      return c;
    };
    for (std::size_t k = begin; k < end; ++k) {
      const int u = end_of[2 * k], v = end_of[2 * k + 1];
      const int a = free_colour(u), b = free_colour(v);
      if (a != b && slot(v, a) >= 0) {
        // Swap colours a and b along the path from v that alternates them; in a bipartite graph
        // it cannot reach u, so afterwards a is free at both ends.
        std::vector<int> path;
        int w = v, c = a;
        while (slot(w, c) >= 0) {
          const int e = slot(w, c);
          path.push_back(e);
          w = end_of[2 * static_cast<std::size_t>(e)] == w ? end_of[2 * static_cast<std::size_t>(e) + 1]
                                                           : end_of[2 * static_cast<std::size_t>(e)];
          c = c == a ? b : a;
        }
        for (int e : path) {
          const int x = end_of[2 * static_cast<std::size_t>(e)], y = end_of[2 * static_cast<std::size_t>(e) + 1];
          slot(x, colour[order[static_cast<std::size_t>(e)]]) = -1;
          slot(y, colour[order[static_cast<std::size_t>(e)]]) = -1;
        }
        for (int e : path) {
          int& col = colour[order[static_cast<std::size_t>(e)]];
          col = col == a ? b : a;
          slot(end_of[2 * static_cast<std::size_t>(e)], col) = e;
          slot(end_of[2 * static_cast<std::size_t>(e) + 1], col) = e;
        }
      }
      colour[order[k]] = a;
      slot(u, a) = static_cast<int>(k);
      slot(v, a) = static_cast<int>(k);
    }
    begin = end;
  }
  return colour;
}

TransferIndex Builder::add(VertexId src, VertexId dst, double bytes, std::vector<TransferIndex> after, int slice,
                           bool serial_src, bool serial_dst) {
  // The sender's previous message, when this one may follow it as soon as it has left.
  std::optional<TransferIndex> sent;
  if (serial_src) {
    if (auto it = last_send_.find(key(src)); it != last_send_.end()) {
      const Transfer& previous = dag_[it->second];
      const bool data = std::find(after.begin(), after.end(), it->second) != after.end();
      if (sends_in_flight_ && slice == 0 && !data && previous.dst == dst) {
        sent = it->second;
      } else {
        after.push_back(it->second);
      }
    }
  }
  if (serial_dst) {
    if (auto it = last_recv_.find(key(dst)); it != last_recv_.end() && it->second != sent) after.push_back(it->second);
  }
  std::sort(after.begin(), after.end());
  after.erase(std::unique(after.begin(), after.end()), after.end());
  if (sent) after.insert(after.begin(), *sent);
  const std::int64_t delay = slice == 0 ? alpha_ns_ : slicing_.delay_ns(slice);
  const TransferIndex i = dag_.add({src, dst, bytes, delay, slice > 0, sent.has_value(), channel_}, after);
  steps_.push_back(step_);
  last_send_[key(src)] = i;
  last_recv_[key(dst)] = i;
  return i;
}

TransferIndex Builder::add_queued(VertexId src, VertexId dst, double bytes, std::span<const TransferIndex> after,
                                  Delay role, std::span<const topo::LinkId> links, std::uint32_t connection) {
  const bool pipelined = role != kAlpha;
  auto [previous, fresh] =
      last_on_connection_.try_emplace({(static_cast<std::uint64_t>(src) << 32) | dst, connection}, 0);
  const auto sorted = [](std::vector<TransferIndex>& v) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
  };
  start_after_.assign(after.begin(), after.end());
  if (!fresh) start_after_.push_back(previous->second);
  sorted(start_after_);
  roles_.resize(dag_.size(), kNone);
  bytes_after_.clear();
  if (free_starts_ == FreeStarts::kDrop && pipelined && delays_.ns[role] == 0) {
    bytes_after_.swap(start_after_);
  } else {
    bytes_after_.push_back(dag_.add({src, dst, 0, delays_.ns[role], pipelined, false, connection}, start_after_));
    roles_.push_back(role);
    steps_.push_back(step_);
  }
  for (topo::LinkId l : links) {
    if (l < last_on_link_.size() && last_on_link_[l] != kNoTransfer) bytes_after_.push_back(last_on_link_[l]);
  }
  sorted(bytes_after_);
  const TransferIndex i = dag_.add({src, dst, bytes, 0, true, false, connection}, bytes_after_);
  roles_.push_back(kNone);
  steps_.push_back(step_);
  for (topo::LinkId l : links) {
    if (l >= last_on_link_.size()) last_on_link_.resize(static_cast<std::size_t>(l) + 1, kNoTransfer);
    last_on_link_[l] = i;
  }
  previous->second = i;
  return i;
}

PipelineDag Builder::take_pipeline() {
  roles_.resize(dag_.size(), kNone);
  return {std::move(dag_), std::move(roles_)};
}

StepDag Builder::take_steps() { return {std::move(dag_), std::move(steps_)}; }

std::optional<TransferIndex> Builder::last_recv(VertexId v) const {
  auto it = last_recv_.find(key(v));
  return it == last_recv_.end() ? std::nullopt : std::optional<TransferIndex>(it->second);
}

VertexId plane_of(const topo::Topology& topology, VertexId gpu) {
  for (topo::LinkId l : topology.out_links(gpu)) {
    const VertexId to = topology.link(l).to;
    if (topology.vertex(to).kind == topo::VertexKind::kNvSwitch) return to;
  }
  throw std::invalid_argument("collective: " + topology.vertex(gpu).name + " has no NVLink to an NVSwitch plane");
}

VertexId common_plane(const topo::Topology& topology, const std::vector<VertexId>& gpus, std::string_view what) {
  const VertexId plane = plane_of(topology, gpus[0]);
  for (VertexId g : gpus) {
    if (plane_of(topology, g) != plane) {
      throw std::invalid_argument(std::string(what) + ": " + topology.vertex(g).name +
                                  " is not on the NVSwitch plane " + topology.vertex(plane).name);
    }
  }
  if (!topology.vertex(plane).in_switch_reduction) {
    throw std::invalid_argument(std::string(what) + ": " + topology.vertex(plane).name +
                                " does not reduce in the switch (node.nvls is off)");
  }
  return plane;
}

std::vector<std::vector<VertexId>> by_node(const topo::Topology& topology, const std::vector<VertexId>& ranks,
                                           std::string_view what) {
  auto nodes = ranks_by_node(topology, ranks);
  for (const auto& n : nodes) {
    if (n.size() != nodes[0].size()) {
      throw std::invalid_argument(std::string(what) + ": every node must hold as many ranks (" +
                                  std::to_string(nodes[0].size()) + " vs " + std::to_string(n.size()) + ")");
    }
  }
  return nodes;
}

TreePair tree_pair(int n) {
  TreePair p;
  p.parent = double_binary_tree_parents(n);
  const auto un = static_cast<std::size_t>(std::max(n, 0));
  p.children.assign(2, std::vector<std::vector<int>>(un));
  p.height.assign(2, std::vector<int>(un, 0));
  p.depth.assign(2, std::vector<int>(un, 0));
  for (std::size_t t = 0; t < 2; ++t) {
    for (int r = 0; r < n; ++r) {
      const int up = p.parent[t][static_cast<std::size_t>(r)];
      if (up < 0) {
        p.root[t] = r;
      } else {
        p.children[t][static_cast<std::size_t>(up)].push_back(r);
      }
    }
    for (int r = 0; r < n; ++r) {
      int d = 0;
      for (int v = r; p.parent[t][static_cast<std::size_t>(v)] >= 0; v = p.parent[t][static_cast<std::size_t>(v)]) {
        ++d;
        auto& h = p.height[t][static_cast<std::size_t>(p.parent[t][static_cast<std::size_t>(v)])];
        h = std::max(h, d);
      }
      p.depth[t][static_cast<std::size_t>(r)] = d;
    }
    p.tree_height[t] = n > 0 ? p.height[t][static_cast<std::size_t>(p.root[t])] : 0;
  }
  return p;
}

}  // namespace fathom::coll::detail
