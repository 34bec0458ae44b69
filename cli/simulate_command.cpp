// `fathom simulate SCENARIO`: runs the scenario's workload and prints a report.
#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <utility>

#include "cli/commands.hpp"
#include "cli/outputs.hpp"
#include "cli/scenario_options.hpp"
#include "cli/terminal_output.hpp"
#include "cli/training_run.hpp"
#include "report/inference/inference_report.hpp"
#include "report/jobs/jobs_report.hpp"
#include "report/output_file.hpp"
#include "report/traffic/csv_tables.hpp"
#include "report/traffic/traffic_report.hpp"
#include "report/wafer/wafer_report.hpp"
#include "scenarios/user_catalogs.hpp"

namespace fathom::cli {

namespace {

struct SimulateOptions {
  ScenarioOptions scenario;
  std::string output;  // -o: the terminal report
  std::string flows_out;
  std::string links_out;
  std::string link_timeline;
  std::string jobs_out;
  std::string timeline_out;
  std::string requests_out;
  TrainingOutputs training;
  std::string seed;      // --seed: overrides the scenario's
  unsigned threads = 1;  // --threads: traffic's independent fabric parts side by side
};

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// --seed, held to the scenario's own rule for `seed` (a whole number up to 2^63 - 1), so that
// a value out of range is refused, never clamped.
std::uint64_t parse_seed(const std::string& text) {
  constexpr std::uint64_t kMax = 9223372036854775807ULL;
  const auto bad = [&] {
    return std::invalid_argument("--seed: expected a whole number from 0 to " + std::to_string(kMax) + ", found \"" +
                                 text + "\"");
  };
  if (text.empty() || text.size() > 19 || text.find_first_not_of("0123456789") != std::string::npos) throw bad();
  const std::uint64_t value = std::stoull(text);
  if (value > kMax) throw bad();
  return value;
}

// A jobs workload: the trace through the scheduler, the summary, and the files asked for.
void run_jobs(scenario::Scenario loaded, const SimulateOptions& o, std::chrono::steady_clock::time_point started) {
  using report::is_stdout;
  if (!o.flows_out.empty() || !o.links_out.empty() || !o.link_timeline.empty()) {
    throw std::invalid_argument("--flows-out, --links-out and --link-timeline apply to traffic workloads");
  }
  if (loaded.jobs.is_packing() && (!o.jobs_out.empty() || !o.timeline_out.empty() || !o.training.trace.empty())) {
    throw std::invalid_argument(
        "--jobs-out, --timeline-out and --trace: the packing experiment (format: alibaba) runs no jobs over time; "
        "its allocation curve is in the JSON report (--json)");
  }
  const std::string json = o.training.json.empty() ? loaded.output_json : o.training.json;
  const std::string json_flag = o.training.json.empty() ? loaded.file + ": output.json" : "--json";
  const std::string& trace = o.training.trace;
  if (!o.requests_out.empty() && loaded.jobs.services.empty()) {
    throw std::invalid_argument("--requests-out applies to inference workloads and to jobs with services");
  }
  const int to_stdout = (is_stdout(json) ? 1 : 0) + (is_stdout(o.jobs_out) ? 1 : 0) +
                        (is_stdout(o.timeline_out) ? 1 : 0) + (is_stdout(trace) ? 1 : 0) +
                        (is_stdout(o.requests_out) ? 1 : 0);
  if (to_stdout > 1) {
    throw std::invalid_argument("only one of --json, --jobs-out, --timeline-out, --requests-out and --trace can be -");
  }
  Outputs outputs{{"-o", o.output},
                  {json_flag, json},
                  {"--jobs-out", o.jobs_out},
                  {"--timeline-out", o.timeline_out},
                  {"--requests-out", o.requests_out},
                  {"--trace", trace}};
  const report::JobsReport r = report::evaluate_jobs(std::move(loaded), o.threads);
  const double wall_s = seconds_since(started);
  note("simulated in " + std::to_string(wall_s) + " s");
  outputs.report(o.output, to_stdout > 0, [&](std::FILE* out) { report::write_jobs_summary(out, r); });
  if (!json.empty()) outputs.file(json, [&](std::ostream& out) { report::write_jobs_json(out, r); });
  if (!o.jobs_out.empty()) outputs.file(o.jobs_out, [&](std::ostream& out) { report::write_jobs_csv(out, r); });
  if (!o.timeline_out.empty()) {
    outputs.file(o.timeline_out, [&](std::ostream& out) { report::write_cluster_timeline_csv(out, r); });
  }
  if (!o.requests_out.empty()) {
    outputs.file(o.requests_out, [&](std::ostream& out) { report::write_services_requests_csv(out, r); });
  }
  if (!trace.empty()) outputs.file(trace, [&](std::ostream& out) { report::write_jobs_trace(out, r); });
  outputs.commit();
  print_wall_clock(wall_s);
}

// An inference workload: the requests through the service's replicas, the summary, and the files.
void run_inference(scenario::Scenario loaded, const SimulateOptions& o, std::chrono::steady_clock::time_point started) {
  using report::is_stdout;
  if (!o.flows_out.empty() || !o.links_out.empty() || !o.link_timeline.empty() || !o.jobs_out.empty() ||
      !o.timeline_out.empty()) {
    throw std::invalid_argument(
        "--flows-out, --links-out, --link-timeline, --jobs-out and --timeline-out do not apply to inference "
        "workloads; use --requests-out, --json and --trace");
  }
  const std::string json = o.training.json.empty() ? loaded.output_json : o.training.json;
  const std::string json_flag = o.training.json.empty() ? loaded.file + ": output.json" : "--json";
  const std::string trace = o.training.trace.empty() ? loaded.output_trace : o.training.trace;
  const std::string trace_flag = o.training.trace.empty() ? loaded.file + ": output.trace" : "--trace";
  const int to_stdout = (is_stdout(json) ? 1 : 0) + (is_stdout(o.requests_out) ? 1 : 0) + (is_stdout(trace) ? 1 : 0);
  if (to_stdout > 1) throw std::invalid_argument("only one of --json, --requests-out and --trace can be -");
  Outputs outputs{{"-o", o.output}, {json_flag, json}, {"--requests-out", o.requests_out}, {trace_flag, trace}};
  report::InferenceOptions options;
  options.record_iterations = !trace.empty();
  options.threads = o.threads;
  const report::InferenceReport r = report::evaluate_inference(std::move(loaded), options);
  const double wall_s = seconds_since(started);
  note("simulated in " + std::to_string(wall_s) + " s");
  outputs.report(o.output, to_stdout > 0, [&](std::FILE* out) { report::write_inference_summary(out, r); });
  if (!json.empty()) outputs.file(json, [&](std::ostream& out) { report::write_inference_json(out, r); });
  if (!o.requests_out.empty()) {
    outputs.file(o.requests_out, [&](std::ostream& out) { report::write_requests_csv(out, r); });
  }
  if (!trace.empty()) outputs.file(trace, [&](std::ostream& out) { report::write_inference_trace(out, r); });
  outputs.commit();
  print_wall_clock(wall_s);
  if (!r.all_pass) throw ExitWith{kExitFailedExpectation};
}

// Training on a wafer-scale cluster: one weight-streaming step, the summary and the JSON report.
void run_wafer(scenario::Scenario loaded, const SimulateOptions& o, std::chrono::steady_clock::time_point started) {
  if (!o.flows_out.empty() || !o.links_out.empty() || !o.link_timeline.empty() || !o.jobs_out.empty() ||
      !o.timeline_out.empty() || !o.requests_out.empty() || !o.training.trace.empty()) {
    throw std::invalid_argument("a wafer-scale scenario writes its report and --json only (docs/wafer.md)");
  }
  const std::string json = o.training.json.empty() ? loaded.output_json : o.training.json;
  const std::string json_flag = o.training.json.empty() ? loaded.file + ": output.json" : "--json";
  Outputs outputs{{"-o", o.output}, {json_flag, json}};
  const report::WaferReport r = report::evaluate_wafer(std::move(loaded));
  const double wall_s = seconds_since(started);
  note("simulated in " + std::to_string(wall_s) + " s");
  outputs.report(o.output, report::is_stdout(json), [&](std::FILE* out) { report::write_wafer_summary(out, r); });
  if (!json.empty()) outputs.file(json, [&](std::ostream& out) { report::write_wafer_json(out, r); });
  outputs.commit();
  print_wall_clock(wall_s);
  if (!r.all_pass) throw ExitWith{kExitFailedExpectation};
}

void run_simulate(const SimulateOptions& o) {
  using report::is_stdout;
  const auto started = std::chrono::steady_clock::now();
  // --seed is the scenario's `seed` key, set before loading: a synthetic job trace is drawn
  // while the scenario loads.
  ScenarioOptions with_seed = o.scenario;
  if (!o.seed.empty()) with_seed.overrides.push_back("seed=" + std::to_string(parse_seed(o.seed)));
  scenario::Scenario loaded = load(with_seed);
  note_loaded(loaded);
  note("loaded in " + std::to_string(seconds_since(started)) + " s");
  if (loaded.workload == scenario::WorkloadKind::kJobs) {
    run_jobs(std::move(loaded), o, started);
    return;
  }
  if (loaded.workload == scenario::WorkloadKind::kInference) {
    run_inference(std::move(loaded), o, started);
    return;
  }
  if (loaded.workload == scenario::WorkloadKind::kWaferTraining) {
    run_wafer(std::move(loaded), o, started);
    return;
  }
  if (!o.requests_out.empty()) throw std::invalid_argument("--requests-out applies to inference workloads");
  if (!o.jobs_out.empty() || !o.timeline_out.empty()) {
    throw std::invalid_argument("--jobs-out and --timeline-out apply to jobs workloads");
  }
  if (loaded.workload == scenario::WorkloadKind::kTraining) {
    TrainingOutputs outputs = o.training;
    outputs.report = o.output;
    if (outputs.json.empty()) {
      outputs.json = loaded.output_json;
      outputs.json_flag = loaded.file + ": output.json";
    }
    if (outputs.trace.empty()) {
      outputs.trace = loaded.output_trace;
      outputs.trace_flag = loaded.file + ": output.trace";
    }
    const int code = run_training(loaded, outputs);
    print_wall_clock(seconds_since(started));
    if (code != kExitOk) throw ExitWith{code};
    return;
  }
  if (!o.training.json.empty() || !o.training.trace.empty()) {
    throw std::invalid_argument(
        "--json and --trace apply to training and jobs workloads; use --flows-out and --links-out");
  }
  // With an output on standard output ("-") the human report moves to standard error.
  const int to_stdout =
      (is_stdout(o.flows_out) ? 1 : 0) + (is_stdout(o.links_out) ? 1 : 0) + (is_stdout(o.link_timeline) ? 1 : 0);
  if (to_stdout > 1) throw std::invalid_argument("only one of --flows-out, --links-out and --link-timeline can be -");
  Outputs outputs{{"-o", o.output},
                  {"--flows-out", o.flows_out},
                  {"--links-out", o.links_out},
                  {"--link-timeline", o.link_timeline}};
  const report::TrafficReport t = report::evaluate_traffic(std::move(loaded), !o.link_timeline.empty(), o.threads);
  const double wall_s = seconds_since(started);
  note("simulated in " + std::to_string(wall_s) + " s");
  const report::PreparedTraffic& p = t.traffic;
  warn(p.topology.summary);
  outputs.report(o.output, to_stdout > 0, [&](std::FILE* out) { report::write_traffic_summary(out, t); });
  if (!o.flows_out.empty()) {
    outputs.file(o.flows_out,
                 [&](std::ostream& out) { report::write_flows_csv(out, p.topology, p.flows, t.result.flows); });
  }
  if (!o.links_out.empty()) {
    outputs.file(o.links_out, [&](std::ostream& out) {
      report::write_link_usage_csv(out, p.topology, t.result.link_bytes, t.result.makespan);
    });
  }
  if (!o.link_timeline.empty()) {
    outputs.file(o.link_timeline,
                 [&](std::ostream& out) { report::write_link_timeline_csv(out, p.topology, t.result.link_loads); });
  }
  outputs.commit();
  print_wall_clock(wall_s);
}

}  // namespace

void add_simulate_command(CLI::App& app) {
  auto options = std::make_shared<SimulateOptions>();
  CLI::App* cmd = app.add_subcommand("simulate", "run a scenario and report what happened");
  add_scenario_options(*cmd, options->scenario);
  cmd->add_option("-o,--output", options->output, "write the report to this file instead of standard output");
  cmd->add_option("--flows-out", options->flows_out, "write per-flow results (CSV: id,src,dst,bytes,start_s,finish_s)");
  cmd->add_option("--links-out", options->links_out, "write per-link bytes and utilisation (CSV)");
  cmd->add_option("--link-timeline", options->link_timeline,
                  "write every change of a link's load over time (CSV: time_s,link,bytes_per_s,utilisation)");
  cmd->add_option("--jobs-out", options->jobs_out,
                  "jobs: write one row per job (CSV: job, user, submit_s, start_s, end_s, wait_s, ...; docs/jobs.md)");
  cmd->add_option("--timeline-out", options->timeline_out,
                  "jobs: write the cluster after every change (CSV: time_s, busy_gpus, queued, running, ...)");
  cmd->add_option("--requests-out", options->requests_out,
                  "inference: write one row per request (CSV: request, arrival_s, ..., ttft_s, tpot_s, e2e_s; "
                  "docs/inference.md); jobs with services: every service's, after its name (docs/jobs.md)");
  cmd->add_option("--json", options->training.json,
                  "training, jobs, inference: write the full report as JSON (docs/report.md, docs/jobs.md, "
                  "docs/inference.md)");
  cmd->add_option("--trace", options->training.trace,
                  "training: write a Chrome trace of one step; jobs: of the jobs on each node; inference: of every "
                  "replica's iterations (Perfetto)");
  cmd->add_option("--threads", options->threads,
                  "traffic: run the fabric's independent parts (docs/network.md) on this many threads; inference: "
                  "the replicas, when the service has a dispatch_delay (jobs: when every service beside them has "
                  "one); the output is the same for any number (default 1)")
      ->check(CLI::Range(1u, 1024u));
  cmd->add_option("--seed", options->seed, "override the scenario's seed (a whole number from 0 to 2^63 - 1)");
  cmd->callback([options] {
    const scenario::ScopedCatalogs catalogs(catalog_folders());
    run_simulate(*options);
  });
}

}  // namespace fathom::cli
