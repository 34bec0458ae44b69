#include "scenarios/report_section.hpp"

#include <filesystem>

#include "scenarios/declared_reader.hpp"

namespace fathom::scenario {

const std::vector<params::Parameter<ReportSpec>>& report_parameters() {
  using params::Quantity;
  static const std::vector<params::Parameter<ReportSpec>> declared = {
      {"mfu", Quantity::kFraction, FATHOM_PARAMETER_MEMBER(ReportSpec, mfu),
       "the go-live report's MFU target when `expect:` gives none",
       "Llama 3 405B's pre-training: 38-43% BF16 MFU on 8,192 to 16,384 H100 (Llama Team, The Llama 3 Herd of "
       "Models, 2024, Table 4)"},
      {"gpu_busy", Quantity::kFraction, FATHOM_PARAMETER_MEMBER(ReportSpec, gpu_busy),
       "the share of the step the accelerators must spend computing (averaged over the pipeline stages)",
       "fathom's choice: no deployment guide publishes one"},
      {"bandwidth", Quantity::kFraction, FATHOM_PARAMETER_MEMBER(ReportSpec, bandwidth),
       "inter-node all-reduce bus bandwidth at least this share of the node's NIC line rate",
       "issue 14: at least 80-90% of physical; the lower end"},
      {"memory_headroom",
       Quantity::kFraction,
       FATHOM_PARAMETER_MEMBER(ReportSpec, memory_headroom),
       "share of usable HBM the peak rank must leave free, for what a long run adds beyond the steady step",
       "fathom's choice ([go-live.md](go-live.md#72-hour-run-without-oom))",
       {},
       {},
       false,
       0.9},
      {"scaling", Quantity::kFraction, FATHOM_PARAMETER_MEMBER(ReportSpec, scaling),
       "per-GPU tokens/s of this cluster at least this share of the pilot's", "fathom's choice"},
      {"bandwidth_message",
       Quantity::kBytes,
       FATHOM_PARAMETER_MEMBER(ReportSpec, bandwidth_bytes),
       "the all-reduce size the bandwidth check times (nccl-tests' large-message end)",
       "nccl-tests' all_reduce_perf sweeps to 1 GiB and beyond; the bandwidth term dominates there",
       {},
       {},
       true},
      {"bandwidth_nodes", Quantity::kPositiveInt, FATHOM_PARAMETER_MEMBER(ReportSpec, bandwidth_nodes),
       "how many nodes (the first ones, at most the cluster's) the bandwidth check's all-reduce spans",
       "a bound on the check's time: a ring's transfers grow with the square of its GPUs (32 nodes: about a "
       "second)"},
      {"recovery_time", Quantity::kSeconds, FATHOM_PARAMETER_MEMBER(ReportSpec, recovery_time_s),
       "a whole run's p99 recovery from an interruption (failure to training again) at most this; `expect: "
       "recovery_time` replaces it",
       "the deployment guides' go-live criterion: recovery from a node failure in at most 5 minutes"},
      {"effective_training_time", Quantity::kFraction, FATHOM_PARAMETER_MEMBER(ReportSpec, effective_training_time),
       "a whole run's share of wall time on steps it kept at least this; `expect: effective_training_time` "
       "replaces it",
       "Llama 3 405B's pre-training: \"higher than 90%\" (arXiv 2407.21783, section 3.3.4)"},
      {"availability", Quantity::kFraction, FATHOM_PARAMETER_MEMBER(ReportSpec, availability),
       "a service's (`availability:`) share of time up at least this; `expect: availability` replaces it",
       "the deployment guides' go-live criterion: 99.95% availability"},
      {"storage_iops", Quantity::kNumber, FATHOM_PARAMETER_MEMBER(ReportSpec, storage_iops),
       "the data tier's (`workload.data`) IOPS for the job at least this; `expect: storage_iops` replaces it",
       "the deployment guides' go-live criterion: storage IOPS of at least 500K"},
      {"data_load_per_sample", Quantity::kSeconds, FATHOM_PARAMETER_MEMBER(ReportSpec, data_load_per_sample_s),
       "a cold read's time per sample at a loading node at most this; `expect: data_load_per_sample` replaces it",
       "the deployment guides' go-live criterion: data loading under 1 ms per sample from cold start"},
  };
  return declared;
}

ReportSpec read_report_section(MapReader& section, const std::string& scenario_file,
                               const std::function<void(const ValueReader&)>& note) {
  ReportSpec spec;
  spec.where = section.location();
  read_declared(section, report_parameters(), spec, note);
  section.declare({"pilot", "service"});
  // A scenario file named relative to this one's folder.
  const auto scenario_path = [&](const char* key, const char* what) {
    std::string resolved;
    if (auto v = section.find(key)) {
      note(*v);
      std::filesystem::path p = v->as<std::string>("a scenario file");
      if (p.is_relative()) p = std::filesystem::path(scenario_file).parent_path() / p;
      if (!std::filesystem::is_regular_file(p)) v->fail(std::string(what) + ", relative to this scenario's folder");
      resolved = p.string();
    }
    return resolved;
  };
  spec.pilot = scenario_path("pilot", "the pilot's scenario file");
  spec.service = scenario_path("service", "the inference service's scenario file");
  return spec;
}

}  // namespace fathom::scenario
