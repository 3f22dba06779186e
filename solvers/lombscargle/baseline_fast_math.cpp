// The direct kernel compiled with CUDA's --use_fast_math (see CMakeLists.txt):
// its own translation unit and kernel type, so nothing else is built with it.
#include "solvers/lombscargle/baseline_fast_math.hpp"

#include <string>

#include "core/errors.hpp"
#include "solvers/lombscargle/detail/state.hpp"

namespace portasolve::lombscargle::baselines {

using namespace lombscargle::detail;

template <class T>
void compute_direct_fast_math(Periodogram<T>& p) {
  if (p.options_.nterms > 1)
    throw OptionError("nterms", "the fast-math direct baseline computes nterms = 1 only (nterms is " +
                                    std::to_string(p.options_.nterms) + ")");
#if defined(KOKKOS_ENABLE_CUDA)
  const auto m = static_cast<std::int64_t>(p.grid_.size());
  const SumsKind kind = p.state_->data.sums;  // the batch's sums, as compute() launches them
  if (!kind.weighted)
    launch_direct<T, false, false, 1>(p.state_->exec, p.state_->data, m, p.series_count_);
  else if (kind.fit_mean)
    launch_direct<T, true, true, 1>(p.state_->exec, p.state_->data, m, p.series_count_);
  else
    launch_direct<T, true, false, 1>(p.state_->exec, p.state_->data, m, p.series_count_);
#else
  throw InputError("the fast-math direct baseline exists only in CUDA builds");
#endif
}

template void compute_direct_fast_math<float>(Periodogram<float>&);
template void compute_direct_fast_math<double>(Periodogram<double>&);

}  // namespace portasolve::lombscargle::baselines
