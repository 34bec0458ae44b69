// fathom: the command-line front end. Each capability is a subcommand, added by the layer
// that provides it; only subcommands that exist are listed.
#include <CLI/CLI.hpp>
#include <cstdio>

int main(int argc, char** argv) {
  CLI::App app{
      "fathom: a discrete-event simulator and capacity planner for AI clusters.\n"
      "The engine's benchmark runs as the separate program fathom-phold."};
  app.set_version_flag("--version", std::string("fathom ") + FATHOM_VERSION);
  app.require_subcommand(0, 1);
  CLI11_PARSE(app, argc, argv);
  if (app.get_subcommands().empty()) std::printf("%s", app.help().c_str());
  return 0;
}
