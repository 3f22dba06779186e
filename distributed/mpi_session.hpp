#pragma once
// MPI for the portasolve program and its tests: started only when a launcher
// (mpirun, mpiexec, srun) started this process, so a plain run of an MPI
// build behaves exactly as a build without MPI. Standard MPI only (Open MPI,
// MPICH); Open MPI's extension tells whether it moves device memory itself.
#include <mpi.h>

#include <string>
#include <vector>

#include "distributed/halo_statistics.hpp"

namespace portasolve::distributed {

// True when the environment shows an MPI launcher started this process
// (Open MPI, MPICH/Hydra, PMIx, Slurm's PMI): then MPI is initialised even
// for one rank.
bool launched_by_mpi_launcher();

struct RankInfo {
  int rank = 0, size = 1;              // in MPI_COMM_WORLD
  int local_rank = 0, local_size = 1;  // among the ranks on this node (shared memory)
};

// MPI_Init_thread (funneled: only the main thread calls MPI) unless MPI is
// running already; MPI_Finalize at destruction if this object started it.
class MpiSession {
 public:
  MpiSession(int& argc, char**& argv);
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  const RankInfo& ranks() const noexcept { return ranks_; }

 private:
  bool started_ = false;
  RankInfo ranks_;
};

// Ranks of `comm` and of its node-local part; needs MPI running.
RankInfo rank_info(MPI_Comm comm = MPI_COMM_WORLD);

// Whether halos may be handed to MPI in device memory: the build's memory
// space is host memory, or the MPI library says at run time that it moves
// device memory (Open MPI's MPIX_Query_cuda_support / _rocm_support).
// Otherwise halos are staged through host buffers.
bool device_memory_aware();

// What the result file says of a HaloTransport ("device-aware MPI", "staged
// through host buffers", ...).
std::string halo_transport_name(HaloTransport transport);

// Every rank's string, in rank order, on every rank.
std::vector<std::string> all_gather_strings(const std::string& mine, MPI_Comm comm = MPI_COMM_WORLD);

// The sum of every rank's `value` in rank order, the same bits on every rank
// and in every rerun (MPI_Allreduce may sum in any order).
double ordered_sum(double value, MPI_Comm comm);

// Ends every rank: prints `message` (prefixed by the rank) on stderr and calls
// MPI_Abort with `exit_code`. For failures one rank meets alone, which would
// otherwise leave the others waiting in a collective call forever.
[[noreturn]] void abort_all(const std::string& message, int exit_code);

}  // namespace portasolve::distributed
