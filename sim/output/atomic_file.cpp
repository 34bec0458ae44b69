#include "sim/output/atomic_file.hpp"

#include "sim/output/output_set.hpp"

namespace fathom::sim {

void write_file_atomically(const std::filesystem::path& path, const std::function<void(std::ostream&)>& write) {
  OutputSet one;
  one.stage(path, write);
  one.commit();
}

}  // namespace fathom::sim
