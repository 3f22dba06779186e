#include "app/build_info.hpp"

#include <hdf5.h>

#include <sstream>

namespace portasolve {

std::string hdf5_version_string() {
  unsigned major = 0, minor = 0, release = 0;
  if (H5get_libversion(&major, &minor, &release) < 0) return "unknown";
  std::ostringstream out;
  out << major << '.' << minor << '.' << release;
#if PORTASOLVE_HAVE_PARALLEL_HDF5
  out << " (parallel: MPI ranks write result files collectively)";
#endif
  return out.str();
}

}  // namespace portasolve
