// `fathom report SCENARIO`: the go-live report (docs/go-live.md). Evaluates the acceptance
// criteria for the planned cluster, GPU or wafer-scale (and its pilot, report.pilot) and writes them as HTML or
// Markdown by the -o file's extension, or Markdown on standard output.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>

#include "cli/commands.hpp"
#include "cli/outputs.hpp"
#include "cli/scenario_options.hpp"
#include "cli/terminal_output.hpp"
#include "report/golive/golive_report.hpp"
#include "report/golive/golive_writers.hpp"
#include "report/golive/wafer_golive.hpp"
#include "report/output_file.hpp"
#include "scenarios/user_catalogs.hpp"

namespace fathom::cli {

namespace {

struct ReportOptions {
  ScenarioOptions scenario;
  std::string output;  // -o: .html or .md; empty or "-": Markdown on standard output
};

enum class Format { kMarkdown, kHtml };

// The format -o's extension names, checked before any work is done.
Format output_format(const std::string& path) {
  if (path.empty() || report::is_stdout(path)) return Format::kMarkdown;
  const std::string ext = std::filesystem::path(path).extension().string();
  if (ext == ".html" || ext == ".htm") return Format::kHtml;
  if (ext == ".md" || ext == ".markdown") return Format::kMarkdown;
  throw std::invalid_argument(
      "-o: expected a file ending in .html or .md (the format follows the extension), found \"" + path + "\"");
}

void run_report(const ReportOptions& o) {
  const Format format = output_format(o.output);
  const bool to_file = !o.output.empty() && !report::is_stdout(o.output);
  Outputs outputs{{"-o", to_file ? o.output : std::string()}};
  const scenario::Scenario s = load(o.scenario);
  note_loaded(s);
  report::GoLiveDocument g;
  if (s.wafer_scale) {
    g = report::wafer_golive_document(report::evaluate_wafer_golive(s));
  } else {
    const report::GoLiveReport gpu = report::evaluate_golive(s, catalog_folders());
    warn(gpu.cluster.training.result.cluster);
    g = report::golive_document(gpu);
  }
  if (to_file) {
    outputs.file(o.output, [&](std::ostream& out) {
      if (format == Format::kHtml) {
        report::write_golive_html(out, g);
      } else {
        report::write_golive_markdown(out, g);
      }
    });
  } else {
    std::ostringstream text;
    report::write_golive_markdown(text, g);
    outputs.report("", false, [&](std::FILE* out) { std::fputs(text.str().c_str(), out); });
  }
  outputs.commit();
  if (!g.all_pass()) throw ExitWith{kExitFailedExpectation};
}

}  // namespace

void add_report_command(CLI::App& app) {
  auto options = std::make_shared<ReportOptions>();
  CLI::App* cmd =
      app.add_subcommand("report", "the go-live report: the planned cluster against its acceptance criteria");
  add_scenario_options(*cmd, options->scenario);
  cmd->add_option("-o,--output", options->output,
                  "write the report to FILE: .html (self-contained, with plots) or .md; default: Markdown on "
                  "standard output");
  cmd->callback([options] {
    const scenario::ScopedCatalogs catalogs(catalog_folders());
    run_report(*options);
  });
}

}  // namespace fathom::cli
