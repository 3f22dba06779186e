#include "drivers/collective_output.hpp"

#if PORTASOLVE_HAVE_PARALLEL_HDF5
#include "distributed/mpi_session.hpp"
#endif

namespace portasolve::drivers {

bool writes_collectively(const RunContext& context) {
#if PORTASOLVE_HAVE_PARALLEL_HDF5
  return context.ranks.size > 1;
#else
  (void)context;
  return false;
#endif
}

void record_write_mode(const RunContext& context, h5::Group& output) {
  if (context.ranks.size <= 1) return;
#if PORTASOLVE_HAVE_PARALLEL_HDF5
  output.set_attribute("write", h5::collective_write_name());
#else
  output.set_attribute("write", "gathered to rank 0, which writes");
#endif
}

#if PORTASOLVE_HAVE_PARALLEL_HDF5
void write_blocks_and_close(RunContext& context, const std::vector<h5::BlockPart>& parts) {
  context.result.close_file();
  // Rank 0's temporary name (the others' result files are discarded).
  const std::string path = distributed::all_gather_strings(context.result.temporary_path()).front();
  h5::write_blocks_collectively(MPI_COMM_WORLD, path, parts);
}
#endif

}  // namespace portasolve::drivers
