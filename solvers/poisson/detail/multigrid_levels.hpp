#pragma once
// Multigrid's grid hierarchy: each level's operator and how it maps onto the
// next coarser level, one direction at a time.
//
// Vertex-centred coarsening in each direction on its own: the n interior
// points 1..n of a fine line keep the coarse points at fine positions 2, 4,
// ..., 2 floor(n/2). Odd n puts the coarse boundary on the fine one; even n
// leaves the last coarse point next to the fine boundary, so that level's
// boundary lies closer than one spacing. Every level therefore carries, per
// direction, the distance `end_distance` (in its own spacings) from its last
// interior point to the boundary after it; the first point is always one
// spacing from its boundary. The operator at the last point uses that
// distance, which for an even line is what the Galerkin product R L P gives
// in one dimension, so even sizes converge as well as odd ones.
//
// A direction is coarsened while it has two or more points and its coupling
// is not much weaker than the other's (coupling = 1 / spacing^2); thin grids
// are then coarsened along their long side only (semi-coarsening) until the
// coupling evens out.
#include <cstdint>
#include <vector>

#include "core/spaces.hpp"
#include "solvers/poisson/options.hpp"

namespace portasolve::poisson::detail::multigrid {

// One direction of a level: interior points, coupling (1 / spacing^2 in the
// fine grid's units) and the distance from the last point to the boundary.
struct Axis {
  int points;
  double coupling;
  double end_distance;
};

// A direction coarsens when its coupling is at least this fraction of the other's.
constexpr double strong_coupling_ratio = 0.5;

inline Axis coarser(const Axis& fine, bool coarsen) {
  if (!coarsen) return fine;
  const bool even = fine.points % 2 == 0;
  // Spacings double: the coupling falls by 4 and the end distance halves.
  return Axis{fine.points / 2, fine.coupling / 4, (even ? fine.end_distance : 1 + fine.end_distance) / 2};
}

// The operator L u = cy (u up + u down) + cx (u left + u right) - diag u on
// one level's interior 1..rows x 1..cols; diag is 2 cy + 2 cx except on the
// last row or column, whose boundary lies end_distance away. Over MPI ranks
// a rank's block indexes its own points from 1: the shifts turn them into
// the level's (zero on one rank).
template <class T>
struct LevelOperator {
  T cy, cx;                          // coupling along rows (i) and columns (j)
  T centre;                          // 2 cy + 2 cx
  T row_end, col_end;                // added to the diagonal on row `rows`, column `cols`
  int rows, cols;                    // the level's interior
  int row_shift = 0, col_shift = 0;  // level index = local index + shift

  // 1 / diagonal(i, j), rounded once from it (set_inverses): inside, on the
  // last row, in the last column, at the last point. Scalars, not an array:
  // an indexed array went to local memory in the GPUs' one-team tail kernel.
  T inverse_inside, inverse_last_row, inverse_last_col, inverse_last_point;

  KOKKOS_INLINE_FUNCTION T diagonal(const int i, const int j) const {
    T d = centre;
    if (i + row_shift == rows) d += row_end;
    if (j + col_shift == cols) d += col_end;
    return d;
  }
  // Gauss-Seidel multiplies by it: a division per point cost about half of a
  // host red-black sweep (and is a long instruction sequence in FP64 on GPUs).
  KOKKOS_INLINE_FUNCTION T inverse_diagonal(const int i, const int j) const {
    const bool last_row = i + row_shift == rows, last_col = j + col_shift == cols;
    return last_row ? (last_col ? inverse_last_point : inverse_last_row)
                    : (last_col ? inverse_last_col : inverse_inside);
  }
  void set_inverses() {
    inverse_inside = T(1) / centre;
    inverse_last_row = T(1) / (centre + row_end);
    inverse_last_col = T(1) / (centre + col_end);
    inverse_last_point = T(1) / (centre + row_end + col_end);
  }
  // Red-black colour of local point (i, j): the parity of its level indices.
  KOKKOS_INLINE_FUNCTION int parity(const int i, const int j) const { return (i + j + row_shift + col_shift) & 1; }
  // (L u)(i, j), formed in Sum.
  template <class Sum, class Grid>
  KOKKOS_INLINE_FUNCTION Sum apply(const Grid& u, const int i, const int j) const {
    return Sum(cy) * (Sum(u(i - 1, j)) + Sum(u(i + 1, j))) + Sum(cx) * (Sum(u(i, j - 1)) + Sum(u(i, j + 1))) -
           Sum(diagonal(i, j)) * Sum(u(i, j));
  }
};

// The last point's diagonal term for a boundary d spacings away: the flux
// (0 - u) / d in place of (0 - u), i.e. coupling (1 + 1/d) instead of 2.
template <class T>
LevelOperator<T> level_operator(const Axis& row_axis, const Axis& col_axis) {
  LevelOperator<T> op;
  op.cy = static_cast<T>(row_axis.coupling);
  op.cx = static_cast<T>(col_axis.coupling);
  op.centre = static_cast<T>(2 * row_axis.coupling + 2 * col_axis.coupling);
  op.row_end = static_cast<T>(row_axis.coupling * (1 / row_axis.end_distance - 1));
  op.col_end = static_cast<T>(col_axis.coupling * (1 / col_axis.end_distance - 1));
  op.rows = row_axis.points;
  op.cols = col_axis.points;
  op.set_inverses();
  return op;
}

// How one direction of a fine level maps to the next coarser one. Coarsened:
// fine point i takes coarse point i/2 (even i) or the mean of (i-1)/2 and
// (i+1)/2 (odd i), the coarse ring being zero; the last fine point of an odd
// line sits between the last coarse point and the boundary, end_distance
// fine spacings beyond it, and takes the linear weight end_weight. Not
// coarsened: the identity.
template <class T>
struct Transfer {
  static constexpr int most_gathers = 3;  // fine points a coarse point gathers
  bool coarsened;
  int fine_points;
  T end_weight;  // d / (1 + d) for the odd line's last point

  // The coarse points fine point i interpolates from, with their weights.
  KOKKOS_INLINE_FUNCTION int sources(const int i, int (&index)[2], T (&weight)[2]) const {
    if (!coarsened) {
      index[0] = i;
      weight[0] = T(1);
      return 1;
    }
    if (i % 2 == 0) {
      index[0] = i / 2;
      weight[0] = T(1);
      return 1;
    }
    index[0] = (i - 1) / 2;
    index[1] = (i + 1) / 2;  // the coarse ring (zero) after an odd line's last point
    weight[0] = i == fine_points ? end_weight : T(0.5);
    weight[1] = T(0.5);
    return 2;
  }

  // Restriction, P's transpose halved in a coarsened direction: the fine
  // points coarse point c gathers from, with their weights (full weighting
  // inside, the end weight's half at an odd line's end).
  KOKKOS_INLINE_FUNCTION int gathers(const int c, int (&index)[3], T (&weight)[3]) const {
    if (!coarsened) {
      index[0] = c;
      weight[0] = T(1);
      return 1;
    }
    index[0] = 2 * c - 1;
    weight[0] = T(0.25);
    index[1] = 2 * c;
    weight[1] = T(0.5);
    if (2 * c + 1 > fine_points) return 2;  // an even line's last coarse point: the boundary follows
    index[2] = 2 * c + 1;
    weight[2] = 2 * c + 1 == fine_points ? T(0.5) * end_weight : T(0.25);
    return 3;
  }

  // Whether gathers(c)'s a-th fine point belongs to coarse point c when the
  // fine points are shared out among the coarse ones, each to exactly one
  // (a residual norm formed by the restriction): the first two of each
  // coarse point's gathers, the third at an odd line's end only.
  KOKKOS_INLINE_FUNCTION bool owns(const int c, const int a) const {
    return !coarsened || a < 2 || 2 * c + 1 == fine_points;
  }
};

template <class T>
Transfer<T> transfer(const Axis& fine, bool coarsen) {
  return Transfer<T>{coarsen, fine.points, static_cast<T>(fine.end_distance / (1 + fine.end_distance))};
}

template <class T>
struct Level {
  View2D<T> u, f;      // the iterate (level 0: the caller's x) and right-hand side
  View2D<T> residual;  // Jacobi and Chebyshev: f - L u
  View2D<T> step;      // Chebyshev: the last update
  Axis row_axis, col_axis;
  LevelOperator<T> op;
  // To the next coarser level (unused on the coarsest).
  Transfer<T> row_transfer{false, 0, T(0)}, col_transfer{false, 0, T(0)};
};

// The axes of every level from the finest pair: each direction is coarsened
// while it has two or more points and its coupling is not much weaker than
// the other's, until a level holds at most coarsest_size points and there
// are least_levels levels. AxisType has points and coupling, and coarser(a,
// coarsen) gives its next level (Axis here, WholeAxis for the whole grid).
template <class AxisType>
std::vector<std::pair<AxisType, AxisType>> coarsened_axes(const AxisType& rows, const AxisType& cols, int coarsest_size,
                                                          std::size_t least_levels) {
  std::vector<std::pair<AxisType, AxisType>> axes{{rows, cols}};
  for (;;) {
    const AxisType r = axes.back().first, c = axes.back().second;
    if (axes.size() >= least_levels && std::int64_t(r.points) * c.points <= coarsest_size) break;
    const bool can_r = r.points >= 2, can_c = c.points >= 2;
    const bool coarsen_r = can_r && (r.coupling >= strong_coupling_ratio * c.coupling || !can_c);
    const bool coarsen_c = can_c && (c.coupling >= strong_coupling_ratio * r.coupling || !can_r);
    if (!coarsen_r && !coarsen_c) break;
    axes.emplace_back(coarser(r, coarsen_r), coarser(c, coarsen_c));
  }
  return axes;
}

// The dirichlet levels' axes, finest first.
inline std::vector<std::pair<Axis, Axis>> level_axes(std::int64_t rows, std::int64_t cols, int coarsest_size) {
  return coarsened_axes(Axis{int(rows - 2), 1, 1}, Axis{int(cols - 2), 1, 1}, coarsest_size, 1);
}

// Chebyshev smooths the upper part of D^-1 A's spectrum: [bound / ratio, bound],
// bound = 2 (Gershgorin: each row's off-diagonal sum is at most its diagonal).
// For the 5-point operator the error modes that coarsening cannot represent
// have eigenvalues of D^-1 A at 1/2 and above, a quarter of the bound.
constexpr double chebyshev_upper = 2;
constexpr double chebyshev_range_ratio = 4;
struct ChebyshevCoefficients {
  std::vector<double> keep, scale;  // per sweep
};

// The Chebyshev iteration on [lower, upper] (Saad, Iterative Methods, Alg. 12.1).
inline ChebyshevCoefficients chebyshev_coefficients(int sweeps) {
  const double upper = chebyshev_upper, lower = upper / chebyshev_range_ratio;
  const double theta = (upper + lower) / 2, delta = (upper - lower) / 2, sigma = theta / delta;
  ChebyshevCoefficients c;
  double rho = 1 / sigma;
  for (int k = 0; k < sweeps; ++k) {
    if (k == 0) {
      c.keep.push_back(0);
      c.scale.push_back(1 / theta);
      continue;
    }
    const double rho_next = 1 / (2 * sigma - rho);
    c.keep.push_back(rho_next * rho);
    c.scale.push_back(2 * rho_next / delta);
    rho = rho_next;
  }
  return c;
}

}  // namespace portasolve::poisson::detail::multigrid
