#pragma once
// The rank count of MPI_COMM_WORLD, for the tests that run under mpirun.
#include <mpi.h>

namespace portasolve::distributed::testing {

inline int world_size() {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

}  // namespace portasolve::distributed::testing
