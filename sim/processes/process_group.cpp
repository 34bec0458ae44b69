#include "sim/processes/process_group.hpp"

#include <mpi.h>

#include <cstdint>
#include <cstdlib>
#include <stdexcept>

namespace fathom::sim {

namespace {

// OpenMPI's launcher (mpirun, or srun through PMIx) sets these in each process it starts.
bool started_by_mpirun() {
  return std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr || std::getenv("PMIX_RANK") != nullptr;
}

void check(int code, const char* what) {
  if (code != MPI_SUCCESS) throw std::runtime_error(std::string("MPI: ") + what + " failed");
}

}  // namespace

ProcessGroup*& ProcessGroup::formed() {
  static ProcessGroup* group = nullptr;
  return group;
}

ProcessGroup& ProcessGroup::world() {
  static ProcessGroup group;
  formed() = &group;
  return group;
}

ProcessGroup::ProcessGroup() {
  if (!started_by_mpirun()) return;
  // Only the thread that called MPI_Init calls MPI; the others (oneTBB's) never do.
  int provided = 0;
  check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
  mpi_ = true;
  check(MPI_Comm_rank(MPI_COMM_WORLD, &rank_), "MPI_Comm_rank");
  check(MPI_Comm_size(MPI_COMM_WORLD, &size_), "MPI_Comm_size");
}

std::vector<std::string> ProcessGroup::gather(const std::string& mine) const {
  if (!mpi_ || size_ == 1) return {mine};
  if (mine.size() > static_cast<std::size_t>(INT32_MAX)) {
    throw std::runtime_error("MPI: a process's part is over 2 GiB; split the sweep over more processes");
  }
  const int length = static_cast<int>(mine.size());
  std::vector<int> lengths(root() ? static_cast<std::size_t>(size_) : 0);
  check(MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Gather");
  std::vector<int> offsets(lengths.size(), 0);
  std::int64_t total = 0;
  for (std::size_t r = 0; r < lengths.size(); ++r) {
    if (total > INT32_MAX) throw std::runtime_error("MPI: the gathered parts are over 2 GiB");
    offsets[r] = static_cast<int>(total);
    total += lengths[r];
  }
  if (total > INT32_MAX) throw std::runtime_error("MPI: the gathered parts are over 2 GiB");
  std::string all(static_cast<std::size_t>(total), '\0');
  check(MPI_Gatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, 0,
                    MPI_COMM_WORLD),
        "MPI_Gatherv");
  std::vector<std::string> parts;
  for (std::size_t r = 0; r < lengths.size(); ++r) {
    parts.push_back(all.substr(static_cast<std::size_t>(offsets[r]), static_cast<std::size_t>(lengths[r])));
  }
  return parts;
}

int ProcessGroup::finish(int code) {
  ProcessGroup* group = formed();
  if (group == nullptr || !group->mpi_) return code;
  if (code != 0 && group->size_ > 1) MPI_Abort(MPI_COMM_WORLD, code);
  MPI_Finalize();
  group->mpi_ = false;
  return code;
}

}  // namespace fathom::sim
