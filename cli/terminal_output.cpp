#include "cli/terminal_output.hpp"

#include <cstdlib>
#include <stdexcept>

#include "report/output_file.hpp"
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

void emit(const std::string& path, bool stdout_taken, const std::function<void(std::FILE*)>& write) {
  if (!path.empty() && !report::is_stdout(path)) {
    char* buffer = nullptr;
    std::size_t size = 0;
    std::FILE* memory = open_memstream(&buffer, &size);
    if (memory == nullptr) throw std::runtime_error("cannot buffer the output for " + path);
    try {
      write(memory);
    } catch (...) {
      std::fclose(memory);
      std::free(buffer);
      throw;
    }
    std::fclose(memory);
    const std::string text(buffer, size);
    std::free(buffer);
    write_file(path, [&](std::ostream& out) { out << text; });
    return;
  }
  if (stdout_taken && report::is_stdout(path)) {
    throw std::invalid_argument("-o - and another output on standard output (-) cannot both be written");
  }
  if (quiet()) return;
  write(stdout_taken ? stderr : stdout);
  std::fflush(stdout);
}

void write_file(const std::string& path, const std::function<void(std::ostream&)>& write) {
  report::write_output(path, write);
  if (!report::is_stdout(path)) note("wrote " + path);
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
  if (!quiet()) std::fprintf(stderr, "wall clock: %.3f s\n", seconds);
}

}  // namespace fathom::cli
