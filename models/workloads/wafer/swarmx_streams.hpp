// Weights down and gradients up through SwarmX (topologies/swarmx_tree.hpp), as transfer DAGs on
// the flow model and as the closed form the step model reads.
//
// A stream is cut into chunks of SwarmX's `chunk_bytes` (the last one shorter); a node forwards
// a chunk once it has all of it, so chunks pipeline down (broadcast: a node copies each chunk to
// every child) and up (reduction: a node sends its children's sum of a chunk once every child's
// chunk has arrived). Each link carries one chunk at a time, in order; the first chunk waits the
// link's latency, later ones follow it back to back. No two streams share a link, so the time is
// the tandem line's: with hops h = 1..H of rate R_h and latency L_h along a path, chunk c's
// arrival after hop h is
//   f(c, h) = max(f(c, h-1), f(c-1, h)) + [c = 0] L_h + size_c / R_h,   f(c, 0) = f(-1, h) = 0,
// and the stream takes f(C-1, H): about sum_h (L_h + chunk / R_h) + bytes / min R_h. The hops
// grow with the tree's levels, ceil(log_fan_out(systems)): the part of the time that grows with
// the system count. The tests hold run_dag on the tree to this form.
#pragma once

#include <vector>

#include "models/collectives/transfer_dag.hpp"
#include "models/hardware/wafer_system.hpp"
#include "topologies/swarmx_tree.hpp"

namespace fathom::wafer {

// The tree for `systems` systems of `system` under `swarmx`, fed by `memoryx`.
topo::SwarmXTree build_tree(int systems, const hw::WaferSystemSpec& system, const hw::MemoryXSpec& memoryx,
                            const hw::SwarmXSpec& swarmx);

// `bytes` from MemoryX to every system (broadcast) or from every system to MemoryX, summed on the
// way (reduction), in chunks of `chunk_bytes`. Throws std::invalid_argument for bytes < 0 or
// chunk_bytes <= 0.
coll::TransferDag broadcast_dag(const topo::SwarmXTree& tree, double bytes, double chunk_bytes);
coll::TransferDag reduce_dag(const topo::SwarmXTree& tree, double bytes, double chunk_bytes);

// One hop of a stream's path: a link's rate and latency.
struct Hop {
  double bytes_per_s = 0;
  double latency_s = 0;
};

// The hops from MemoryX to a system: MemoryX -> root, down the tree's levels, to the system.
std::vector<Hop> downward_path(int systems, const hw::WaferSystemSpec& system, const hw::MemoryXSpec& memoryx,
                               const hw::SwarmXSpec& swarmx);

// Seconds a stream of `bytes` in chunks of `chunk_bytes` takes along `hops` (in the order the
// chunks cross them): the tandem line above. 0 for no bytes. In time independent of the chunk
// count: past a few chunks per hop, the longest path through the (chunk, hop) grid, which takes
// every middle chunk at the slowest hop it crosses.
double stream_seconds(const std::vector<Hop>& hops, double bytes, double chunk_bytes);
// The recursion itself, chunk by chunk: the reference stream_seconds is tested against.
double tandem_seconds_each_chunk(const std::vector<Hop>& hops, double bytes, double chunk_bytes);

// The same for the two directions through the tree: the weights' broadcast and the gradients'
// reduction (the downward path in reverse).
double broadcast_seconds(int systems, const hw::WaferSystemSpec& system, const hw::MemoryXSpec& memoryx,
                         const hw::SwarmXSpec& swarmx, double bytes);
double reduce_seconds(int systems, const hw::WaferSystemSpec& system, const hw::MemoryXSpec& memoryx,
                      const hw::SwarmXSpec& swarmx, double bytes);

}  // namespace fathom::wafer
