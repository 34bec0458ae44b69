// Tensor-parallel communication overlapped with its GEMM, as Transformer Engine's userbuffers
// (Megatron-LM's `tp_comm_overlap`) run it with sequence parallelism, and what the overlap costs
// the GEMM. Each overlapped collective runs by one of TE's three methods:
//
//   - pipeline (the reduce-scatters after the row-parallel GEMMs in forward): the GEMM is cut
//     into `chunks` pieces and piece i's result is reduce-scattered while piece i + 1 computes;
//   - ring exchange (the all-gathers before a GEMM, forward and backward): the TP ranks pass
//     their shards around the ring by copy engine, one per step, the GEMM on shard i running
//     while shard i + 1 travels (tp chunks);
//   - bulk (the reduce-scatters of the input gradients in backward): the whole collective runs
//     beside the weight-gradient GEMM.
//
// The communication kernel holds `comm_sms` SMs while it runs, and the GEMM beside it runs on
// the others (TE's set_sm_margin for the pipelined ones), so an overlapped GEMM takes
// gemm x S / (S - comm_sms) on S SMs: overlap is not free. The figures are NeMo's userbuffers
// configuration for H100 (nemo/collections/llm/recipes/tp_overlap_configs/userbuffers.py,
// userbuffers_{bf16,fp8}_h100_h8192_tp4_mbs1_seqlen8192: proj_fprop pipeline 24 SMs, fc2_fprop
// 16, both 4 splits; qkv_dgrad bulk 4 SMs, fc1_dgrad 2; the ring exchanges 1 SM, their default).
// With c = comm / n and g = gemm x slowdown / n, pipelined in n pieces:
//
//   elapsed = c + (n - 1) max(c, g) + g          (the first piece's transfer is never hidden,
//                                                 nor the last piece's GEMM)
//   bulk:    elapsed = max(comm, gemm x slowdown)
//   exposed = elapsed - gemm                      (what the compute stream waits for beyond the
//                                                 GEMM's own time, its slowdown included)
//
// docs/training.md, "Tensor-parallel overlap".
#pragma once

#include <string_view>

#include "models/collectives/algorithms.hpp"

namespace fathom::train {

struct TpOverlapMethod {
  std::string_view name;  // TE's buffer name and method: "proj_fprop (pipeline)", ...
  int chunks = 1;         // pieces pipelined; 0: bulk (the whole collective beside the GEMM)
  int comm_sms = 0;       // SMs the communication kernel holds while the GEMM runs
};

// The method TE runs the collective `op` paired with the GEMM `gemm` (layer_work.hpp's kernel
// names) by, on `tp` ranks. A pair it does not overlap: chunks 1, comm_sms 0 (nothing hidden).
TpOverlapMethod tp_overlap_method(coll::Op op, std::string_view gemm, int tp);

// The GEMM's slowdown while `comm_sms` of the accelerator's `sms` SMs communicate: sms / (sms -
// comm_sms); 1 when the SM count is unknown (0) or the communication would leave none.
double tp_overlap_gemm_slowdown(int sms, int comm_sms);

// Seconds of `comm_seconds` and of the GEMM's slowdown that the compute stream waits for when the
// collective runs by `method` beside `gemm_seconds` of GEMM. chunks 1 (or no GEMM) hides nothing.
double tp_overlap_exposed_seconds(double comm_seconds, double gemm_seconds, int chunks, double gemm_slowdown = 1);

}  // namespace fathom::train
