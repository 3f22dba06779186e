#pragma once
// Register-blocked kernels (smoothing's register bands, Poisson's Jacobi
// bands) run a band of columns on one warp and pass neighbouring columns
// between its lanes.
#include <type_traits>

#include "core/kokkos_compat.hpp"
#include "core/spaces.hpp"
#include "core/unroll.hpp"

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
  return kokkos_compat::hip_shfl_up(value, 1, band_lanes);
#else
  return value;
#endif
}
template <class T>
KOKKOS_INLINE_FUNCTION T from_lane_above(const T& value) {
#if defined(__CUDA_ARCH__)
  return Kokkos::shfl_down(value, 1, band_lanes);
#elif defined(__HIP_DEVICE_COMPILE__)
  return kokkos_compat::hip_shfl_down(value, 1, band_lanes);
#else
  return value;
#endif
}

// The value `value` holds in lane `source_lane` of the band (hosts: the
// thread's own).
template <class T>
KOKKOS_INLINE_FUNCTION T from_lane(const T& value, const int source_lane) {
#if defined(__CUDA_ARCH__)
  return Kokkos::shfl(value, source_lane, int(band_lanes));  // (a copy: shfl takes a reference)
#elif defined(__HIP_DEVICE_COMPILE__)
  return kokkos_compat::hip_shfl(value, source_lane, band_lanes);
#else
  (void)source_lane;
  return value;
#endif
}

// How a register-blocked launch cuts a grid: bands of band_cols() columns,
// each a warp of lanes owning `columns` adjacent columns, whose `halo`
// columns at each side go stale (one per pass) and are written by the
// neighbouring bands; strips of strip_rows output rows.
struct BandGeometry {
  int columns = 1;  // per lane
  int halo = 0;     // the most passes or sweeps a launch runs
  int strip_rows = 0;
  int bands = 0, strips = 0;
  KOKKOS_INLINE_FUNCTION int band_cols() const { return band_lanes * columns; }
  KOKKOS_INLINE_FUNCTION int output_cols() const { return band_cols() - 2 * halo; }
};

// Walks a lane of a band down a strip, `levels` (1..Levels) passes or sweeps
// at once: at step t the input row start + t enters, pass p finishes row
// start + t - p, and the last pass's rows from t = 2 levels on (the strip's
// output_rows; the first levels rows of each pass are warm-up, whose windows
// reach above the strip) go to store. Each pass's state stays in the caller's
// registers; pass p+1 takes pass p's new row in the same step.
//   load(Value (&row)[Columns], r), store(const Value (&row)[Columns], r)
//   level(Value (&row)[Columns], p, r): the row of pass p-1 in, pass p's row r out
template <int Columns, int Levels, class Value, class Load, class Level, class Store>
KOKKOS_INLINE_FUNCTION void walk_strip(const int start, const int output_rows, const int levels, const Load& load,
                                       const Level& level, const Store& store) {
  Value next[Columns];
  load(next, start);
  const int steps = output_rows + 2 * levels;
  for (int t = 0; t < steps; ++t) {
    Value v[Columns];
    PORTASOLVE_UNROLL
    for (int c = 0; c < Columns; ++c) v[c] = next[c];
    if (t + 1 < steps) load(next, start + t + 1);  // a step ahead, to hide its latency
    PORTASOLVE_UNROLL
    for (int p = 1; p <= Levels; ++p)
      if (p <= levels) level(v, p, start + t - p);
    if (t >= 2 * levels) store(v, start + t - levels);
  }
}

}  // namespace portasolve
