#pragma once
// The line and the result attributes of a grid solve over MPI ranks: the
// process grid, the halo transport, and the slowest rank's time in halo
// exchanges and in its solver's local arrays (the rank the others wait for).
#if PORTASOLVE_HAVE_MPI
#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "distributed/grid_decomposition.hpp"
#include "distributed/halo_statistics.hpp"
#include "distributed/mpi_session.hpp"
#include "drivers/experiment.hpp"

namespace portasolve::drivers {

// Collective over MPI_COMM_WORLD. `halo` is this rank's (the last solve's).
inline void report_ranks(RunContext& context, const distributed::GridDecomposition& decomposition,
                         const distributed::HaloStatistics& halo) {
  const auto& dims = decomposition.dims();
  auto& output = context.result.output();
  const std::string transport = distributed::halo_transport_name(halo.transport);
  output.set_attribute("ranks", static_cast<std::int64_t>(decomposition.size()));
  output.set_attribute("process_grid", std::to_string(dims[0]) + "x" + std::to_string(dims[1]));
  output.set_attribute("halo_transport", transport);
  double slowest[2] = {halo.seconds, halo.arrays_seconds};
  MPI_Allreduce(MPI_IN_PLACE, slowest, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  output.set_attribute("halo_exchanges", halo.exchanges);  // rank 0's, whole rings (a multigrid level's each)
  output.set_attribute("halo_s", slowest[0]);
  output.set_attribute("local_arrays_s", slowest[1]);
  char line[240];
  std::snprintf(line, sizeof line,
                "ranks: %d (%dx%d blocks), halo exchanges %.3g s, local arrays %.3g s on the slowest rank (%s)\n",
                decomposition.size(), dims[0], dims[1], slowest[0], slowest[1], transport.c_str());
  context.out << line;
}

}  // namespace portasolve::drivers
#endif
