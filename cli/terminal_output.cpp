#include "cli/terminal_output.hpp"

#include <sys/resource.h>

#include "report/terminal.hpp"

namespace fathom::cli {

namespace {

struct Verbosity {
  bool quiet = false;
  bool verbose = false;
};

Verbosity& verbosity() {
  static Verbosity v;
  return v;
}

}  // namespace

void add_verbosity_options(CLI::App& app) {
  CLI::Option* q = app.add_flag("-q,--quiet", verbosity().quiet,
                                "print only errors (files asked for with -o, --json, ... are still written)");
  CLI::Option* v = app.add_flag("-v,--verbose", verbosity().verbose,
                                "also print what was read, how long each phase took and every file written");
  q->excludes(v);
}

bool quiet() { return verbosity().quiet; }
bool verbose() { return verbosity().verbose; }

void note(const std::string& message) {
  if (verbose()) std::fprintf(stderr, "fathom: %s\n", message.c_str());
}

void warn(const topo::TopologySummary& summary) {
  if (!quiet()) report::print_warnings(summary);
}

void note_loaded(const scenario::Scenario& s) {
  if (!verbose()) return;
  std::string overrides;
  for (const auto& o : s.overrides) overrides += (overrides.empty() ? "" : ", ") + o;
  note("scenario " + s.file + (overrides.empty() ? "" : " with --set " + overrides));
  for (const auto& e : s.catalog_entries) {
    if (e.file.rfind("<built-in>", 0) != 0) note(e.kind + " " + e.name + " from " + e.file);
  }
}

void print_wall_clock(double seconds) {
  if (quiet()) return;
  std::fprintf(stderr, "wall clock: %.3f s\n", seconds);
  rusage usage{};
  // Linux gives ru_maxrss in KiB.
  if (getrusage(RUSAGE_SELF, &usage) == 0) {
    std::fprintf(stderr, "peak memory: %.1f MiB\n", static_cast<double>(usage.ru_maxrss) / 1024.0);
  }
}

}  // namespace fathom::cli
