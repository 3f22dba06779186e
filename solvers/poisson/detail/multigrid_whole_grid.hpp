#pragma once
// Multigrid's levels for the whole-grid boundaries (options.hpp: neumann and
// periodic; whole_grid.hpp): every point of a level is an unknown.
//
// Each direction keeps points of even index, 0, 2, 4, .. (vertex-centred
// coarsening, one direction at a time as multigrid_levels.hpp does). A
// neumann line keeps its last point when it is odd, the one before when it
// is even, so a level's last point may lie short of the zero-flux edge. An
// odd periodic line keeps 0, 2, .., N-3 and drops its last point, so the
// link across the wrap never shrinks (keeping both N-1 and 0, one fine
// spacing apart, would halve it on every level and leave two points nearly
// on top of each other, which smooths and coarsens badly). Every level
// therefore carries, per direction, a `gap` in its own spacings: neumann,
// the distance from the last point to the edge (0 on the finest level,
// where the edge point is the mirror's centre); periodic, the length of the
// link from the last point back to point 0 (1 on the finest level, then
// between 1 and 2).
//
// The operator is the finite-volume form of the 5-point Laplacian on such a
// line: point i exchanges coupling / distance (u_neighbour - u_i) with each
// neighbour, divided by its control volume V_i (half of each adjacent link,
// a neumann edge's gap in full). On the finest level that is exactly the
// mirrored (neumann) or wrapped (periodic) 5-point stencil. V-weighted sums
// of L u vanish (flux conservation), so restriction R = V_c^-1 P^T V_f
// keeps a compatible right-hand side compatible (V_c in the fine level's units: a coarse spacing is two fine
// ones); P is linear interpolation (constant beyond a neumann edge's
// last coarse point).
#include <cstdint>
#include <vector>

#include "core/spaces.hpp"
#include "solvers/poisson/detail/multigrid_levels.hpp"

namespace portasolve::poisson::detail::multigrid {

// One direction of a whole-grid level.
struct WholeAxis {
  int points;
  double coupling;  // 1 / spacing^2, in the finest level's units
  bool periodic;
  double gap;  // in this level's spacings (above)
};

inline WholeAxis finest_axis(std::int64_t points, bool periodic) {
  return WholeAxis{int(points), 1, periodic, periodic ? 1.0 : 0.0};
}

inline WholeAxis coarser(const WholeAxis& fine, bool coarsen) {
  if (!coarsen) return fine;
  const bool even = fine.points % 2 == 0;
  if (fine.periodic && !even)  // the last point dropped: its link and the wrap join
    return WholeAxis{(fine.points - 1) / 2, fine.coupling / 4, true, (2 + fine.gap) / 2};
  return WholeAxis{even ? fine.points / 2 : (fine.points + 1) / 2, fine.coupling / 4, fine.periodic,
                   (even ? 1 + fine.gap : fine.gap) / 2};
}

// Whether an odd periodic line joins two points of equal index parity across
// its wrap: its last point then needs a colour of its own in Gauss-Seidel.
inline bool has_seam(const WholeAxis& axis) { return axis.periodic && axis.points % 2 == 1 && axis.points > 1; }

// Per point of one direction: the neighbour below and above it along that
// direction with weight coupling / (distance V); a missing neighbour (past
// a neumann edge, or a line of one point) has weight 0 and the point itself
// as index.
template <class T>
struct AxisStencil {
  Kokkos::View<const int*, Kokkos::LayoutRight, MemSpace> lower, upper;
  Kokkos::View<const T*, Kokkos::LayoutRight, MemSpace> lower_weight, upper_weight;
};

// L u on a whole-grid level: the two directions' stencils added. Points
// off the grid's edges have unit links and volumes, so their weights are
// the couplings cy, cx themselves (the tables hold the same values): they
// skip the tables, which only the edge rows and columns need.
template <class T>
struct WholeGridOperator {
  AxisStencil<T> along_rows, along_cols;  // along i, along j
  int rows, cols;
  T cy, cx;  // the couplings along i and j

  KOKKOS_INLINE_FUNCTION bool inside(const int i, const int j) const {
    return i > 0 && i + 1 < rows && j > 0 && j + 1 < cols;
  }
  KOKKOS_INLINE_FUNCTION T diagonal(const int i, const int j) const {
    if (inside(i, j)) return cy + cy + cx + cx;
    return along_rows.lower_weight(i) + along_rows.upper_weight(i) + along_cols.lower_weight(j) +
           along_cols.upper_weight(j);
  }
  // The neighbours' weighted sum, formed in Sum.
  template <class Sum, class Grid>
  KOKKOS_INLINE_FUNCTION Sum around(const Grid& u, const int i, const int j) const {
    if (inside(i, j))
      return Sum(cy) * Sum(u(i - 1, j)) + Sum(cy) * Sum(u(i + 1, j)) + Sum(cx) * Sum(u(i, j - 1)) +
             Sum(cx) * Sum(u(i, j + 1));
    return Sum(along_rows.lower_weight(i)) * Sum(u(along_rows.lower(i), j)) +
           Sum(along_rows.upper_weight(i)) * Sum(u(along_rows.upper(i), j)) +
           Sum(along_cols.lower_weight(j)) * Sum(u(i, along_cols.lower(j))) +
           Sum(along_cols.upper_weight(j)) * Sum(u(i, along_cols.upper(j)));
  }
  // (L u)(i, j), formed in Sum.
  template <class Sum, class Grid>
  KOKKOS_INLINE_FUNCTION Sum apply(const Grid& u, const int i, const int j) const {
    return around<Sum>(u, i, j) - Sum(diagonal(i, j)) * Sum(u(i, j));
  }
};

// How one direction of a whole-grid level maps to the next coarser one:
// per fine point its coarse sources (interpolation), per coarse point its
// fine gathers (restriction), with weights; the identity where the
// direction is not coarsened.
// Away from a line's ends the weights are linear interpolation's and full
// weighting's (the tables hold the same values): those points skip the
// tables.
template <class T>
struct WholeGridTransfer {
  // Fine points a coarse point gathers: 2c - 1, 2c, 2c + 1, and for point 0
  // of an odd periodic line both points of the segment its wrap link spans.
  static constexpr int most_gathers = 4;
  bool coarsened = false;
  int fine_points = 0, coarse_points = 0;
  Kokkos::View<const int* [2], Kokkos::LayoutRight, MemSpace> source_index;
  Kokkos::View<const T* [2], Kokkos::LayoutRight, MemSpace> source_weight;
  Kokkos::View<const int*, Kokkos::LayoutRight, MemSpace> source_count;
  Kokkos::View<const int* [most_gathers], Kokkos::LayoutRight, MemSpace> gather_index;
  Kokkos::View<const T* [most_gathers], Kokkos::LayoutRight, MemSpace> gather_weight;
  Kokkos::View<const int*, Kokkos::LayoutRight, MemSpace> gather_count;

  KOKKOS_INLINE_FUNCTION int sources(const int i, int (&index)[2], T (&weight)[2]) const {
    if (!coarsened) {
      index[0] = i;
      weight[0] = T(1);
      return 1;
    }
    if (i + 3 < fine_points) {
      if (i % 2 == 0) {
        index[0] = i / 2;
        weight[0] = T(1);
        return 1;
      }
      index[0] = (i - 1) / 2;
      index[1] = (i + 1) / 2;
      weight[0] = weight[1] = T(0.5);
      return 2;
    }
    const int count = source_count(i);
    for (int k = 0; k < count; ++k) {
      index[k] = source_index(i, k);
      weight[k] = source_weight(i, k);
    }
    return count;
  }
  KOKKOS_INLINE_FUNCTION int gathers(const int c, int (&index)[most_gathers], T (&weight)[most_gathers]) const {
    if (!coarsened) {
      index[0] = c;
      weight[0] = T(1);
      return 1;
    }
    if (c >= 1 && c + 2 < coarse_points && 2 * c + 2 < fine_points) {
      index[0] = 2 * c - 1;
      index[1] = 2 * c;
      index[2] = 2 * c + 1;
      weight[0] = weight[2] = T(0.25);
      weight[1] = T(0.5);
      return 3;
    }
    const int count = gather_count(c);
    for (int k = 0; k < count; ++k) {
      index[k] = gather_index(c, k);
      weight[k] = gather_weight(c, k);
    }
    return count;
  }
};

// Built on the host once per solve and copied to the device on exec (which
// they fence).
template <class T>
AxisStencil<T> axis_stencil(const ExecSpace& exec, const WholeAxis& axis);
template <class T>
WholeGridTransfer<T> whole_grid_transfer(const ExecSpace& exec, const WholeAxis& fine, bool coarsen);

// The control volumes of a direction's points, in its own spacings.
std::vector<double> axis_volumes(const WholeAxis& axis);

// The axes of every level, finest first (multigrid_levels.hpp's
// coarsened_axes: the weaker-coupled direction waits).
std::vector<std::pair<WholeAxis, WholeAxis>> whole_grid_level_axes(std::int64_t rows, std::int64_t cols, bool periodic,
                                                                   int coarsest_size);

}  // namespace portasolve::poisson::detail::multigrid
