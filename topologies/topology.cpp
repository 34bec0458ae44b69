// Topology: vertices, directed links and the Boost.Graph view kept in step with them.
#include "topologies/topology.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <utility>

namespace fathom::topo {

namespace {

// Levenshtein distance, two rows: only used on the error path of Topology::at().
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> prev(b.size() + 1);
  std::vector<std::size_t> cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t substitute = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, substitute});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string format_rate(double bytes_per_s) {
  std::ostringstream out;
  out << bytes_per_s << " B/s";
  return out.str();
}

}  // namespace

std::string_view to_string(VertexKind kind) {
  switch (kind) {
    case VertexKind::kGpu:
      return "gpu";
    case VertexKind::kNic:
      return "nic";
    case VertexKind::kCpu:
      return "cpu";
    case VertexKind::kStorage:
      return "storage";
    case VertexKind::kNvSwitch:
      return "nvswitch";
    case VertexKind::kSwitch:
      return "switch";
    case VertexKind::kWafer:
      return "wafer";
  }
  return "unknown";
}

std::string_view to_string(LinkClass cls) {
  switch (cls) {
    case LinkClass::kNvLink:
      return "nvlink";
    case LinkClass::kPcie:
      return "pcie";
    case LinkClass::kHostLeaf:
      return "host-leaf";
    case LinkClass::kLeafSpine:
      return "leaf-spine";
    case LinkClass::kSpineCore:
      return "spine-core";
    case LinkClass::kStorage:
      return "storage";
  }
  return "unknown";
}

std::string_view to_string(TopologyWarning::Kind kind) {
  switch (kind) {
    case TopologyWarning::Kind::kNicLinkMismatch:
      return "nic-link-mismatch";
    case TopologyWarning::Kind::kOversubscribed:
      return "oversubscribed";
  }
  return "unknown";
}

std::string to_string(const TopologySummary& summary) {
  std::ostringstream out;
  out << summary.description << "\n";
  out << "  endpoints: " << summary.endpoints << "\n";
  for (std::size_t t = 0; t < summary.switches_per_tier.size(); ++t) {
    out << "  tier " << t << ": " << summary.switches_per_tier[t] << (t == 0 ? " NVSwitch chips" : " switches");
    if (t < summary.cables_per_tier.size()) out << ", " << summary.cables_per_tier[t] << " cables up to it";
    if (t < summary.oversubscription_per_tier.size()) {
      out << ", oversubscription " << summary.oversubscription_per_tier[t] << ":1";
    }
    out << "\n";
  }
  out << "  bisection: " << format_rate(summary.bisection_bytes_per_s) << " one way\n";
  for (const auto& w : summary.warnings) out << "  warning: " << w.message << "\n";
  return out.str();
}

VertexId Topology::add_vertex(std::string name, VertexKind kind, int tier, std::int32_t node) {
  if (name.empty()) throw std::invalid_argument("Topology::add_vertex: a vertex needs a name");
  if (by_name_.count(name) != 0) {
    throw std::invalid_argument("Topology::add_vertex: the name \"" + name + "\" is already taken");
  }
  // VertexId is 32 bits; the last value stays free so that no id can be mistaken for a sentinel.
  if (vertices_.size() >= std::numeric_limits<VertexId>::max()) {
    throw std::length_error("Topology::add_vertex: more vertices than a 32-bit VertexId can number");
  }
  const auto id = static_cast<VertexId>(vertices_.size());
  by_name_.emplace(name, id);
  vertices_.push_back(Vertex{std::move(name), kind, tier, node, false});
  out_.emplace_back();
  in_.emplace_back();
  const auto descriptor = boost::add_vertex(graph_);
  (void)descriptor;  // equals id: vecS numbers vertices in insertion order
  return id;
}

LinkId Topology::add_link(VertexId from, VertexId to, double bytes_per_s, std::int64_t latency_ns, LinkClass cls) {
  if (from >= vertices_.size() || to >= vertices_.size()) {
    throw std::invalid_argument("Topology::add_link: vertex id " +
                                std::to_string(from >= vertices_.size() ? from : to) +
                                " does not exist (the topology has " + std::to_string(vertices_.size()) + " vertices)");
  }
  const std::string name = vertices_[from].name + "->" + vertices_[to].name;
  if (from == to) throw std::invalid_argument("Topology::add_link: " + name + " is a self-loop");
  if (!std::isfinite(bytes_per_s) || bytes_per_s <= 0) {
    throw std::invalid_argument("Topology::add_link: " + name + " needs a positive, finite bytes_per_s, got " +
                                format_rate(bytes_per_s));
  }
  if (latency_ns < 0) {
    throw std::invalid_argument("Topology::add_link: " + name + " has a negative latency_ns " +
                                std::to_string(latency_ns));
  }
  if (links_.size() >= std::numeric_limits<LinkId>::max()) {
    throw std::length_error("Topology::add_link: more links than a 32-bit LinkId can number");
  }
  const auto id = static_cast<LinkId>(links_.size());
  links_.push_back(Link{from, to, bytes_per_s, latency_ns, cls, name});
  out_[from].push_back(id);
  in_[to].push_back(id);
  boost::add_edge(from, to, id, graph_);
  return id;
}

void Topology::set_rate(LinkId l, double bytes_per_s) {
  Link& link = links_.at(l);
  if (!std::isfinite(bytes_per_s) || bytes_per_s <= 0) {
    throw std::invalid_argument("Topology::set_rate: " + link.name + " needs a positive, finite bytes_per_s, got " +
                                format_rate(bytes_per_s));
  }
  link.bytes_per_s = bytes_per_s;
}

LinkId Topology::add_cable(VertexId a, VertexId b, double bytes_per_s, std::int64_t latency_ns, LinkClass cls) {
  // add_link validates; the reverse link cannot fail once the forward one succeeded.
  const LinkId forward = add_link(a, b, bytes_per_s, latency_ns, cls);
  add_link(b, a, bytes_per_s, latency_ns, cls);
  return forward;
}

std::optional<VertexId> Topology::find(std::string_view name) const {
  const auto it = by_name_.find(std::string(name));
  if (it == by_name_.end()) return std::nullopt;
  return it->second;
}

VertexId Topology::at(std::string_view name) const {
  if (const auto id = find(name)) return *id;
  std::string message = "topology has no vertex \"" + std::string(name) + "\"";
  if (vertices_.empty()) throw std::invalid_argument(message + " (it is empty)");
  // Up to three suggestions, closest first; ties in name order so the message is stable.
  std::vector<std::pair<std::size_t, const std::string*>> scored;
  scored.reserve(vertices_.size());
  for (const auto& v : vertices_) scored.emplace_back(edit_distance(name, v.name), &v.name);
  const std::size_t shown = std::min<std::size_t>(3, scored.size());
  std::partial_sort(
      scored.begin(), scored.begin() + static_cast<std::ptrdiff_t>(shown), scored.end(),
      [](const auto& x, const auto& y) { return x.first != y.first ? x.first < y.first : *x.second < *y.second; });
  message += "; did you mean ";
  for (std::size_t i = 0; i < shown; ++i) {
    if (i > 0) message += i + 1 == shown ? " or " : ", ";
    message += "\"" + *scored[i].second + "\"";
  }
  throw std::invalid_argument(message + "?");
}

}  // namespace fathom::topo
