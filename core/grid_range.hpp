#pragma once
// How kernels walk a rectangle of a 2-D grid on this backend. GPUs: one flat
// 32-bit range, (i, j) recovered by one division, which runs at the memory
// bandwidth where Kokkos 3.4's 2-D MDRange reached a third of it. Hosts: a
// range of rows, each thread running along its rows' columns, which the
// compiler vectorises (the division costs more than a stencil there). The
// rectangle is limited to 2^31 points.
#include <array>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "core/spaces.hpp"

namespace portasolve {

constexpr bool host_execution = std::is_same<ExecSpace, HostExecSpace>::value;

// Tiles, bands or strips of b needed to cover a extent (a, b > 0).
inline int ceil_div(std::int64_t a, std::int64_t b) { return static_cast<int>((a + b - 1) / b); }

struct GridRectangle {
  int first_row, first_col;
  int rows, cols;  // extents of the rectangle
};

// The points of a block 1..rows x 1..cols (rows, cols > 2) next to its edges,
// as four rectangles (the first and last rows, then the first and last
// columns between them), and the points inside them: what a rank updates
// before and while its halo exchange travels.
inline std::array<GridRectangle, 4> frame_of(int rows, int cols) {
  return {GridRectangle{1, 1, 1, cols}, GridRectangle{rows, 1, 1, cols}, GridRectangle{2, 1, rows - 2, 1},
          GridRectangle{2, cols, rows - 2, 1}};
}
inline GridRectangle inside_frame_of(int rows, int cols) { return GridRectangle{2, 2, rows - 2, cols - 2}; }

template <class Functor>
struct RectanglePoints {
  Functor functor;
  GridRectangle rectangle;
  KOKKOS_INLINE_FUNCTION void operator()(const int k) const {
    if constexpr (host_execution) {
      const int i = rectangle.first_row + k;
      for (int j = rectangle.first_col; j < rectangle.first_col + rectangle.cols; ++j) functor(i, j);
    } else {
      functor(rectangle.first_row + k / rectangle.cols, rectangle.first_col + k % rectangle.cols);
    }
  }
};

// Tag: void calls functor(i, j, sum), else functor(Tag{}, i, j, sum).
template <class Functor, class Sum, class Tag>
struct RectangleSum {
  using value_type = Sum;
  Functor functor;
  GridRectangle rectangle;
  KOKKOS_INLINE_FUNCTION void add(const int i, const int j, Sum& sum) const {
    if constexpr (std::is_void<Tag>::value)
      functor(i, j, sum);
    else
      functor(Tag{}, i, j, sum);
  }
  KOKKOS_INLINE_FUNCTION void operator()(const int k, Sum& sum) const {
    if constexpr (host_execution) {
      const int i = rectangle.first_row + k;
      for (int j = rectangle.first_col; j < rectangle.first_col + rectangle.cols; ++j) add(i, j, sum);
    } else {
      add(rectangle.first_row + k / rectangle.cols, rectangle.first_col + k % rectangle.cols, sum);
    }
  }
};

// Each walk takes an optional execution space instance first (solvers'
// exec overloads): its policy is built with the instance, so the work is
// ordered on the caller's stream; without one it runs on the default
// instance. The functors are the same either way, so are the kernels and bits.
inline Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<int>> rectangle_range(const ExecSpace& exec,
                                                                              const GridRectangle& rectangle) {
  const std::int64_t count =
      host_execution ? rectangle.rows : static_cast<std::int64_t>(rectangle.rows) * rectangle.cols;
  return Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<int>>(exec, 0, static_cast<int>(count));
}

inline Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<int>> rectangle_range(const GridRectangle& rectangle) {
  return rectangle_range(ExecSpace(), rectangle);
}

// functor(i, j) for every point of the rectangle, on exec.
template <class Functor>
void for_rectangle(const ExecSpace& exec, const char* name, const GridRectangle& rectangle, const Functor& functor) {
  if (rectangle.rows <= 0 || rectangle.cols <= 0) return;
  Kokkos::parallel_for(name, rectangle_range(exec, rectangle), RectanglePoints<Functor>{functor, rectangle});
}

template <class Functor>
void for_rectangle(const char* name, const GridRectangle& rectangle, const Functor& functor) {
  for_rectangle(ExecSpace(), name, rectangle, functor);
}

// Sums functor's contributions into `result` on exec: a Sum& (exec is then
// fenced, as Kokkos does for a host result) or a rank-0 device View (no fence).
template <class Sum, class Tag = void, class Functor, class Result>
void reduce_rectangle(const ExecSpace& exec, const char* name, const GridRectangle& rectangle, const Functor& functor,
                      Result&& result) {
  Kokkos::parallel_reduce(name, rectangle_range(exec, rectangle), RectangleSum<Functor, Sum, Tag>{functor, rectangle},
                          result);
}

template <class Sum, class Tag = void, class Functor, class Result>
void reduce_rectangle(const char* name, const GridRectangle& rectangle, const Functor& functor, Result&& result) {
  reduce_rectangle<Sum, Tag>(ExecSpace(), name, rectangle, functor, std::forward<Result>(result));
}

template <class Destination, class Source>
struct GridCopy {
  Destination destination;
  Source source;
  KOKKOS_INLINE_FUNCTION void operator()(const int i, const int j) const { destination(i, j) = source(i, j); }
};

// destination = source for two 2-D Views of equal extents (subviews of
// larger grids, say), walked as above: Kokkos 3.4's deep_copy walks strided
// Views with its 2-D MDRange.
template <class Destination, class Source>
void copy_grid(const char* name, const Destination& destination, const Source& source) {
  if (destination.extent(0) != source.extent(0) || destination.extent(1) != source.extent(1))
    throw std::invalid_argument(std::string(name) + ": copy_grid between " + std::to_string(source.extent(0)) + "x" +
                                std::to_string(source.extent(1)) + " and " + std::to_string(destination.extent(0)) +
                                "x" + std::to_string(destination.extent(1)) + " Views");
  // The flat walk counts points in an int: past that, Kokkos' own copy.
  if (static_cast<double>(source.extent(0)) * static_cast<double>(source.extent(1)) >
      static_cast<double>(std::numeric_limits<int>::max())) {
    Kokkos::deep_copy(destination, source);
    return;
  }
  for_rectangle(name, GridRectangle{0, 0, static_cast<int>(source.extent(0)), static_cast<int>(source.extent(1))},
                GridCopy<Destination, Source>{destination, source});
}

}  // namespace portasolve
