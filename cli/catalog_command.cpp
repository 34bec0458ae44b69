// `fathom catalog list` and `fathom catalog show NAME`: what a scenario can name (accelerators,
// switches, nodes, models), built-in and from the --catalog folders, each with the file it comes
// from; and the `--catalog DIR` option every command accepts.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/outputs.hpp"
#include "cli/terminal_output.hpp"
#include "report/catalog_report.hpp"
#include "scenarios/user_catalogs.hpp"

namespace fathom::cli {

namespace {

std::vector<std::string>& folders() {
  static std::vector<std::string> f;
  return f;
}

}  // namespace

void add_catalog_option(CLI::App& app) {
  app.add_option("--catalog", folders(),
                 "a user catalog folder (accelerators.yaml, switches.yaml, nodes.yaml, models.yaml), searched "
                 "before the built-in catalog (repeatable; docs/hardware.md, \"User catalogs\")")
      ->check(CLI::ExistingDirectory);
}

const std::vector<std::string>& catalog_folders() { return folders(); }

void add_catalog_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand(
      "catalog", "list the catalog's accelerators, switches, nodes, models and storage tiers, or show one");
  cmd->require_subcommand(1);
  auto output = std::make_shared<std::string>();
  CLI::App* list = cmd->add_subcommand("list", "every entry, with the file it comes from and its source");
  list->add_option("-o,--output", *output, "write the list to this file instead of standard output");
  list->callback([output] {
    const scenario::ScopedCatalogs catalogs(catalog_folders());
    Outputs outputs{{"-o", *output}};
    outputs.report(*output, false, [](std::FILE* out) { report::write_catalog_list(out); });
    outputs.commit();
  });
  auto name = std::make_shared<std::string>();
  CLI::App* show = cmd->add_subcommand("show", "one entry's figures, its file and its source");
  show->add_option("name", *name, "the entry's name")->required();
  show->add_option("-o,--output", *output, "write the entry to this file instead of standard output");
  show->callback([name, output] {
    const scenario::ScopedCatalogs catalogs(catalog_folders());
    Outputs outputs{{"-o", *output}};
    outputs.report(*output, false, [&](std::FILE* out) { report::write_catalog_entry(out, *name); });
    outputs.commit();
  });
}

}  // namespace fathom::cli
