#include "scenarios/alibaba_reader.hpp"

#include <unordered_map>

#include "scenarios/csv_table.hpp"
#include "sim/input/text_file.hpp"

namespace fathom::scenario {

namespace {

constexpr std::string_view kPodColumns =
    "cpu_milli,memory_mib,num_gpu,gpu_milli,pod_phase,creation_time,deletion_time,scheduled_time";
constexpr std::string_view kNodeColumns = "sn,cpu_milli,memory_mib,gpu,model";
constexpr std::int64_t kMaxMilli = std::int64_t{1} << 40;

jobs::PodPhase phase_of(std::string_view text) {
  if (text == "Running") return jobs::PodPhase::kRunning;
  if (text == "Succeeded") return jobs::PodPhase::kSucceeded;
  if (text == "Failed") return jobs::PodPhase::kFailed;
  if (text == "Pending") return jobs::PodPhase::kPending;
  return jobs::PodPhase::kUnknown;
}

std::string read_text(const std::string& path, const Location& named_at, const std::string& key,
                      const std::string& what) {
  try {
    return sim::uniform_line_endings(sim::read_text_file_or_gzip(path, sim::kMaxTableBytes));
  } catch (const sim::InputFileError& e) {
    throw ScenarioError(named_at, key, what + ", plain or gzip (" + e.expected() + ")",
                        quote_found(path) + ": " + e.found());
  }
}

}  // namespace

std::vector<jobs::ShareTask> parse_alibaba_pods(const std::string& file, std::string_view text) {
  CsvTable t(file, text);
  const std::size_t cpu = t.column("cpu_milli", kPodColumns), mem = t.column("memory_mib", kPodColumns),
                    gpus = t.column("num_gpu", kPodColumns), milli = t.column("gpu_milli", kPodColumns),
                    phase = t.column("pod_phase", kPodColumns), created = t.column("creation_time", kPodColumns),
                    deleted = t.column("deletion_time", kPodColumns),
                    scheduled = t.column("scheduled_time", kPodColumns);
  std::vector<jobs::ShareTask> tasks;
  double last_created = 0;
  while (t.next()) {
    jobs::ShareTask task;
    task.line = t.line();
    jobs::ShareDemand& d = task.demand;
    d.cpu_milli = t.whole(cpu, 0, kMaxMilli);
    d.memory_mib = t.whole(mem, 0, kMaxMilli);
    d.gpus = static_cast<std::int32_t>(t.whole(gpus, 0, 1024));
    d.gpu_milli = static_cast<std::int32_t>(t.whole(milli, 0, 1000));
    if (d.gpus == 0 && d.gpu_milli != 0)
      t.fail(milli, "0 for a task of no GPU (num_gpu 0)", quote_found(t.text(milli)));
    if (d.gpus == 1 && d.gpu_milli == 0) t.fail(milli, "a share from 1 to 1000 for a task of one GPU", "0");
    if (d.gpus > 1 && d.gpu_milli != 1000) {
      t.fail(milli, "1000 (whole GPUs) for a task of " + std::to_string(d.gpus) + " GPUs", quote_found(t.text(milli)));
    }
    task.phase = phase_of(t.value(phase));
    const double c = t.non_negative(created, "time in seconds");
    const double e = t.non_negative(deleted, "time in seconds");
    if (c < last_created) t.fail(created, "a time at or after the previous row's", quote_found(t.text(created)));
    if (e < c) t.fail(deleted, "a time at or after the creation time", quote_found(t.text(deleted)));
    if (e > 9.2e9) t.fail(deleted, "a time within 292 years", quote_found(t.text(deleted)));
    last_created = c;
    task.created = sim::SimTime::from_seconds(c);
    task.deleted = sim::SimTime::from_seconds(e);
    if (!t.text(scheduled).empty())
      task.scheduled = sim::SimTime::from_seconds(t.non_negative(scheduled, "time in seconds"));
    tasks.push_back(task);
  }
  if (tasks.empty()) throw ScenarioError({file, t.line(), 1}, "row", "at least one pod after the header", "none");
  return tasks;
}

AlibabaNodes parse_alibaba_nodes(const std::string& file, std::string_view text) {
  CsvTable t(file, text);
  const std::size_t cpu = t.column("cpu_milli", kNodeColumns), mem = t.column("memory_mib", kNodeColumns),
                    gpus = t.column("gpu", kNodeColumns), model = t.column("model", kNodeColumns);
  AlibabaNodes out;
  std::unordered_map<std::string, std::int32_t> numbers;
  while (t.next()) {
    place::ShareNodeSpec n;
    n.cpu_milli = t.whole(cpu, 0, kMaxMilli);
    n.memory_mib = t.whole(mem, 0, kMaxMilli);
    n.gpus = static_cast<std::int32_t>(t.whole(gpus, 0, 1024));
    const std::string name(t.text(model));
    const auto [it, fresh] = numbers.try_emplace(name, static_cast<std::int32_t>(out.models.size()));
    if (fresh) out.models.push_back(name);
    n.model = it->second;
    out.nodes.push_back(n);
  }
  if (out.nodes.empty()) throw ScenarioError({file, t.line(), 1}, "row", "at least one node after the header", "none");
  return out;
}

std::vector<jobs::ShareTask> read_alibaba_pods(const std::string& path, const Location& named_at,
                                               const std::string& key) {
  const std::string text = read_text(path, named_at, key, "the Alibaba pod list (a CSV)");
  return parse_alibaba_pods(path, text);
}

AlibabaNodes read_alibaba_nodes(const std::string& path, const Location& named_at, const std::string& key) {
  const std::string text = read_text(path, named_at, key, "the Alibaba node list (a CSV)");
  return parse_alibaba_nodes(path, text);
}

}  // namespace fathom::scenario
