// fathom: the command-line front end. Each capability is a subcommand, registered in
// cli/commands.hpp; only subcommands that exist are listed. Every usage error (an unknown
// command or flag, a missing or unreadable file, a value out of range) prints
// `fathom: error: ...` with a "did you mean" where one is near, and exits 2.
#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdio>
#include <exception>
#include <new>
#include <string>
#include <vector>

#include "calibrate/errors.hpp"
#include "cli/commands.hpp"
#include "cli/terminal_output.hpp"
#include "scenarios/errors.hpp"
#include "sim/errors.hpp"
#include "sim/interrupt/interrupt.hpp"
#include "sim/processes/process_group.hpp"

namespace {

std::vector<std::string> subcommand_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands({})) names.push_back(sub->get_name());
  return names;
}

// The flags (long and short, with their dashes) of `app`.
std::vector<std::string> flag_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::Option* o : app.get_options()) {
    for (const auto& l : o->get_lnames()) names.push_back("--" + l);
    for (const auto& s : o->get_snames()) names.push_back("-" + s);
  }
  return names;
}

// Ctrl-C or `kill`: the run stopped at an event boundary and its temporary files are gone.
int interrupted(int signal, bool outputs_written) {
  std::fprintf(stderr, "fathom: interrupted by %s; %s\n", signal == SIGINT ? "SIGINT" : "SIGTERM",
               outputs_written ? "the outputs had been written and are kept" : "no output was written");
  return 128 + signal;
}

int usage_error(const std::string& message) {
  std::fprintf(stderr, "fathom: error: %s\n", message.c_str());
  return fathom::cli::kExitBadInput;
}

// What CLI11 reported, in fathom's words: the unknown command or flag named, with a hint.
int parse_error(const CLI::App& app, const CLI::ParseError& e, int argc, char** argv) {
  // The command is the first argument that names one (CLI11 has not marked it parsed when it
  // threw).
  const CLI::App* command = nullptr;
  for (int i = 1; i < argc && command == nullptr; ++i) {
    for (const CLI::App* sub : app.get_subcommands({})) {
      if (sub->get_name() == argv[i]) command = sub;
    }
  }
  // The first argument that is neither a command nor a flag of the command given.
  const std::vector<std::string> commands = subcommand_names(app);
  if (command == nullptr && argc > 1 && argv[1][0] != '-') {
    const std::string hint = fathom::scenario::did_you_mean(argv[1], commands);
    std::string list;
    for (const auto& c : commands) list += (list.empty() ? "" : ", ") + c;
    return usage_error("unknown command \"" + std::string(argv[1]) + "\" (commands: " + list + ")" +
                       (hint.empty() ? "" : "; " + hint));
  }
  if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr) {
    const CLI::App& scope = command != nullptr ? *command : app;
    const std::vector<std::string> flags = flag_names(scope);
    for (int i = 1; i < argc; ++i) {
      const std::string arg = argv[i];
      if (arg.size() < 2 || arg[0] != '-') continue;
      const std::string name = arg.substr(0, arg.find('='));
      bool known = false;
      for (const auto& f : flags) known = known || f == name;
      for (const auto& f : flag_names(app)) known = known || f == name;
      if (known) continue;
      const std::string hint = fathom::scenario::did_you_mean(name, flags);
      return usage_error("unknown flag \"" + name + "\" for `fathom" +
                         (command != nullptr ? " " + command->get_name() : std::string()) + "`" +
                         (hint.empty() ? "" : "; " + hint) + " (see --help)");
    }
  }
  std::string message = e.what();
  // CLI11 names a missing file "File does not exist: NAME"; say which input it was.
  if (const auto at = message.find("File does not exist: "); at != std::string::npos) {
    return usage_error("cannot read " + message.substr(0, at == 0 ? 0 : at - 2) + " file \"" + message.substr(at + 21) +
                       "\": no such file");
  }
  return usage_error(message + " (see --help)");
}

// The command line, run: the exit code.
int run(int argc, char** argv) {
  CLI::App app{
      "fathom: a discrete-event simulator and capacity planner for AI clusters.\n"
      "The engine's benchmark runs as the separate program fathom-phold."};
  app.set_version_flag("--version", std::string("fathom ") + FATHOM_VERSION);
  app.require_subcommand(0, 1);
  fathom::cli::add_simulate_command(app);
  fathom::cli::add_topology_command(app);
  fathom::cli::add_plan_command(app);
  fathom::cli::add_report_command(app);
  fathom::cli::add_nccl_tests_command(app);
  fathom::cli::add_validate_command(app);
  fathom::cli::add_calibrate_command(app);
  fathom::cli::add_catalog_command(app);
  fathom::cli::add_catalog_option(app);
  fathom::cli::add_verbosity_options(app);
  // --catalog after any command: a flag a subcommand does not know falls through to fathom's.
  for (CLI::App* sub : app.get_subcommands({})) {
    sub->fallthrough();
    for (CLI::App* nested : sub->get_subcommands({})) nested->fallthrough();
  }
  fathom::sim::install_interrupt_handlers();
  try {
    app.parse(argc, argv);
  } catch (const fathom::sim::Interrupted& e) {
    return interrupted(e.signal(), false);
  } catch (const fathom::cli::ExitWith& e) {
    if (const int s = fathom::sim::pending_interrupt(); s != 0) return interrupted(s, true);
    return e.code;
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return parse_error(app, e, argc, argv);
  } catch (const fathom::scenario::ScenarioError& e) {
    // An interrupt that surfaced as another error (rethrown by a layer that wraps errors).
    if (const int s = fathom::sim::pending_interrupt(); s != 0) return interrupted(s, false);
    std::fprintf(stderr, "fathom: error: %s\n", e.what());
    return fathom::cli::kExitBadInput;
  } catch (const fathom::calib::ParseError& e) {
    if (const int s = fathom::sim::pending_interrupt(); s != 0) return interrupted(s, false);
    std::fprintf(stderr, "fathom: error: %s\n", e.what());
    return fathom::cli::kExitBadInput;
  } catch (const fathom::sim::ModelError& e) {
    if (const int s = fathom::sim::pending_interrupt(); s != 0) return interrupted(s, false);
    std::fprintf(stderr, "fathom: internal error (a model broke an engine rule): %s\n", e.what());
    return fathom::cli::kExitInternal;
  } catch (const std::bad_alloc&) {
    // Never "std::bad_alloc" alone: say what ran out and what to do.
    std::fprintf(stderr,
                 "fathom: error: out of memory: the scenario needs more than this machine has; shrink it (fewer "
                 "nodes, flows, micro-batches or collectives.max_slices) or run it on a larger machine; no output "
                 "was written\n");
    return fathom::cli::kExitBadInput;
  } catch (const std::exception& e) {
    if (const int s = fathom::sim::pending_interrupt(); s != 0) return interrupted(s, false);
    std::fprintf(stderr, "fathom: error: %s\n", e.what());
    return fathom::cli::kExitBadInput;
  }
  if (const int s = fathom::sim::pending_interrupt(); s != 0) return interrupted(s, true);
  if (app.get_subcommands().empty()) {
    // Bare `fathom`: nothing to do is a usage error; the help says what there is.
    std::fprintf(stderr, "%s", app.help().c_str());
    return usage_error("a command is required (" + [&] {
      std::string list;
      for (const auto& c : subcommand_names(app)) list += (list.empty() ? "" : ", ") + c;
      return list;
    }() + ")");
  }
  return fathom::cli::kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  // Under mpirun: MPI finalised, or the group aborted on a failure (sim/processes).
  return fathom::sim::ProcessGroup::finish(run(argc, argv));
}
