// Tensor-parallel communication overlapped with its GEMM, as Transformer Engine's userbuffers
// (Megatron-LM's `tp_comm_overlap`) run it with sequence parallelism: the all-gather before a
// column-parallel GEMM and the reduce-scatter after a row-parallel one are cut into `chunks`
// pieces (one per TP rank, exchanged around the TP ring), and the GEMM on piece i runs while
// piece i + 1 travels. Two streams, a pipeline of equal chunks of c = comm / n and g = gemm / n:
//
//   elapsed = c + (n - 1) max(c, g) + g          (the first piece's transfer is never hidden,
//                                                 nor the last piece's GEMM)
//   exposed = elapsed - gemm                      (the communication the compute stream waits for)
//
// so a GEMM longer than its communication hides all but one chunk of it, and a shorter one
// leaves comm - gemm + g exposed. docs/training.md, "Tensor-parallel overlap".
#pragma once

namespace fathom::train {

// Seconds of `comm_seconds` the compute stream still waits for when it is pipelined in `chunks`
// pieces against `gemm_seconds` of GEMM. chunks < 2 (or no GEMM) hides nothing.
double tp_overlap_exposed_seconds(double comm_seconds, double gemm_seconds, int chunks);

}  // namespace fathom::train
