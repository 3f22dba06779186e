#include "solvers/lombscargle/detail/multiterm.hpp"

#include <type_traits>
#include <utility>

namespace portasolve::lombscargle::detail {

namespace {

template <class T, int NTerms, bool FitMean>
void launch_fixed(const ExecSpace& exec, const DeviceData<T>& data, std::int64_t series_count) {
  const auto frequencies = static_cast<std::int64_t>(data.frequency.extent(0));
  Kokkos::parallel_for(
      "lombscargle_multiterm",
      Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, series_count * frequencies),
      MultitermKernel<T, NTerms, FitMean>{data, frequencies});
}

// nterms and fit_mean (runtime) to the kernel's template arguments.
template <class T, int... NTerms>
void dispatch(const ExecSpace& exec, const DeviceData<T>& data, int nterms, bool fit_mean, std::int64_t series_count,
              std::integer_sequence<int, NTerms...>) {
  const auto one = [&](auto fixed) {
    constexpr int n = decltype(fixed)::value;
    if (nterms != n) return;
    if (fit_mean)
      launch_fixed<T, n, true>(exec, data, series_count);
    else
      launch_fixed<T, n, false>(exec, data, series_count);
  };
  (one(std::integral_constant<int, NTerms + 1>{}), ...);
}

}  // namespace

template <class T>
void launch_multiterm(const ExecSpace& exec, const DeviceData<T>& data, int nterms, bool fit_mean,
                      std::int64_t series_count) {
  dispatch(exec, data, nterms, fit_mean, series_count, std::make_integer_sequence<int, max_nterms>{});
}

template void launch_multiterm(const ExecSpace&, const DeviceData<float>&, int, bool, std::int64_t);
template void launch_multiterm(const ExecSpace&, const DeviceData<double>&, int, bool, std::int64_t);

}  // namespace portasolve::lombscargle::detail
