#include "distributed/mpi_session.hpp"

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <numeric>
#include <thread>

#include "core/host_threads.hpp"
#include "core/spaces.hpp"

#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>  // MPIX_CUDA_AWARE_SUPPORT, MPIX_Query_cuda_support
#endif

namespace portasolve::distributed {

bool launched_by_mpi_launcher() {
  // Open MPI (mpirun), PMIx (Open MPI 5, srun --mpi=pmix), MPICH's Hydra and
  // Slurm's PMI set one of these in every process they start.
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE", "PMI_RANK", "MPI_LOCALNRANKS"})
    if (std::getenv(name)) return true;
  return false;
}

RankInfo rank_info(MPI_Comm comm) {
  RankInfo info;
  MPI_Comm_rank(comm, &info.rank);
  MPI_Comm_size(comm, &info.size);
  MPI_Comm node;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, info.rank, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &info.local_rank);
  MPI_Comm_size(node, &info.local_size);
  MPI_Comm_free(&node);
  return info;
}

MpiSession::MpiSession(int& argc, char**& argv) {
  int running = 0;
  MPI_Initialized(&running);
  if (!running) {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    started_ = true;
  }
  // Errors come back as codes we turn into exceptions, not as MPI's abort.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  ranks_ = rank_info(MPI_COMM_WORLD);
  // The node's cores shared among its ranks for their host-side loops.
  if (ranks_.local_size > 1)
    set_host_threads(std::max<std::size_t>(
        1, std::max(1u, std::thread::hardware_concurrency()) / static_cast<std::size_t>(ranks_.local_size)));
}

MpiSession::~MpiSession() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (started_ && !finalized) MPI_Finalize();
}

bool device_memory_aware() {
  if (std::is_same<MemSpace, HostSpace>::value) return true;
#if defined(KOKKOS_ENABLE_CUDA) && defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  return MPIX_Query_cuda_support() == 1;
#elif defined(KOKKOS_ENABLE_HIP) && defined(MPIX_ROCM_AWARE_SUPPORT) && MPIX_ROCM_AWARE_SUPPORT
  return MPIX_Query_rocm_support() == 1;
#else
  return false;
#endif
}

std::string halo_transport_name(HaloTransport transport) {
  // In HaloTransport's order.
  static const char* const names[] = {"host memory (no device)",
                                      "staged through host buffers",
                                      "device-aware MPI",
                                      "device to device (CUDA IPC)",
                                      "device to device within a node (CUDA IPC), staged between nodes",
                                      "none (no neighbours)"};
  static_assert(std::size(names) == static_cast<std::size_t>(HaloTransport::no_neighbours) + 1);
  return names[static_cast<std::size_t>(transport)];
}

std::vector<std::string> all_gather_strings(const std::string& mine, MPI_Comm comm) {
  int size = 1;
  MPI_Comm_size(comm, &size);
  const int length = static_cast<int>(mine.size());
  std::vector<int> lengths(size), offsets(size);
  MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, comm);
  std::exclusive_scan(lengths.begin(), lengths.end(), offsets.begin(), 0);
  std::string all(static_cast<std::size_t>(offsets.back() + lengths.back()), '\0');
  MPI_Allgatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, comm);
  std::vector<std::string> strings;
  for (int r = 0; r < size; ++r) strings.push_back(all.substr(offsets[r], lengths[r]));
  return strings;
}

double ordered_sum(double value, MPI_Comm comm) {
  int size = 1;
  MPI_Comm_size(comm, &size);
  std::vector<double> values(size);
  MPI_Allgather(&value, 1, MPI_DOUBLE, values.data(), 1, MPI_DOUBLE, comm);
  double sum = 0;
  for (double v : values) sum += v;
  return sum;
}

void abort_all(const std::string& message, int exit_code) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::cerr << "portasolve: rank " << rank << ": " << message << " (stopping every rank)" << std::endl;
  MPI_Abort(MPI_COMM_WORLD, exit_code);
  std::abort();  // MPI_Abort does not return
}

}  // namespace portasolve::distributed
