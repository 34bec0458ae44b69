#include "models/placement/share_pool.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

namespace fathom::place {

namespace {
constexpr std::int32_t kWhole = 1000;
}  // namespace

TaskMix mix_of(std::span<const jobs::ShareDemand> demands) {
  TaskMix mix;
  for (const jobs::ShareDemand& d : demands) {
    const auto it = std::find(mix.demands.begin(), mix.demands.end(), d);
    if (it == mix.demands.end()) {
      mix.demands.push_back(d);
      mix.weights.push_back(1);
    } else {
      mix.weights[static_cast<std::size_t>(it - mix.demands.begin())] += 1;
    }
  }
  for (double& w : mix.weights) w /= static_cast<double>(demands.size());
  return mix;
}

SharePool::SharePool(std::vector<ShareNodeSpec> nodes) : specs_(std::move(nodes)) {
  for (const ShareNodeSpec& s : specs_) {
    if (s.gpus < 0 || s.cpu_milli < 0 || s.memory_mib < 0)
      throw std::invalid_argument("SharePool: a negative capacity");
    cpu_.push_back(s.cpu_milli);
    memory_.push_back(s.memory_mib);
    first_gpu_.push_back(gpu_free_.size());
    gpu_free_.insert(gpu_free_.end(), static_cast<std::size_t>(s.gpus), kWhole);
    total_milli_ += std::int64_t{s.gpus} * kWhole;
  }
}

std::int32_t SharePool::idle_gpus(std::int32_t n) const {
  const auto g = gpu_free(n);
  return static_cast<std::int32_t>(std::count(g.begin(), g.end(), kWhole));
}

bool fits_state(std::int64_t cpu_free, std::int64_t memory_free, std::span<const std::int32_t> gpu_free,
                const jobs::ShareDemand& d) {
  if (d.cpu_milli > cpu_free || d.memory_mib > memory_free) return false;
  if (d.gpus == 0) return true;
  if (d.is_share())
    return std::any_of(gpu_free.begin(), gpu_free.end(), [&](std::int32_t f) { return f >= d.gpu_milli; });
  return std::count(gpu_free.begin(), gpu_free.end(), kWhole) >= d.gpus;
}

bool SharePool::fits(std::int32_t n, const jobs::ShareDemand& d) const {
  return fits_state(cpu_[n], memory_[n], gpu_free(n), d);
}

void SharePool::take(std::int32_t n, std::int32_t gpu, const jobs::ShareDemand& d) {
  if (!fits(n, d)) throw std::logic_error("SharePool::take: node " + std::to_string(n) + " cannot hold the task");
  std::int32_t* free = gpu_free_.data() + first_gpu_[n];
  if (d.is_share()) {
    if (gpu < 0 || gpu >= specs_[n].gpus || free[gpu] < d.gpu_milli) {
      throw std::logic_error("SharePool::take: GPU " + std::to_string(gpu) + " of node " + std::to_string(n) +
                             " cannot hold a share of " + std::to_string(d.gpu_milli));
    }
    free[gpu] -= d.gpu_milli;
  } else {
    std::int32_t left = d.gpus;
    for (std::int32_t g = 0; left > 0; ++g) {
      if (free[g] == kWhole) {
        free[g] = 0;
        --left;
      }
    }
  }
  cpu_[n] -= d.cpu_milli;
  memory_[n] -= d.memory_mib;
  allocated_milli_ += d.gpu_demand_milli();
}

double SharePool::fragmentation(std::int64_t cpu_free, std::int64_t memory_free, std::span<const std::int32_t> gpu_free,
                                const TaskMix& mix) {
  std::int64_t all_free = 0;
  for (const std::int32_t f : gpu_free) all_free += f;
  double total = 0;
  for (std::size_t k = 0; k < mix.demands.size(); ++k) {
    const jobs::ShareDemand& d = mix.demands[k];
    std::int64_t unusable = all_free;
    if (fits_state(cpu_free, memory_free, gpu_free, d)) {
      // A GPU whose free part is less than the task needs of one GPU cannot serve it: a task
      // of no GPU needs none, so nothing is fragmented for it.
      const std::int32_t need = d.gpus == 0 ? 0 : std::min(d.gpu_milli, kWhole);
      unusable = 0;
      for (const std::int32_t f : gpu_free) {
        if (f < need) unusable += f;
      }
    }
    total += mix.weights[k] * static_cast<double>(unusable);
  }
  return total;
}

double SharePool::fragmentation(std::int32_t n, const TaskMix& mix) const {
  return fragmentation(cpu_[n], memory_[n], gpu_free(n), mix);
}

}  // namespace fathom::place
