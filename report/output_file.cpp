#include "report/output_file.hpp"

#include <iostream>

#include "sim/output/atomic_file.hpp"

namespace fathom::report {

void write_output(const std::string& path, const std::function<void(std::ostream&)>& write) {
  if (is_stdout(path)) {
    write(std::cout);
    std::cout.flush();
    return;
  }
  sim::write_file_atomically(path, write);
}

}  // namespace fathom::report
