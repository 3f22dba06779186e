#pragma once
// Register-blocked kernels (smoothing's register bands, Poisson's Jacobi
// bands) run a band of columns on one warp and pass neighbouring columns
// between its lanes.
#include <type_traits>

#include "core/spaces.hpp"

namespace portasolve {

// Lanes of a band: a warp on CUDA, a wavefront on HIP (Kokkos 3.4's 64),
// one thread on hosts.
#if defined(KOKKOS_ENABLE_CUDA)
constexpr int band_lanes = std::is_same<ExecSpace, Kokkos::Cuda>::value ? 32 : 1;
#elif defined(KOKKOS_ENABLE_HIP)
constexpr int band_lanes = std::is_same<ExecSpace, Kokkos::Experimental::HIP>::value ? 64 : 1;
#else
constexpr int band_lanes = 1;
#endif

// The value `value` holds in lane - 1 (from_lane_below) or lane + 1
// (from_lane_above) of the band; the end lanes get their own value back, as a
// one-lane band's only lane does.
template <class T>
KOKKOS_INLINE_FUNCTION T from_lane_below(const T& value) {
#if defined(__CUDA_ARCH__)
  return Kokkos::shfl_up(value, 1, band_lanes);
#elif defined(__HIP_DEVICE_COMPILE__)
  return Kokkos::Experimental::shfl_up(value, 1, band_lanes);
#else
  return value;
#endif
}
template <class T>
KOKKOS_INLINE_FUNCTION T from_lane_above(const T& value) {
#if defined(__CUDA_ARCH__)
  return Kokkos::shfl_down(value, 1, band_lanes);
#elif defined(__HIP_DEVICE_COMPILE__)
  return Kokkos::Experimental::shfl_down(value, 1, band_lanes);
#else
  return value;
#endif
}

}  // namespace portasolve
