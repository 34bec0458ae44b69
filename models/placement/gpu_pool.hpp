// GpuPool: which whole GPUs of a cluster are free, node by node, and where each node sits in the
// fabric (its leaf), which is what a placement policy reads and what the job outputs report
// (nodes and leaves a job spans). It holds counts, not GPU identities: the jobs of this model
// ask for GPUs of one kind, and which GPU of a node a job gets changes nothing it simulates.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace fathom::place {

// `gpus` GPUs of node `node` given to one job.
struct NodeShare {
  std::int32_t node = 0;
  std::int32_t gpus = 0;
  bool operator==(const NodeShare&) const = default;
};

class GpuPool {
 public:
  // One entry per node: its GPUs, and its leaf switch (any numbering; equal means same leaf).
  // Optionally its NVLink island (empty: each node its own) and its pod (empty: one pod).
  GpuPool(std::vector<std::int32_t> gpus_per_node, std::vector<std::int32_t> leaf_of_node,
          std::vector<std::int32_t> island_of_node = {}, std::vector<std::int32_t> pod_of_node = {});

  std::int32_t nodes() const { return static_cast<std::int32_t>(capacity_.size()); }
  std::int32_t capacity(std::int32_t node) const { return capacity_[node]; }
  std::int32_t free(std::int32_t node) const { return free_[node]; }
  std::int32_t leaf(std::int32_t node) const { return leaf_[node]; }
  std::int32_t island(std::int32_t node) const { return island_[node]; }
  std::int32_t pod(std::int32_t node) const { return pod_[node]; }
  std::int64_t total_gpus() const { return total_; }
  std::int64_t total_free() const { return total_free_; }
  // Free GPUs on nodes that are partly in use: capacity a job needing whole nodes cannot use.
  std::int64_t free_on_partial_nodes() const { return free_on_partial_; }
  // The largest node's GPUs: a job up to this size can fit on one node.
  std::int32_t largest_node() const { return largest_; }

  // Takes (gives back) the shares' GPUs. Throws std::logic_error when a share asks for more
  // than is free (gives back more than was taken): a placement policy's bug, never input.
  void take(std::span<const NodeShare> shares);
  void give(std::span<const NodeShare> shares);

 private:
  void set_free(std::int32_t node, std::int32_t value);

  std::vector<std::int32_t> capacity_, free_, leaf_, island_, pod_;
  std::int64_t total_ = 0, total_free_ = 0, free_on_partial_ = 0;
  std::int32_t largest_ = 0;
};

// How many distinct leaves the shares' nodes sit on.
std::int32_t leaves_spanned(const GpuPool& pool, std::span<const NodeShare> shares);

}  // namespace fathom::place
