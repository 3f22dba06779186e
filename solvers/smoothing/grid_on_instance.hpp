#pragma once
// core/grid_range.hpp's rectangle walk on a given execution space instance:
// the same range (a flat 32-bit range on GPUs, rows on hosts) and the same
// functor (RectanglePoints), launched with the instance so that the work is
// ordered on the caller's stream. core/grid_range.hpp has no instance
// overload yet; this belongs there (an exec first argument to
// rectangle_range and for_rectangle) and should move when core/ gains one.
// Used by the smoothing and Lorenz 2005 solvers.
#include <cstdint>

#include "core/grid_range.hpp"
#include "core/spaces.hpp"

namespace portasolve::smoothing {

inline Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<int>> rectangle_range_on(const ExecSpace& exec,
                                                                                 const GridRectangle& rectangle) {
  const std::int64_t count =
      host_execution ? rectangle.rows : static_cast<std::int64_t>(rectangle.rows) * rectangle.cols;
  return Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<int>>(exec, 0, static_cast<int>(count));
}

// functor(i, j) for every point of the rectangle, on exec.
template <class Functor>
void for_rectangle_on(const ExecSpace& exec, const char* name, const GridRectangle& rectangle, const Functor& functor) {
  if (rectangle.rows <= 0 || rectangle.cols <= 0) return;
  Kokkos::parallel_for(name, rectangle_range_on(exec, rectangle), RectanglePoints<Functor>{functor, rectangle});
}

}  // namespace portasolve::smoothing
