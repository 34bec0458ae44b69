// `fathom plan SCENARIO`: searches the scenario's `plan:` (docs/plan.md) and ranks what meets
// its constraints.
#include <tbb/info.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>

#include "cli/commands.hpp"
#include "cli/outputs.hpp"
#include "cli/scenario_options.hpp"
#include "cli/terminal_output.hpp"
#include "plan/plan_report.hpp"
#include "plan/planner.hpp"
#include "report/output_file.hpp"
#include "scenarios/user_catalogs.hpp"
#include "sim/processes/process_group.hpp"

namespace fathom::cli {

namespace {

struct PlanCommandOptions {
  ScenarioOptions scenario;
  std::string output;       // -o: the ranking
  std::string csv;          // --csv: every candidate
  std::string json;         // --json: every candidate, with the ranking and the front
  int threads = 0;          // 0: every core
  int top = 0;              // 0: the scenario's plan.top
  std::string journal;      // --journal: every evaluated candidate, as it is evaluated
  bool resume = false;      // --resume: continue the journal's run
  bool exhaustive = false;  // --exhaustive: no pruning by the lower bound
};

void run_plan_command(const PlanCommandOptions& o) {
  const auto started = std::chrono::steady_clock::now();
  Outputs outputs{{"-o", o.output}, {"--csv", o.csv}, {"--json", o.json}};
  const scenario::Scenario s = load(o.scenario);
  note_loaded(s);
  if (!s.plan) {
    throw scenario::ScenarioError({s.file, 1, 1}, "plan", "a plan: section saying what to vary", "none",
                                  "see docs/plan.md");
  }
  plan::PlanOptions options;
  // By default every core this process may run on (under mpirun, the cores it is bound to).
  options.threads = o.threads > 0 ? o.threads : std::max(1, tbb::info::default_concurrency());
  // Progress on a terminal only: a log or a pipe gets the result alone.
  const bool show_progress = !quiet() && isatty(STDERR_FILENO) != 0 && sim::ProcessGroup::world().root();
  if (show_progress) {
    options.progress = [](std::size_t done, std::size_t total) {
      std::fprintf(stderr, "\rfathom: plan: %zu of %zu candidates evaluated", done, total);
      if (done == total) std::fprintf(stderr, "\n");
    };
  }
  options.journal = o.journal;
  options.resume = o.resume;
  options.prune_by_bound = !o.exhaustive;
  const sim::ProcessGroup& processes = sim::ProcessGroup::world();
  options.processes = &processes;
  if (processes.size() > 1 && !o.journal.empty()) {
    throw std::invalid_argument("--journal: expected a run in one process, found " + std::to_string(processes.size()) +
                                " processes (mpirun); a journal belongs to one process: drop --journal, or run "
                                "without mpirun");
  }
  const plan::PlanResult result = plan::run_plan(o.scenario.file, o.scenario.overrides, options);
  // Under mpirun, rank 0 holds every candidate and writes; the others have sent theirs.
  if (!result.complete) return;
  const int top = o.top > 0 ? o.top : s.plan->top;
  outputs.report(o.output, report::is_stdout(o.csv) || report::is_stdout(o.json),
                 [&](std::FILE* out) { plan::write_plan_summary(out, result, top); });
  if (!o.csv.empty()) outputs.file(o.csv, [&](std::ostream& out) { plan::write_plan_csv(out, result); });
  if (!o.json.empty()) outputs.file(o.json, [&](std::ostream& out) { plan::write_plan_json(out, result); });
  outputs.commit();
  if (!quiet()) {
    print_wall_clock(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  }
}

}  // namespace

void add_plan_command(CLI::App& app) {
  auto options = std::make_shared<PlanCommandOptions>();
  CLI::App* cmd =
      app.add_subcommand("plan", "search the scenario's plan: the candidates that meet its constraints, ranked");
  add_scenario_options(*cmd, options->scenario);
  cmd->add_option("-o,--output", options->output, "write the ranking to this file instead of standard output");
  cmd->add_option("--csv", options->csv, "write every candidate, its status and figures (CSV; - for standard output)");
  cmd->add_option("--json", options->json,
                  "write every candidate with its step breakdown, the ranking and the Pareto front (JSON; - for "
                  "standard output)");
  cmd->add_option("--threads", options->threads,
                  "threads to evaluate candidates on (default: every core this process may use)")
      ->check(CLI::Range(1, 4096));
  cmd->add_option("--top", options->top, "how many of the best to print (default: plan.top)")
      ->check(CLI::Range(1, 1000000));
  cmd->add_option("--journal", options->journal,
                  "append each evaluated candidate to this file, so that --resume can continue a run that stopped");
  cmd->add_flag("--resume", options->resume,
                "take the candidates the --journal file holds from it and evaluate the rest (the same output as an "
                "uninterrupted run)")
      ->needs(cmd->get_option("--journal"));
  cmd->add_flag("--exhaustive", options->exhaustive,
                "simulate every candidate that fits in memory, also those whose lower bound already misses the "
                "deadline (their figures in the CSV, for plots; the ranking is the same)");
  cmd->callback([options] {
    const scenario::ScopedCatalogs catalogs(catalog_folders());
    run_plan_command(*options);
  });
}

}  // namespace fathom::cli
