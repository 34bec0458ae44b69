#include "cli/outputs.hpp"

#include <cstdlib>
#include <stdexcept>

#include "cli/terminal_output.hpp"
#include "report/output_file.hpp"
#include "sim/interrupt/interrupt.hpp"

namespace fathom::cli {

Outputs::Outputs(std::initializer_list<std::pair<std::string, std::string>> declared) {
  for (const auto& [flag, path] : declared) set_.declare(flag, path);
}

void Outputs::report(const std::string& path, bool stdout_taken, const std::function<void(std::FILE*)>& write) {
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
    file(path, [&](std::ostream& out) { out << text; });
    return;
  }
  if (stdout_taken && report::is_stdout(path)) {
    throw std::invalid_argument("-o - and another output on standard output (-) cannot both be written");
  }
  if (quiet()) return;
  write(stdout_taken ? stderr : stdout);
  std::fflush(stdout);
}

void Outputs::file(const std::string& path, const std::function<void(std::ostream&)>& write) {
  if (report::is_stdout(path)) {
    report::write_output(path, write);
    return;
  }
  set_.stage(path, write);
}

void Outputs::commit() {
  sim::poll_interrupt();
  const auto targets = set_.staged();
  set_.commit();
  for (const auto& t : targets) note("wrote " + t.string());
}

}  // namespace fathom::cli
