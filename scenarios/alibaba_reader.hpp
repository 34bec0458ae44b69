// The Alibaba GPU-sharing trace as it ships (data/traces/alibaba-gpu-v2023/): the pod list
// (`name, cpu_milli, memory_mib, num_gpu, gpu_milli, gpu_spec, qos, pod_phase, creation_time,
// deletion_time, scheduled_time`) and the node list (`sn, cpu_milli, memory_mib, gpu, model`).
// Columns are found by name; errors are ScenarioErrors at FILE:LINE:COLUMN.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "models/placement/share_pool.hpp"
#include "models/workloads/jobs/share_task.hpp"
#include "scenarios/errors.hpp"

namespace fathom::scenario {

struct AlibabaNodes {
  std::vector<place::ShareNodeSpec> nodes;  // in file order
  std::vector<std::string> models;          // GPU model names, numbered by first appearance
};

std::vector<jobs::ShareTask> parse_alibaba_pods(const std::string& file, std::string_view text);
AlibabaNodes parse_alibaba_nodes(const std::string& file, std::string_view text);

// From files (plain or gzip); a file that cannot be read is an error at `named_at` (`key`).
std::vector<jobs::ShareTask> read_alibaba_pods(const std::string& path, const Location& named_at,
                                               const std::string& key);
AlibabaNodes read_alibaba_nodes(const std::string& path, const Location& named_at, const std::string& key);

}  // namespace fathom::scenario
