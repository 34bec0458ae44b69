// fathom: the command-line front end. Each capability is a subcommand, registered in
// cli/commands.hpp; only subcommands that exist are listed.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>

#include "calibrate/errors.hpp"
#include "cli/commands.hpp"
#include "scenarios/errors.hpp"
#include "sim/errors.hpp"

int main(int argc, char** argv) {
  CLI::App app{
      "fathom: a discrete-event simulator and capacity planner for AI clusters.\n"
      "The engine's benchmark runs as the separate program fathom-phold."};
  app.set_version_flag("--version", std::string("fathom ") + FATHOM_VERSION);
  app.require_subcommand(0, 1);
  fathom::cli::add_simulate_command(app);
  fathom::cli::add_topology_command(app);
  fathom::cli::add_nccl_tests_command(app);
  fathom::cli::add_validate_command(app);
  fathom::cli::add_calibrate_command(app);
  try {
    app.parse(argc, argv);
  } catch (const fathom::cli::ExitWith& e) {
    return e.code;
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? fathom::cli::kExitOk : fathom::cli::kExitBadInput;
  } catch (const fathom::scenario::ScenarioError& e) {
    std::fprintf(stderr, "fathom: error: %s\n", e.what());
    return fathom::cli::kExitBadInput;
  } catch (const fathom::calib::ParseError& e) {
    std::fprintf(stderr, "fathom: error: %s\n", e.what());
    return fathom::cli::kExitBadInput;
  } catch (const fathom::sim::ModelError& e) {
    std::fprintf(stderr, "fathom: internal error (a model broke an engine rule): %s\n", e.what());
    return fathom::cli::kExitInternal;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fathom: error: %s\n", e.what());
    return fathom::cli::kExitBadInput;
  }
  if (app.get_subcommands().empty()) std::printf("%s", app.help().c_str());
  return fathom::cli::kExitOk;
}
