#include "models/placement/gpu_pool.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

namespace fathom::place {

GpuPool::GpuPool(std::vector<std::int32_t> gpus_per_node, std::vector<std::int32_t> leaf_of_node,
                 std::vector<std::int32_t> island_of_node, std::vector<std::int32_t> pod_of_node)
    : capacity_(std::move(gpus_per_node)),
      leaf_(std::move(leaf_of_node)),
      island_(std::move(island_of_node)),
      pod_(std::move(pod_of_node)) {
  if (island_.empty()) {
    for (std::size_t n = 0; n < capacity_.size(); ++n) island_.push_back(static_cast<std::int32_t>(n));
  }
  if (pod_.empty()) pod_.assign(capacity_.size(), 0);
  if (leaf_.size() != capacity_.size() || island_.size() != capacity_.size() || pod_.size() != capacity_.size()) {
    throw std::invalid_argument("GpuPool: " + std::to_string(leaf_.size()) + " leaves, " +
                                std::to_string(island_.size()) + " islands and " + std::to_string(pod_.size()) +
                                " pods for " + std::to_string(capacity_.size()) + " nodes");
  }
  for (const std::int32_t c : capacity_) {
    if (c < 0) throw std::invalid_argument("GpuPool: a node with " + std::to_string(c) + " GPUs");
    total_ += c;
    largest_ = std::max(largest_, c);
  }
  free_ = capacity_;
  total_free_ = total_;
}

void GpuPool::set_free(std::int32_t node, std::int32_t value) {
  const std::int32_t cap = capacity_[node];
  const auto partial = [cap](std::int32_t f) { return f > 0 && f < cap ? f : 0; };
  free_on_partial_ += partial(value) - partial(free_[node]);
  total_free_ += value - free_[node];
  free_[node] = value;
}

void GpuPool::take(std::span<const NodeShare> shares) {
  for (const NodeShare& s : shares) {
    if (s.gpus < 0 || s.gpus > free_.at(s.node)) {
      throw std::logic_error("GpuPool::take: " + std::to_string(s.gpus) + " GPUs of node " + std::to_string(s.node) +
                             ", which has " + std::to_string(free_[s.node]) + " free");
    }
    set_free(s.node, free_[s.node] - s.gpus);
  }
}

void GpuPool::give(std::span<const NodeShare> shares) {
  for (const NodeShare& s : shares) {
    if (s.gpus < 0 || free_.at(s.node) + s.gpus > capacity_[s.node]) {
      throw std::logic_error("GpuPool::give: " + std::to_string(s.gpus) + " GPUs back to node " +
                             std::to_string(s.node) + ", which has " + std::to_string(free_[s.node]) + " of " +
                             std::to_string(capacity_[s.node]) + " free");
    }
    set_free(s.node, free_[s.node] + s.gpus);
  }
}

std::int32_t leaves_spanned(const GpuPool& pool, std::span<const NodeShare> shares) {
  std::vector<std::int32_t> leaves;
  leaves.reserve(shares.size());
  for (const NodeShare& s : shares) leaves.push_back(pool.leaf(s.node));
  std::sort(leaves.begin(), leaves.end());
  return static_cast<std::int32_t>(std::unique(leaves.begin(), leaves.end()) - leaves.begin());
}

}  // namespace fathom::place
