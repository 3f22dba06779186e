#pragma once
// A benchmark baseline, not part of the library's interface (the public
// header include/portasolve/lombscargle.hpp leaves it out): the direct
// kernel compiled with CUDA's fast math (approximate sin/cos), the float
// baseline that hand-tuned GPU codes are compared with.
#include "solvers/lombscargle/periodogram.hpp"

namespace portasolve::lombscargle::baselines {

// The periodogram's power by that kernel, on its instance. CUDA builds only
// (InputError elsewhere); nterms 1 only (OptionError).
template <class T>
void compute_direct_fast_math(Periodogram<T>& periodogram);

}  // namespace portasolve::lombscargle::baselines
