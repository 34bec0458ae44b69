// A wafer-scale cluster's parts (Cerebras's weight-streaming architecture): the systems that
// compute (a CS-3 holds one WSE-3 wafer), the MemoryX appliance that holds the weights and the
// optimizer state and runs the optimizer, and the SwarmX fabric that broadcasts weights from
// MemoryX to every system and reduces their gradients on the way back. The catalog
// (scenarios/hardware/wafer.yaml) fills these for published systems, with a source per figure;
// docs/wafer.md explains the model that uses them.
#pragma once

#include <cstdint>
#include <string>

namespace fathom::hw {

struct WaferSystemSpec {
  std::string name;                 // "cs-3"
  std::string source;               // where each figure comes from
  double sram_bytes = 0;            // on-wafer memory: what holds activations and streamed weights
  double sram_bytes_per_s = 0;      // on-wafer memory bandwidth (reported; the model is compute-bound on wafer)
  double fabric_bytes_per_s = 0;    // on-wafer fabric bandwidth (reported)
  double peak_dense_flops = 0;      // dense FP16/BF16 FLOP/s: what the model computes with
  double peak_sparse_flops = 0;     // the headline "AI" figure, with sparsity (reported, never used)
  double compute_efficiency = 1.0;  // share of the dense peak a transformer layer reaches
  double sram_efficiency = 1.0;     // share of the SRAM bandwidth a layer's reads reach (serving)
  // Serving: the time a token's activations take to cross the wafer's mesh through one layer (its
  // broadcasts and reductions hop core to core), beyond the layer's compute and SRAM reads.
  double layer_latency_s = 0;
  double io_bytes_per_s = 0;  // the system's external I/O, per direction: its link to SwarmX
  double power_w = 0;         // the system's power draw at full load
};

struct MemoryXSpec {
  std::string name;
  std::string source;
  double capacity_bytes = 0;      // weights and optimizer state it holds
  double bytes_per_s = 0;         // what it streams to (and takes from) SwarmX, per direction
  double update_bytes_per_s = 0;  // optimizer state it reads and writes a second while updating weights
  double power_w = 0;
};

// An input worker: a CPU server that reads the training data and streams each micro-batch's
// samples to the systems (Argonne's CS-3 cluster has one a system).
struct InputWorkerSpec {
  std::string name;
  std::string source;
  double bytes_per_s = 0;  // what one worker streams to the systems
  double power_w = 0;
};

struct SwarmXSpec {
  std::string name;
  std::string source;
  int fan_out = 2;                  // children per tree node (systems, or nodes of the level below)
  double link_bytes_per_s = 0;      // between two SwarmX nodes, per direction
  std::int64_t hop_latency_ns = 0;  // one link, one way
  double chunk_bytes = 1 << 20;     // what a node forwards at once: streams pipeline in chunks this size
  double power_w = 0;               // per SwarmX node
};

}  // namespace fathom::hw
