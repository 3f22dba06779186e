#pragma once
// Parallel HDF5 (built when PORTASOLVE_HAVE_PARALLEL_HDF5): the ranks of a
// communicator write their blocks of datasets in one file at once, through
// MPI-IO with collective transfers. The file and its datasets exist already
// (rank 0 built it, datasets declared by Group::create_unwritten_dataset,
// and closed it); each rank writes a hyperslab, so no rank ever holds more
// than its own block and no data passes through rank 0.
#include <mpi.h>

#include <string>
#include <vector>

#include "app/hdf5.hpp"

namespace portasolve::h5 {

// One rank's block of one dataset: `count` values starting at `start` (one
// entry per dimension), row-major in `data`. A count with a zero extent: this
// rank writes nothing to that dataset but still takes part.
struct BlockPart {
  std::string dataset;  // absolute path in the file, e.g. "/output/image"
  hid_t memory_type;    // native_type<T>() of data
  const void* data;
  Dims start, count;
};

template <class T>
BlockPart block_part(std::string dataset, const T* data, Dims start, Dims count) {
  return BlockPart{std::move(dataset), native_type<T>(), data, std::move(start), std::move(count)};
}

// Collective over `comm`: every rank passes its parts of the same datasets in
// the same order. Opens `filename` with the MPI-IO driver, writes every part
// with collective transfers and closes the file. Throws IoError naming the
// file, the dataset and what failed (a block outside the dataset's shape, a
// dataset that is not there, a write MPI-IO refused); a failure on one rank
// leaves the others inside a collective call, so callers end every rank then
// (the program's MPI_Abort on a failure while running).
void write_blocks_collectively(MPI_Comm comm, const std::string& filename, const std::vector<BlockPart>& parts);

// What a result file says of datasets written this way.
inline const char* collective_write_name() { return "collective MPI-IO, each rank its block (parallel HDF5)"; }

}  // namespace portasolve::h5
