#include "app/parallel_hdf5.hpp"

#include "core/errors.hpp"

namespace portasolve::h5 {

namespace {

// The dataset's file space with `part`'s block selected (none for an empty
// block); IoError when the block does not lie inside the dataset.
Handle selected_space(hid_t dataset, const BlockPart& part, const std::string& where) {
  Handle space(H5Dget_space(dataset), H5Sclose);
  if (!space.valid()) throw IoError("cannot write " + where + ": no dataspace");
  const int rank = H5Sget_simple_extent_ndims(space.get());
  if (rank < 0 || static_cast<std::size_t>(rank) != part.start.size() || part.count.size() != part.start.size())
    throw IoError("cannot write " + where + ": the block has " + std::to_string(part.start.size()) +
                  " dimensions, the dataset " + std::to_string(rank));
  Dims dims(part.start.size());
  H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
  bool empty = false;
  for (std::size_t d = 0; d < dims.size(); ++d) {
    if (part.start[d] > dims[d] || part.count[d] > dims[d] - part.start[d])
      throw IoError("cannot write " + where + ": the block [" + std::to_string(part.start[d]) + ", " +
                    std::to_string(part.start[d] + part.count[d]) + ") of dimension " + std::to_string(d) +
                    " lies outside its extent " + std::to_string(dims[d]));
    empty = empty || part.count[d] == 0;
  }
  const herr_t selected =
      empty ? H5Sselect_none(space.get())
            : H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, part.start.data(), nullptr, part.count.data(), nullptr);
  if (selected < 0) throw IoError("cannot write " + where + ": hyperslab refused");
  return space;
}

}  // namespace

void write_blocks_collectively(MPI_Comm comm, const std::string& filename, const std::vector<BlockPart>& parts) {
  const LibraryLock lock;
  silence_library_errors();
  Handle access(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
  if (!access.valid() || H5Pset_fapl_mpio(access.get(), comm, MPI_INFO_NULL) < 0 ||
      H5Pset_fclose_degree(access.get(), H5F_CLOSE_STRONG) < 0)
    throw IoError("cannot set up MPI-IO to write '" + filename + "'");
  Handle file(H5Fopen(filename.c_str(), H5F_ACC_RDWR, access.get()), H5Fclose);
  if (!file.valid()) throw IoError("cannot open '" + filename + "' with MPI-IO to write the ranks' blocks");
  Handle transfer(H5Pcreate(H5P_DATASET_XFER), H5Pclose);
  if (!transfer.valid() || H5Pset_dxpl_mpio(transfer.get(), H5FD_MPIO_COLLECTIVE) < 0)
    throw IoError("cannot set up collective transfers to write '" + filename + "'");
  for (const BlockPart& part : parts) {
    const std::string where = "HDF5 dataset '" + filename + ":" + part.dataset + "'";
    Handle dataset(H5Dopen2(file.get(), part.dataset.c_str(), H5P_DEFAULT), H5Dclose);
    if (!dataset.valid()) throw IoError("cannot write " + where + ": no such dataset");
    const Handle file_space = selected_space(dataset.get(), part, where);
    const Handle memory_space(H5Screate_simple(static_cast<int>(part.count.size()), part.count.data(), nullptr),
                              H5Sclose);
    if (!memory_space.valid() ||
        (H5Sget_select_npoints(file_space.get()) == 0 && H5Sselect_none(memory_space.get()) < 0))
      throw IoError("cannot write " + where + ": no memory dataspace");
    if (H5Dwrite(dataset.get(), part.memory_type, memory_space.get(), file_space.get(), transfer.get(), part.data) < 0)
      throw IoError("cannot write " + where + ": MPI-IO refused the collective write");
  }
  if (H5Fclose(file.release()) < 0) throw IoError("cannot write '" + filename + "': closing it after MPI-IO failed");
}

}  // namespace portasolve::h5
