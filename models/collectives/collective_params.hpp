// CollectiveParams: the software costs, pipelining and achievable link fractions that turn the
// ideal collective DAGs (algorithms.hpp) into NCCL-like timings. Plain values; the scenario
// loader fills them from the optional `collectives:` section and docs/nccl-tests.md gives the
// public source of every default. None of the defaults is fitted to a measurement fathom is
// compared against.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace fathom::coll {

// NCCL's protocols. Simple moves data in large steps behind a flag per step (highest bandwidth,
// highest latency); LL128 sends 128-byte lines of 120 data bytes and an 8-byte flag; LL sends
// 8-byte words of 4 data bytes and a 4-byte flag (lowest latency, half the bandwidth).
enum class Protocol { kSimple, kLL128, kLL };

// The default algorithm thresholds of fathom's approximation of NCCL's tuner (choose_algorithm):
// NCCL's NVLS all-reduce takes over from rings around 256 KiB on 8 H100 (docs/nccl-tests.md), and
// its tree gives way to NVLS-tree or the ring across nodes in the low MiB.
constexpr double kNvlsMinBytes = 256.0 * 1024;
constexpr double kTreeMaxBytes = 4.0 * 1024 * 1024;
std::string_view to_string(Protocol protocol);  // "Simple", "LL128", "LL"

// How the algorithm and protocol of a collective are chosen: by NCCL's own cost model, the pair
// of least estimated time (nccl_tuner.hpp), or by the size thresholds below, as NCCL's old
// NCCL_TREE_THRESHOLD / NCCL_LL_THRESHOLD overrides did (what `fathom calibrate` fits).
enum class Tuner { kNccl, kThresholds };
std::string_view to_string(Tuner tuner);  // "nccl", "thresholds"

// What a low-latency protocol costs instead of Simple's alpha_ns and full rate.
struct ProtocolCost {
  std::int64_t alpha_ns = 0;      // software latency of one algorithm step
  double bandwidth_fraction = 1;  // of what Simple reaches on the same links

  bool operator==(const ProtocolCost&) const = default;
};

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

  bool operator==(const AlgorithmEfficiency&) const = default;
};

struct CollectiveParams {
  // Software latency of one algorithm step, paid once per message (its first slice; later
  // slices stream behind it). NCCL's tuning model charges a few microseconds per step (its
  // per-protocol hardware latencies are 0.6-5 us on NVLink, a few us more over the network);
  // 5 us is the Simple protocol's order.
  std::int64_t alpha_ns = 5'000;
  // Fixed cost of one collective call (kernel launch and setup), added once per operation.
  std::int64_t launch_ns = 10'000;
  // Cost of each further slice of a message (NCCL's per-step handshake between GPUs; it makes
  // small slices slower than their bytes alone). 0 by default: no public figure; calibration
  // fits it (docs/calibration.md).
  std::int64_t step_ns = 0;
  // The same per NVLS round (CollectiveSpec::nvls_step_ns); fitted separately, 0 by default.
  std::int64_t nvls_step_ns = 0;
  // Slice size of ring, chain, tree and halving-doubling messages: one step of NCCL's Simple
  // protocol, NCCL_BUFFSIZE (4 MiB) / NCCL_STEPS (8) = 512 KiB.
  double slice_bytes = 512.0 * 1024;
  // NVLS: NCCL_NVLS_CHUNKSIZE (128 KiB) per head per channel, on NCCL_NVLS_NCHANNELS (16)
  // channels. One NVLS pipeline step of a GPU moves chunk x channels x (GPUs of the plane).
  double nvls_chunk_bytes = 128.0 * 1024;
  int nvls_channels = 16;
  // At most this many slices per message, so that a DAG stays small: a modelling bound, not an
  // NCCL figure (docs/nccl-tests.md gives its error).
  int max_slices = 64;
  AlgorithmEfficiency efficiency;
  // Flows that one point-to-point transfer between two NICs travels as, each hashed on its own by
  // ECMP and carrying 1/k of the bytes (the transfer ends with its last flow). NCCL opens one
  // connection per channel, each with NCCL_IB_QPS_PER_CONNECTION queue pairs (default 1), and a
  // RoCE NIC hashes each queue pair as its own flow; NCCL runs two channels through every NIC
  // pair of a ring: it duplicates the channels its topology search finds (ncclTopoPreset,
  // src/graph/connect.cc), and point-to-point uses NCCL_NCHANNELS_PER_NET_PEER channels per
  // network peer (2 where the sources fix a default). Hence 2 = 2 channels x 1 queue pair
  // (docs/network.md, "Routing modes and flows per connection"). Only ECMP reads it: with
  // D-mod-K every flow to one destination takes one path, and adaptive routing spreads each flow
  // over every path anyway, so splitting changes nothing there (every transfer splits alike).
  int flows_per_connection = 2;

  // Protocols: which one NCCL runs is a function of the message size and the algorithm (its
  // tuner's choice, which calibration fits): LL below ll_max_bytes, LL128 below
  // ll128_max_bytes, Simple from there on, for every algorithm but the double binary tree, which
  // has its own pair (NCCL's tuner costs a tree's steps differently, so it switches elsewhere);
  // a bound of 0 never chooses that protocol. NVLS and NVLS-tree run Simple only. By default
  // every bound is 0: without calibration every size runs Simple. The latencies are assumed
  // (only a calibrated profile turns the protocols on); the fractions are the protocols' data
  // per byte on the wire: LL 4 of 8, LL128 120 of 128.
  double ll_max_bytes = 0;
  double ll128_max_bytes = 0;
  double tree_ll_max_bytes = 0;
  double tree_ll128_max_bytes = 0;
  // The tuner's algorithm thresholds for an all-reduce (choose_algorithm): NVLS inside one
  // NVLink domain from nvls_min_bytes up (a ring below), the double binary tree across nodes
  // below tree_max_bytes (NVLS-tree or a ring from there on). Calibration fits them where a log
  // leaves NCCL's algorithm unforced (docs/calibration.md).
  double nvls_min_bytes = kNvlsMinBytes;
  double tree_max_bytes = kTreeMaxBytes;
  // Who chooses: NCCL's cost model by default; the thresholds above where a scenario or a
  // calibrated profile sets them (scenarios/collectives_reader.cpp).
  Tuner tuner = Tuner::kNccl;
  // NCCL_PROTO: one protocol for every size (where the algorithm has it); nullopt: by size.
  std::optional<Protocol> protocol;
  ProtocolCost ll{1'000, 0.5};
  ProtocolCost ll128{2'000, 120.0 / 128.0};

  // NCCL shrinks the NVLS chunk of a message too small to keep its pipeline busy (enqueue.cc,
  // NCCL 2.18 on; the first threshold is 32 C in some versions): with C = channels x heads (the
  // plane's GPUs) concurrent chunks, to 64 KiB below 64 C chunks of bytes, 32 KiB below 8 C,
  // 16 KiB below 2 C (never growing it). Off by default: on the three published single-node
  // sweeps (NCCL 2.18.5, 2.20.5, 2.26.2) fathom's model fits better without it, the calibration
  // choosing per system (docs/calibration.md). Off: the chunk is nvls_chunk_bytes at every size.
  bool nvls_adaptive_chunk = false;

  // The protocol NCCL picks for a message of `bytes` by the thresholds above (the tree's when
  // `tree`).
  Protocol protocol_for(double bytes, bool tree = false) const {
    if (bytes < (tree ? tree_ll_max_bytes : ll_max_bytes)) return Protocol::kLL;
    if (bytes < (tree ? tree_ll128_max_bytes : ll128_max_bytes)) return Protocol::kLL128;
    return Protocol::kSimple;
  }
  // Its step latency and bandwidth fraction (Simple: alpha_ns and 1).
  ProtocolCost cost(Protocol protocol) const {
    switch (protocol) {
      case Protocol::kLL:
        return ll;
      case Protocol::kLL128:
        return ll128;
      case Protocol::kSimple:
        break;
    }
    return {alpha_ns, 1.0};
  }

  // The per-GPU NVLS slice (CollectiveSpec::nvls_slice_bytes) at the largest chunk.
  double nvls_slice_bytes() const { return nvls_chunk_bytes * nvls_channels; }
  // The NVLS chunk NCCL uses for an all-reduce of `bytes` on a plane of `heads` GPUs.
  double nvls_chunk_for(double bytes, int heads) const {
    double chunk = nvls_chunk_bytes;
    if (!nvls_adaptive_chunk) return chunk;
    const double concurrent = static_cast<double>(nvls_channels) * heads;
    if (bytes < 64 * concurrent * chunk && chunk > 65536) chunk = 65536;
    if (bytes < 8 * concurrent * chunk && chunk > 32768) chunk = 32768;
    if (bytes < 2 * concurrent * chunk && chunk > 16384) chunk = 16384;
    return chunk;
  }

  bool operator==(const CollectiveParams&) const = default;
};

}  // namespace fathom::coll
