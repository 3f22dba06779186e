// HIP builds: Debian packages no hipFFT or rocFFT, so the library of this
// build is the portable kernels (portable_engine.cpp).
#include "fft/detail/engine.hpp"

namespace portasolve::fft::detail {

const Library& library() {
  static const Library engines = {"portable", &make_portable_engine<float>, &make_portable_engine<double>};
  return engines;
}

}  // namespace portasolve::fft::detail
