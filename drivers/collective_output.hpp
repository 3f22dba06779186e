#pragma once
// Result files over MPI ranks. With parallel HDF5 the large datasets (images,
// solutions) are written by every rank at once, each its own block, into the
// file rank 0 built; without it rank 0 gathers them and writes them alone.
// The file layout is the same either way and the same as one rank's.
#include <string>
#include <vector>

#include "drivers/experiment.hpp"
#if PORTASOLVE_HAVE_PARALLEL_HDF5
#include "app/parallel_hdf5.hpp"
#endif

namespace portasolve::drivers {

// Whether this run's ranks write their blocks themselves: a build with
// parallel HDF5 and more than one rank.
bool writes_collectively(const RunContext& context);

// The /output attribute `write` says which way ran.
void record_write_mode(const RunContext& context, h5::Group& output);

#if PORTASOLVE_HAVE_PARALLEL_HDF5
// The last use of the result file in a driver, on every rank: rank 0 closes
// the file it built (datasets declared with create_unwritten_dataset), then
// every rank writes its `parts` into it through MPI-IO. The file takes
// nothing more after this; the program moves it into place once every rank
// has returned.
void write_blocks_and_close(RunContext& context, const std::vector<h5::BlockPart>& parts);
#endif

}  // namespace portasolve::drivers
