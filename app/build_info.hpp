#pragma once
// Versions of what portasolve was built with, for `portasolve info` and for
// result files that say how they were produced.
#include <string>

namespace portasolve {

std::string hdf5_version_string();  // the HDF5 library linked at run time

}  // namespace portasolve
