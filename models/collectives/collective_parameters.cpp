#include "models/collectives/collective_parameters.hpp"

namespace fathom::coll {

namespace {

using params::Quantity;
using P = params::Parameter<CollectiveParams>;

double protocol_index(const CollectiveParams& c) {
  if (!c.protocol) return 0;
  switch (*c.protocol) {
    case Protocol::kSimple:
      return 1;
    case Protocol::kLL128:
      return 2;
    case Protocol::kLL:
      return 3;
  }
  return 0;
}

void set_protocol(CollectiveParams& c, double index) {
  const int i = static_cast<int>(index);
  c.protocol = i == 1   ? std::optional(Protocol::kSimple)
               : i == 2 ? std::optional(Protocol::kLL128)
               : i == 3 ? std::optional(Protocol::kLL)
                        : std::nullopt;
}

double tuner_index(const CollectiveParams& c) { return c.tuner == Tuner::kNccl ? 0 : 1; }
void set_tuner(CollectiveParams& c, double index) { c.tuner = index == 0 ? Tuner::kNccl : Tuner::kThresholds; }

constexpr std::string_view kNcclTuning = "NCCL's tuning model (src/graph/tuning.cc): microseconds per step";
constexpr std::string_view kAssumed = "assumed; calibration fits it (docs/calibration.md)";

}  // namespace

const std::vector<P>& collective_parameters() {
  static const std::vector<P> declared = {
      {"alpha", Quantity::kDuration, FATHOM_PARAMETER_MEMBER(CollectiveParams, alpha_ns),
       "software latency of one algorithm step, paid once per message (by its first slice; later slices stream behind "
       "it)",
       kNcclTuning, "alpha_ns"},
      {"launch", Quantity::kDuration, FATHOM_PARAMETER_MEMBER(CollectiveParams, launch_ns),
       "fixed cost of one collective call, added once", kAssumed, "launch_ns"},
      {"step", Quantity::kDuration, FATHOM_PARAMETER_MEMBER(CollectiveParams, step_ns),
       "per-slice cost of ring, tree, chain and halving-doubling messages: a message of k slices pays alpha + (k-1) x "
       "step. k counts the real slices, ceil(message / `slice`), even where the DAG caps them "
       "([collectives.md](collectives.md#conventions-shared-by-all-algorithms)); fitted by `fathom calibrate`",
       kAssumed, "step_ns"},
      {"nvls_step", Quantity::kDuration, FATHOM_PARAMETER_MEMBER(CollectiveParams, nvls_step_ns),
       "the same per NVLS round (one slice of `nvls_chunk` x `nvls_channels` per GPU through the switch)", kAssumed,
       "nvls_step_ns"},
      {"slice", Quantity::kBytes, FATHOM_PARAMETER_MEMBER(CollectiveParams, slice_bytes),
       "pipeline slice of ring, chain, tree and halving-doubling messages (NCCL_BUFFSIZE / NCCL_STEPS); `0B` means no "
       "slicing",
       "NCCL_BUFFSIZE (4 MiB) / NCCL_STEPS (8), NCCL's defaults"},
      {"nvls_chunk",
       Quantity::kBytes,
       FATHOM_PARAMETER_MEMBER(CollectiveParams, nvls_chunk_bytes),
       "NVLS chunk per head per channel (NCCL_NVLS_CHUNKSIZE)",
       "NCCL_NVLS_CHUNKSIZE, NCCL's default",
       {},
       {},
       true},
      {"nvls_channels", Quantity::kPositiveInt, FATHOM_PARAMETER_MEMBER(CollectiveParams, nvls_channels),
       "NVLS channels (NCCL_NVLS_NCHANNELS)", "NCCL_NVLS_NCHANNELS, NCCL's default"},
      {"max_slices", Quantity::kPositiveInt, FATHOM_PARAMETER_MEMBER(CollectiveParams, max_slices),
       "at most this many DAG slices per message (chains: (hops-1) x this; a one-plane NVLS all-reduce: GPUs x this); "
       "the first and last stay one real slice each and the middle ones share the rest, so a pipeline still fills and "
       "drains in one real slice and a message still pays alpha + (k-1) x step (a bound that keeps DAGs small; "
       "[nccl-tests.md](nccl-tests.md#parameters-and-their-sources) gives its error)",
       "a modelling bound (docs/nccl-tests.md gives its error)"},
      {"flows_per_connection",
       Quantity::kPositiveInt,
       FATHOM_PARAMETER_MEMBER(CollectiveParams, flows_per_connection),
       "flows that one point-to-point transfer leaving its node travels as under ECMP, each hashed on its own and "
       "carrying 1/k of the bytes (the transfer ends with the last): NCCL's channels through a NIC pair (2: NCCL "
       "duplicates its ring channels, and point-to-point uses `NCCL_NCHANNELS_PER_NET_PEER` = 2) times "
       "`NCCL_IB_QPS_PER_CONNECTION` (default 1). Set 16 for Llama 3's 16 flows per GPU pair with E-ECMP, or 2 x the "
       "queue pairs a job sets. D-mod-K and adaptive routing ignore it "
       "([network.md](network.md#routing-modes-and-flows-per-connection))",
       "NCCL's 2 channels per NIC pair x NCCL_IB_QPS_PER_CONNECTION (1); at most 2 x 128 queue pairs (docs/network.md)",
       {},
       {},
       false,
       256},
      {"ll_alpha", Quantity::kDuration, FATHOM_PARAMETER_MEMBER(CollectiveParams, ll.alpha_ns),
       "replaces `alpha` under LL (assumed; fitted by `fathom calibrate` where the data identify it)", kAssumed,
       "ll_alpha_ns"},
      {"ll128_alpha", Quantity::kDuration, FATHOM_PARAMETER_MEMBER(CollectiveParams, ll128.alpha_ns),
       "replaces `alpha` under LL128 (assumed; fitted likewise)", kAssumed, "ll128_alpha_ns"},
      {"ll_max", Quantity::kBytes, FATHOM_PARAMETER_MEMBER(CollectiveParams, ll_max_bytes),
       "messages below this run NCCL's LL protocol ([collectives.md](collectives.md#protocols)); 0: never. Compared "
       "with the size as nccl-tests prints it; not for NVLS and NVLS-tree, which run Simple only. Fitted by `fathom "
       "calibrate`",
       kAssumed, "ll_max_bytes"},
      {"ll128_max", Quantity::kBytes, FATHOM_PARAMETER_MEMBER(CollectiveParams, ll128_max_bytes),
       "messages from `ll_max` up to below this run LL128, larger ones Simple; 0: never. Fitted by `fathom calibrate`",
       kAssumed, "ll128_max_bytes"},
      {"tree_ll_max", Quantity::kBytes, FATHOM_PARAMETER_MEMBER(CollectiveParams, tree_ll_max_bytes),
       "the same bound for the double binary tree (NCCL's tuner switches a tree's protocol at other sizes than a "
       "ring's); without the key, `ll_max` (as given in this section or the profile). Fitted where a log ran trees",
       kAssumed, "tree_ll_max_bytes"},
      {"tree_ll128_max", Quantity::kBytes, FATHOM_PARAMETER_MEMBER(CollectiveParams, tree_ll128_max_bytes),
       "the tree's LL128 bound, likewise", kAssumed, "tree_ll128_max_bytes"},
      {"nvls_min", Quantity::kBytes, FATHOM_PARAMETER_MEMBER(CollectiveParams, nvls_min_bytes),
       "all-reduce inside one NVLink domain with in-switch reduction runs NVLS from this size, a ring below "
       "([collectives.md](collectives.md#choosing-an-algorithm)). Fitted where a single-node log leaves the algorithm "
       "to NCCL",
       "NCCL on 8 H100 switches around 256 KiB (docs/nccl-tests.md)", "nvls_min_bytes"},
      {"tree_max", Quantity::kBytes, FATHOM_PARAMETER_MEMBER(CollectiveParams, tree_max_bytes),
       "all-reduce across nodes runs the double binary tree below this size, NVLS-tree or a ring from it. Fitted where "
       "a multi-node log leaves the algorithm to NCCL",
       "NCCL's trees give way in the low MiB (docs/nccl-tests.md)", "tree_max_bytes"},
      {"ll_bandwidth",
       Quantity::kFraction,
       FATHOM_PARAMETER_MEMBER(CollectiveParams, ll.bandwidth_fraction),
       "LL's share of what Simple reaches on every link the algorithm uses (4 data bytes per 8 on the wire); above 0, "
       "at most 1",
       "LL sends 4 data bytes in 8",
       {},
       {},
       true},
      {"ll128_bandwidth",
       Quantity::kFraction,
       FATHOM_PARAMETER_MEMBER(CollectiveParams, ll128.bandwidth_fraction),
       "the same for LL128 (120 data bytes per 128-byte line)",
       "LL128 sends 120 data bytes in 128",
       {},
       {},
       true},
      {"tuner", Quantity::kChoice, tuner_index, set_tuner,
       "who picks each collective's algorithm and protocol: `nccl`, NCCL's own cost model (the pair of least estimated "
       "time, [collectives.md](collectives.md#choosing-an-algorithm)); `thresholds`, the size thresholds `ll_max`, "
       "`ll128_max`, `tree_ll_max`, `tree_ll128_max`, `nvls_min` and `tree_max`. A section that sets any threshold "
       "without this key means `thresholds`; `fathom calibrate` fits thresholds",
       "NCCL's default: its tuner", "tuner", "nccl thresholds"},
      {"protocol",
       Quantity::kChoice,
       protocol_index,
       set_protocol,
       "NCCL_PROTO: one protocol at every size (NVLS and NVLS-tree still Simple); `auto` chooses by `ll_max` and "
       "`ll128_max`",
       "NCCL's default: auto",
       {},
       "auto Simple LL128 LL"},
      {"nvls_adaptive_chunk", Quantity::kBool, FATHOM_PARAMETER_MEMBER(CollectiveParams, nvls_adaptive_chunk),
       "whether the NVLS chunk shrinks for mid-size messages as NCCL's does (from 2.18 on: 64 KiB below 64 C chunks of "
       "bytes, 32 KiB below 8 C, 16 KiB below 2 C, C = `nvls_channels` x the plane's GPUs); off: `nvls_chunk` at every "
       "size. `fathom calibrate` fits it both ways and writes the better "
       "([calibration.md](calibration.md#collectives-fathoms-own-model))",
       "NCCL 2.18 on (enqueue.cc); off: the published sweeps fit better without it", "nvls_adaptive_chunk"},
      {"efficiency.ring",
       Quantity::kFraction,
       FATHOM_PARAMETER_MEMBER(CollectiveParams, efficiency.ring),
       "share of NVLink rate ring, halving-doubling, hierarchical and direct algorithms reach",
       "NCCL maintainers: about 370 of NVLink4's 450 GB/s",
       "ring",
       {},
       true},
      {"efficiency.tree",
       Quantity::kFraction,
       FATHOM_PARAMETER_MEMBER(CollectiveParams, efficiency.tree),
       "the same for the double binary tree",
       "no public figure: the ring's",
       "tree",
       {},
       true},
      {"efficiency.nvls",
       Quantity::kFraction,
       FATHOM_PARAMETER_MEMBER(CollectiveParams, efficiency.nvls),
       "the same for NVLS and NVLS-tree",
       "NVIDIA: about 480 GB/s busbw on 8 H100, of 1.75 x 450 GB/s",
       "nvls",
       {},
       true},
      {"efficiency.nic",
       Quantity::kFraction,
       FATHOM_PARAMETER_MEMBER(CollectiveParams, efficiency.nic),
       "share of PCIe, NIC and fabric link rate any algorithm reaches",
       "InfiniBand NDR: 64b/66b encoding, headers and NCCL's proxy; assumed",
       "nic",
       {},
       true},
  };
  return declared;
}

}  // namespace fathom::coll
