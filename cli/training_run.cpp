#include "cli/training_run.hpp"

#include <cstdio>
#include <stdexcept>

#include "cli/commands.hpp"
#include "cli/outputs.hpp"
#include "cli/terminal_output.hpp"
#include "report/output_file.hpp"
#include "report/training/training_report.hpp"

namespace fathom::cli {

int run_training(const scenario::Scenario& s, const TrainingOutputs& o) {
  using report::is_stdout;
  if (is_stdout(o.json) && is_stdout(o.trace))
    throw std::invalid_argument("--json - and --trace - cannot both write standard output");
  Outputs outputs{{"-o", o.report}, {o.json_flag, o.json}, {o.trace_flag, o.trace}};
  const report::TrainingReport r = report::evaluate_training(s, catalog_folders());
  warn(r.result.cluster);
  // With an output on standard output (`--json -`) the human report moves to standard error,
  // so that the output can be piped. A strategy that does not fit shows its memory on the
  // terminal, and no file is written.
  const bool report_to_file = !o.report.empty() && !is_stdout(o.report);
  if (r.fits() || !report_to_file) {
    outputs.report(r.fits() ? o.report : "", is_stdout(o.json) || is_stdout(o.trace),
                   [&](std::FILE* out) { report::write_training_summary(out, r); });
  }
  report::require_fits(r);
  if (!o.json.empty()) outputs.file(o.json, [&](std::ostream& to) { report::write_training_json(to, r); });
  if (!o.trace.empty()) outputs.file(o.trace, [&](std::ostream& to) { report::write_training_trace(to, r); });
  outputs.commit();
  return r.all_pass ? kExitOk : kExitFailedExpectation;
}

}  // namespace fathom::cli
