// `fathom nccl-tests SCENARIO`: NVIDIA nccl-tests (all_reduce_perf and its siblings) run in
// simulation (report/collectives/nccl_tests_sweep.hpp). Each message size of the -b/-e/-f sweep
// is timed by coll::CollectiveTimer (the collective's transfer DAG run over the flow network of
// the scenario's cluster, or with --closed-form its closed form).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>

#include "cli/commands.hpp"
#include "cli/outputs.hpp"
#include "cli/scenario_options.hpp"
#include "cli/terminal_output.hpp"
#include "report/collectives/nccl_tests_sweep.hpp"
#include "scenarios/resource_estimate.hpp"
#include "scenarios/user_catalogs.hpp"

namespace fathom::cli {

namespace {

struct NcclTestsOptions {
  ScenarioOptions scenario;
  std::string output;     // -o: the table
  std::string op;         // empty: the scenario's (all_reduce by default)
  std::string begin;      // -b
  std::string end;        // -e
  std::string factor;     // -f
  int nodes = 0;          // 0: every node
  int gpus_per_node = 0;  // 0: every GPU of a node
  std::string algo = "auto";
  bool closed_form = false;  // time each size by its closed form instead of running its DAG
  unsigned threads = 1;      // --threads: sizes side by side
};

// nccl-tests' sizes: a whole number with an optional K, M, G or T suffix (powers of 1024).
std::int64_t parse_size(const std::string& flag, const std::string& text) {
  auto bad = [&]() -> std::invalid_argument {
    return std::invalid_argument(flag + ": expected a size such as 8, 64K, 1M or 8G (powers of 1024), found '" + text +
                                 "'");
  };
  std::size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  if (digits == 0 || digits > 15) throw bad();
  std::int64_t value = std::stoll(text.substr(0, digits));
  const std::string suffix = text.substr(digits);
  int shift = 0;
  if (suffix.size() > 1) throw bad();
  if (suffix.size() == 1) {
    switch (suffix[0]) {
      case 'k':
      case 'K':
        shift = 10;
        break;
      case 'm':
      case 'M':
        shift = 20;
        break;
      case 'g':
      case 'G':
        shift = 30;
        break;
      case 't':
      case 'T':
        shift = 40;
        break;
      default:
        throw bad();
    }
  }
  if (value > (std::int64_t{1} << (62 - shift))) throw bad();
  return value << shift;
}

void run_nccl_tests(const NcclTestsOptions& o) {
  const auto started = std::chrono::steady_clock::now();
  report::NcclTestsRequest q;
  q.op = o.op;
  if (!o.begin.empty()) q.min_bytes = parse_size("-b", o.begin);
  if (!o.end.empty()) q.max_bytes = parse_size("-e", o.end);
  if (!o.factor.empty()) q.step_factor = parse_size("-f", o.factor);
  q.nodes = o.nodes;
  q.gpus_per_node = o.gpus_per_node;
  q.algo = o.algo;
  q.closed_form = o.closed_form;
  q.threads = o.threads;
  Outputs outputs{{"-o", o.output}};
  const scenario::Scenario s = load(o.scenario);
  note_loaded(s);
  if (s.wafer_scale) {
    throw std::invalid_argument(s.file + ": nccl-tests needs a GPU cluster; this one is wafer-scale (docs/wafer.md)");
  }
  // The largest size's DAG over the GPUs the sweep uses, before it is built (--nodes and
  // --gpus-per-node past the scenario's are refused by the sweep, by name).
  const int nodes = q.nodes > 0 ? std::min(q.nodes, s.cluster.nodes) : s.cluster.nodes;
  const int gpus = q.gpus_per_node > 0 ? std::min(q.gpus_per_node, s.cluster.node.gpus) : s.cluster.node.gpus;
  scenario::require_within_memory(
      s,
      scenario::estimate_nccl_tests(s, std::int64_t{nodes} * gpus, q.max_bytes.value_or(s.nccl_tests.max_bytes),
                                    q.closed_form, o.threads),
      memory_limit(o.scenario));
  const report::NcclTestsSweep sweep = report::run_nccl_tests_sweep(s, q);
  outputs.report(o.output, false, [&](std::FILE* out) { report::write_nccl_tests_table(out, sweep); });
  outputs.commit();
  print_wall_clock(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
}

}  // namespace

void add_nccl_tests_command(CLI::App& app) {
  auto options = std::make_shared<NcclTestsOptions>();
  CLI::App* cmd = app.add_subcommand("nccl-tests", "simulate NVIDIA nccl-tests (all_reduce_perf, ...) on a scenario");
  add_scenario_options(*cmd, options->scenario);
  cmd->add_option("-o,--output", options->output, "write the table to this file instead of standard output");
  cmd->add_option("--op", options->op,
                  "all_reduce, all_gather, reduce_scatter, alltoall, broadcast, reduce or sendrecv "
                  "(default: the scenario's nccl-tests workload, else all_reduce)");
  cmd->add_option("-b,--minbytes", options->begin, "smallest size, e.g. 8, 1K, 1M (powers of 1024; default 8)");
  cmd->add_option("-e,--maxbytes", options->end, "largest size, e.g. 8G (default 8G)");
  cmd->add_option("-f,--stepfactor", options->factor, "multiply the size by this each step (default 2)");
  cmd->add_option("--nodes", options->nodes, "use the first N nodes (default: all)");
  cmd->add_option("--gpus-per-node", options->gpus_per_node, "use the first G GPUs of each node (default: all)");
  cmd->add_option("--algo", options->algo,
                  "auto, ring, tree, nvls, nvlstree, hd, hierarchical or direct (default auto)");
  cmd->add_flag("--closed-form", options->closed_form,
                "time each size by its algorithm's closed form (docs/collectives.md), equal to the simulation on an "
                "idle cluster and fast on large ones, instead of running its transfer DAG");
  cmd->add_option("--threads", options->threads,
                  "time the sizes side by side on this many threads, each with its own copy of the cluster; the "
                  "table is the same for any number (default 1)")
      ->check(CLI::Range(1u, 1024u));
  cmd->callback([options] {
    const scenario::ScopedCatalogs catalogs(catalog_folders());
    run_nccl_tests(*options);
  });
}

}  // namespace fathom::cli
