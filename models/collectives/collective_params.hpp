// CollectiveParams: the software costs and achievable link fractions that turn the ideal
// collective DAGs (algorithms.hpp) into NCCL-like timings. Plain values; the scenario loader
// fills them from the optional `collectives:` section and docs/nccl-tests.md gives the public
// source of every default. None of the defaults is fitted to a measurement fathom is compared
// against.
#pragma once

#include <cstdint>

namespace fathom::coll {

// Fractions of a link's rate an algorithm achieves. Applied by scaling the capacity of the links
// the algorithm uses (NVLink for ring, tree, NVLS; PCIe, NICs and fabric for `nic`), on the
// assumption that protocol and kernel overheads cap each link's achieved rate rather than add
// a fixed time per byte elsewhere.
struct AlgorithmEfficiency {
  // NCCL maintainers: a ring reaches about 370 GB/s of NVLink4's 450 GB/s per direction.
  double ring = 370.0 / 450.0;
  // No separate public figure for NCCL's trees on NVLink: assumed equal to the ring's.
  double tree = 370.0 / 450.0;
  // NVIDIA: 8 H100 reach about 480 GB/s all-reduce busbw with NVLS; ideal NVLS busbw is
  // 2(n-1)/n * link rate = 1.75 * 450 GB/s at n = 8, so the fraction is 480 / 787.5.
  double nvls = 480.0 / (1.75 * 450.0);
  // InfiniBand NDR: 64b/66b encoding leaves 97% of the 400 Gb/s signalling rate for data;
  // headers and NCCL's proxy cost a few percent more. Assumed 0.9.
  double nic = 0.9;
};

struct CollectiveParams {
  // Per-step software latency every transfer (every pipelined piece) pays. NCCL's tuning
  // model charges a few microseconds per hop (its per-protocol hardware latencies are
  // 0.6-5 us on NVLink, a few us more over the network); 5 us is the Simple protocol's order.
  std::int64_t alpha_ns = 5'000;
  // Fixed cost of one collective call (kernel launch and setup), added once per operation.
  std::int64_t launch_ns = 10'000;
  // Pipeline pieces per message (CollectiveSpec::chunks).
  int chunks = 4;
  AlgorithmEfficiency efficiency;
};

}  // namespace fathom::coll
