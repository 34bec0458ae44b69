// ZeRO-3 / FSDP as it runs: the parameters are sharded over the data-parallel ranks, and each
// module (a transformer layer; the embedding and the output layer travel with the first and
// last) is all-gathered just before it computes, in the forward pass and again in the backward
// pass (and once more for a recomputed forward); after its backward its gradients are
// reduce-scattered. The gathers are prefetched `depth` modules ahead on one communication
// stream, which also carries the reduce-scatters, so the stream is bounded by the GPU's own NIC
// share and the compute stream waits whenever the next module's parameters are not there yet.
//
// pass_seconds() runs that timeline: compute stream and communication stream, ops in issue
// order. Closed forms it meets (tests/models/workloads/training/sharded_parameters_test.cpp), for L equal modules
// of compute c, gather a and scatter r:
//   depth 0 (gather on demand):   L (a + c + r)    (each scatter is issued before the next gather)
//   depth >= 1, forward (r = 0):  a + (L - 1) max(a, c) + c
//   depth >= 1, a + r <= c:       a + L c + r      (only the first gather and last scatter show)
//   depth >= 1, a + r > c:        at least L (a + r): the stream carries every gather and
//                                 scatter, so the pass is communication-bound
// Overlap is not free: each NCCL channel of a gather or scatter holds one SM (one CTA), so the
// compute beside them runs on the rest, 1 + stretch times as long (stretch = k / (S - k) for k
// channels of S SMs) for as long as the stream is busy. With prefetch and a <= c the forward
// then takes a + L c + (L - 1) a (1 - 1 / (1 + stretch)): every module but the last computes
// beside the next one's gather.
// docs/training.md, "ZeRO-3 and FSDP".
#pragma once

#include <vector>

namespace fathom::train {

struct ModuleCost {
  double compute_seconds = 0;  // the module's kernels (and blocking collectives) in this pass
  double gather_seconds = 0;   // all-gather of its parameters over the data-parallel group
  double scatter_seconds = 0;  // reduce-scatter of its gradients after it (backward only)
};

// Seconds from the pass's start until its compute and its last reduce-scatter are done.
// `modules` in execution order; `depth` >= 0 modules' gathers in flight ahead of the one
// computing (FSDP's prefetch: 1), so 1 + depth modules are whole in memory at once. `stretch`
// >= 0: how much longer compute takes while the stream is busy (0: overlap is free).
double pass_seconds(const std::vector<ModuleCost>& modules, int depth, double stretch = 0);

}  // namespace fathom::train
