// The processes of one run started by `mpirun -n N` (OpenMPI): a sweep splits its independent
// pieces (a plan's candidates; later a run's replications) across them and gathers what each
// produced to the first, which writes the outputs (docs/plan.md, "Across machines"). A process
// that mpirun did not start is a group of one and never touches MPI, so `fathom` runs as
// always without a launcher.
#pragma once

#include <string>
#include <vector>

namespace fathom::sim {

class ProcessGroup {
 public:
  // This process's group: MPI initialised on first use when mpirun started the process (its
  // environment says so), a group of one otherwise.
  static ProcessGroup& world();

  int rank() const { return rank_; }
  int size() const { return size_; }
  bool root() const { return rank_ == 0; }

  // Every process's `mine`, in rank order, on rank 0; empty on the others. Every process of
  // the group must call it.
  std::vector<std::string> gather(const std::string& mine) const;

  // Ends a process of the group with exit code `code`, for main() to return: MPI finalised
  // after a success; after a failure the whole group aborted with the code (a failure on one
  // process would otherwise leave the others waiting in gather() for it). A no-op returning
  // `code` when no group was formed.
  static int finish(int code);

 private:
  ProcessGroup();
  static ProcessGroup*& formed();
  int rank_ = 0;
  int size_ = 1;
  bool mpi_ = false;
};

}  // namespace fathom::sim
