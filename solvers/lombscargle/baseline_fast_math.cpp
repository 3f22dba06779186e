// The direct kernel compiled with CUDA's --use_fast_math (see CMakeLists.txt):
// its own translation unit and kernel type, so nothing else is built with it.
#include <string>

#include "core/errors.hpp"
#include "solvers/lombscargle/state.hpp"

namespace portasolve::lombscargle {

template <class T>
void Periodogram<T>::compute_direct_fast_math() {
  if (options_.nterms > 1)
    throw OptionError("nterms", "the fast-math direct baseline computes nterms = 1 only (nterms is " +
                                    std::to_string(options_.nterms) + ")");
#if defined(KOKKOS_ENABLE_CUDA)
  const auto m = static_cast<std::int64_t>(grid_.size());
  const SumsKind kind = state_->data.sums;  // the batch's sums, as compute() launches them
  if (!kind.weighted)
    launch_direct<T, false, false, 1>(state_->exec, state_->data, m, series_count_);
  else if (kind.fit_mean)
    launch_direct<T, true, true, 1>(state_->exec, state_->data, m, series_count_);
  else
    launch_direct<T, true, false, 1>(state_->exec, state_->data, m, series_count_);
#else
  throw InputError("the fast-math direct baseline exists only in CUDA builds");
#endif
}

template void Periodogram<float>::compute_direct_fast_math();
template void Periodogram<double>::compute_direct_fast_math();

}  // namespace portasolve::lombscargle
