#include "models/workloads/wafer/swarmx_streams.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace fathom::wafer {

namespace {

// A stream's chunks: `count` of them, every one `size` but the last, which is `last`.
struct Chunks {
  double count = 0;
  double size = 0;
  double last = 0;
};

Chunks chunk_counts(double bytes, double chunk_bytes) {
  if (!(bytes >= 0) || !std::isfinite(bytes)) throw std::invalid_argument("swarmx: bytes must be finite and >= 0");
  if (!(chunk_bytes > 0) || !std::isfinite(chunk_bytes)) {
    throw std::invalid_argument("swarmx: chunk_bytes must be positive, found " + std::to_string(chunk_bytes));
  }
  const double full = std::floor(bytes / chunk_bytes);
  const double rest = bytes - full * chunk_bytes;
  return {full + (rest > 0 ? 1 : 0), chunk_bytes, rest > 0 ? rest : chunk_bytes};
}

// Chunk sizes of a stream, one entry a chunk (the DAGs have a transfer per chunk).
std::vector<double> chunks(double bytes, double chunk_bytes) {
  const Chunks k = chunk_counts(bytes, chunk_bytes);
  std::vector<double> sizes(static_cast<std::size_t>(k.count), k.size);
  if (!sizes.empty()) sizes.back() = k.last;
  return sizes;
}

}  // namespace

topo::SwarmXTree build_tree(int systems, const hw::WaferSystemSpec& system, const hw::MemoryXSpec& memoryx,
                            const hw::SwarmXSpec& swarmx) {
  topo::SwarmXTreeSpec spec;
  spec.systems = systems;
  spec.fan_out = swarmx.fan_out;
  spec.system_link_bytes_per_s = system.io_bytes_per_s;
  spec.tree_link_bytes_per_s = swarmx.link_bytes_per_s;
  spec.memoryx_bytes_per_s = memoryx.bytes_per_s;
  spec.latency_ns = swarmx.hop_latency_ns;
  return topo::build_swarmx_tree(spec);
}

coll::TransferDag broadcast_dag(const topo::SwarmXTree& tree, double bytes, double chunk_bytes) {
  const std::vector<double> sizes = chunks(bytes, chunk_bytes);
  const std::size_t edges = tree.edges.size();
  // The edge that reaches each vertex from its parent.
  std::vector<std::size_t> edge_into(tree.topology.vertices().size(), edges);
  for (std::size_t e = 0; e < edges; ++e) edge_into[tree.edges[e].second] = e;
  coll::TransferDag dag;
  for (std::size_t c = 0; c < sizes.size(); ++c) {
    for (std::size_t e = 0; e < edges; ++e) {
      const auto [parent, child] = tree.edges[e];
      coll::Transfer t;
      t.src = parent;
      t.dst = child;
      t.bytes = sizes[c];
      t.pipelined = c > 0;
      std::vector<coll::TransferIndex> after;
      if (edge_into[parent] < edges) after.push_back(static_cast<coll::TransferIndex>(c * edges + edge_into[parent]));
      if (c > 0) after.push_back(static_cast<coll::TransferIndex>((c - 1) * edges + e));
      dag.add(t, after);
    }
  }
  return dag;
}

coll::TransferDag reduce_dag(const topo::SwarmXTree& tree, double bytes, double chunk_bytes) {
  const std::vector<double> sizes = chunks(bytes, chunk_bytes);
  const std::size_t edges = tree.edges.size();
  // Upward, leaves first: position p carries the reverse of edge edges - 1 - p.
  std::vector<std::vector<std::size_t>> from_children(tree.topology.vertices().size());
  for (std::size_t p = 0; p < edges; ++p) from_children[tree.edges[edges - 1 - p].first].push_back(p);
  coll::TransferDag dag;
  for (std::size_t c = 0; c < sizes.size(); ++c) {
    for (std::size_t p = 0; p < edges; ++p) {
      const auto [parent, child] = tree.edges[edges - 1 - p];
      coll::Transfer t;
      t.src = child;
      t.dst = parent;
      t.bytes = sizes[c];
      t.pipelined = c > 0;
      std::vector<coll::TransferIndex> after;
      for (std::size_t q : from_children[child]) after.push_back(static_cast<coll::TransferIndex>(c * edges + q));
      if (c > 0) after.push_back(static_cast<coll::TransferIndex>((c - 1) * edges + p));
      dag.add(t, after);
    }
  }
  return dag;
}

std::vector<Hop> downward_path(int systems, const hw::WaferSystemSpec& system, const hw::MemoryXSpec& memoryx,
                               const hw::SwarmXSpec& swarmx) {
  const double latency = static_cast<double>(swarmx.hop_latency_ns) * 1e-9;
  std::vector<Hop> hops{{memoryx.bytes_per_s, latency}};
  for (int l = 1; l < topo::swarmx_levels(systems, swarmx.fan_out); ++l)
    hops.push_back({swarmx.link_bytes_per_s, latency});
  hops.push_back({system.io_bytes_per_s, latency});
  return hops;
}

double tandem_seconds_each_chunk(const std::vector<Hop>& hops, double bytes, double chunk_bytes) {
  const Chunks k = chunk_counts(bytes, chunk_bytes);
  // arrived[h]: when the previous chunk finished crossing hop h.
  std::vector<double> arrived(hops.size(), 0.0);
  for (double c = 0; c < k.count; ++c) {
    const double size = c + 1 == k.count ? k.last : k.size;
    double at = 0;  // when this chunk is whole at the previous vertex
    for (std::size_t h = 0; h < hops.size(); ++h) {
      at = std::max(at, arrived[h]) + (c == 0 ? hops[h].latency_s : 0.0) + size / hops[h].bytes_per_s;
      arrived[h] = at;
    }
  }
  return k.count == 0 || hops.empty() ? 0.0 : arrived.back();
}

double stream_seconds(const std::vector<Hop>& hops, double bytes, double chunk_bytes) {
  const Chunks k = chunk_counts(bytes, chunk_bytes);
  const std::size_t n = hops.size();
  if (k.count <= 2.0 * static_cast<double>(n) + 3) return tandem_seconds_each_chunk(hops, bytes, chunk_bytes);
  // The last chunk's time is the longest path through the grid of (chunk, hop) cells: chunk 0
  // across hops 1..a (each its latency and chunk), down the middle chunks between hops a and b
  // (each middle chunk once, at the slowest of those hops, and each hop a..b once), then the
  // last chunk across hops b..n.
  double best = 0;
  double first = 0;  // chunk 0 across hops 1..a
  for (std::size_t a = 0; a < n; ++a) {
    first += hops[a].latency_s + k.size / hops[a].bytes_per_s;
    double middle = 0;  // hops a..b once each
    double slowest = 0;
    for (std::size_t b = a; b < n; ++b) {
      middle += k.size / hops[b].bytes_per_s;
      slowest = std::max(slowest, k.size / hops[b].bytes_per_s);
      double last = 0;
      for (std::size_t h = b; h < n; ++h) last += k.last / hops[h].bytes_per_s;
      best = std::max(best, first + middle + (k.count - 3) * slowest + last);
    }
  }
  return best;
}

double broadcast_seconds(int systems, const hw::WaferSystemSpec& system, const hw::MemoryXSpec& memoryx,
                         const hw::SwarmXSpec& swarmx, double bytes) {
  return stream_seconds(downward_path(systems, system, memoryx, swarmx), bytes, swarmx.chunk_bytes);
}

double reduce_seconds(int systems, const hw::WaferSystemSpec& system, const hw::MemoryXSpec& memoryx,
                      const hw::SwarmXSpec& swarmx, double bytes) {
  std::vector<Hop> up = downward_path(systems, system, memoryx, swarmx);
  std::reverse(up.begin(), up.end());
  return stream_seconds(up, bytes, swarmx.chunk_bytes);
}

}  // namespace fathom::wafer
