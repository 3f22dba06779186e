#pragma once
// Multigrid's kernels on one level (multigrid_levels.hpp): smoothing sweeps,
// the residual restricted to the coarser level in one pass, the coarse
// correction interpolated and added in one pass. Each level solves L u = f;
// coarse levels hold corrections (dirichlet: their rings zero). The kernels after the
// red-black sweeps take any level operator Op (apply<Sum>(u, i, j),
// diagonal(i, j)) and transfer Tr (sources, gathers): the dirichlet levels'
// by default, the whole-grid levels' (multigrid_whole_grid.hpp) too.
#include <cstdint>

#include "core/spaces.hpp"
#include "solvers/poisson/detail/multigrid_levels.hpp"
#include "solvers/poisson/detail/stencil.hpp"

namespace portasolve::poisson::detail::multigrid {

// Red-black Gauss-Seidel: a colour's points depend only on the other colour,
// so each half sweep updates its points in parallel.
struct Red {
  static constexpr int parity = 0;
};
struct Black {
  static constexpr int parity = 1;
};

// One Gauss-Seidel update of u(i, j) from its neighbours: every smoother
// below relaxes a point this way (RedBlackRowBlocks the same expression over
// a row), so all of them round alike.
template <class T>
KOKKOS_INLINE_FUNCTION void relax_point(const View2D<T>& u, const View2D<const T>& f, const LevelOperator<T>& op,
                                        const int i, const int j) {
  const T around = op.cy * (u(i - 1, j) + u(i + 1, j)) + op.cx * (u(i, j - 1) + u(i, j + 1));
  u(i, j) = (around - f(i, j)) * op.inverse_diagonal(i, j);
}

template <class T, class Colour>
struct RedBlackSweep {
  View2D<T> u;
  View2D<const T> f;
  LevelOperator<T> op;
  KOKKOS_INLINE_FUNCTION void operator()(const int i, const int j) const {
    if (op.parity(i, j) == Colour::parity) relax_point(u, f, op, i, j);
  }
};

// Hosts: one red-black sweep in one pass over the rows, the second colour's
// row i - 1 updated right after the first colour's row i, while the rows it
// reads are still in cache (two half sweeps each stream the whole level for
// half of its points: twice a Jacobi sweep's memory traffic, issue 20's CPU
// target). Each thread takes a block of rows (FirstPass); the second colour
// of a block's first and last rows reads first-colour rows of the
// neighbouring blocks, so it waits for a second launch (EdgeRows). Every
// update reads what it reads in two half sweeps: the same bits.
struct FirstPass {};
struct EdgeRows {};
// Over MPI ranks a colour's halo must arrive before the other colour reads
// it: one half sweep a launch, a row per iteration (hosts).
struct OneColour {};

template <class T>
struct RedBlackRowBlocks {
  View2D<T> u;
  View2D<const T> f;
  LevelOperator<T> op;
  int first_parity;  // the colour updated first: Red::parity or Black::parity
  int block_rows;

  // The points of row i of this parity (LevelOperator::parity), j = 1 to
  // the last column of u's interior (a rank's block: fewer than op.cols).
  // relax_point's expression, the row's neighbours and its inverse diagonal
  // (it changes in the level's last column only) taken once, so the loop
  // runs without index arithmetic.
  KOKKOS_INLINE_FUNCTION void update_row(const int i, const int parity) const {
    const int first_column = 1 + ((i + op.row_shift + op.col_shift + 1 + parity) & 1);
    const int last_column = static_cast<int>(u.extent(1)) - 2;
    const int level_last_column = op.cols - op.col_shift;  // beyond a rank's block: none in the loop
    const int inside_end = last_column < level_last_column ? last_column : level_last_column - 1;
    T* here = &u(i, 0);
    const T* __restrict above = &u(i - 1, 0);
    const T* __restrict below = &u(i + 1, 0);
    const T* __restrict rhs = &f(i, 0);
    const T cy = op.cy, cx = op.cx, inverse = op.inverse_diagonal(i, first_column);
    int j = first_column;
    for (; j <= inside_end; j += 2)
      here[j] = (cy * (above[j] + below[j]) + cx * (here[j - 1] + here[j + 1]) - rhs[j]) * inverse;
    for (; j <= last_column; j += 2) relax_point(u, f, op, i, j);
  }
  KOKKOS_INLINE_FUNCTION int first_row(const int block) const { return 1 + block * block_rows; }
  KOKKOS_INLINE_FUNCTION int end_row(const int block) const {
    const int end = first_row(block) + block_rows;
    return end < op.rows + 1 ? end : op.rows + 1;
  }
  KOKKOS_INLINE_FUNCTION void operator()(FirstPass, const int block) const {
    const int begin = first_row(block), end = end_row(block);
    for (int i = begin; i < end; ++i) {
      update_row(i, first_parity);
      if (i - 1 > begin) update_row(i - 1, 1 - first_parity);
    }
  }
  KOKKOS_INLINE_FUNCTION void operator()(OneColour, const int i) const { update_row(i, first_parity); }
  KOKKOS_INLINE_FUNCTION void operator()(EdgeRows, const int block) const {
    const int begin = first_row(block), last = end_row(block) - 1;
    update_row(begin, 1 - first_parity);
    if (last > begin) update_row(last, 1 - first_parity);
  }
};

// A small coarsest level relaxed to rounding by one thread in a single
// launch: lexicographic Gauss-Seidel sweeps (the red-black rate), where
// separate launches per half sweep would cost more than the arithmetic.
template <class T>
struct SerialGaussSeidel {
  View2D<T> u;
  View2D<const T> f;
  LevelOperator<T> op;
  int sweeps;
  KOKKOS_INLINE_FUNCTION void operator()(const int) const {
    for (int s = 0; s < sweeps; ++s)
      for (int i = 1; i <= op.rows; ++i)
        for (int j = 1; j <= op.cols; ++j) relax_point(u, f, op, i, j);
  }
};

// A preconditioner cycle's start, over the whole grid: f = -r on the interior
// (cg's residual r = b - A u for A = -L turned into L z = f), zero on the
// ring; z = 0 everywhere, the cycle's zero start and zero boundary.
template <class T>
struct StartPreconditioner {
  View2D<const T> r;
  View2D<T> f, z;
  KOKKOS_INLINE_FUNCTION void operator()(const int i, const int j) const {
    f(i, j) = on_ring(i, j, r.extent(0), r.extent(1)) ? T(0) : -r(i, j);
    z(i, j) = T(0);
  }
};

// residual = f - L u, formed in Sum.
// (Stored: T for the smoothers; Sum for the restriction over MPI ranks.)
template <class T, class Op = LevelOperator<T>, class Stored = T>
struct LevelResidual {
  View2D<const T> u, f;
  View2D<Stored> residual;
  Op op;
  KOKKOS_INLINE_FUNCTION void operator()(const int i, const int j) const {
    using Sum = typename Accumulator<T>::type;
    residual(i, j) = static_cast<Stored>(Sum(f(i, j)) - op.template apply<Sum>(u, i, j));
  }
};

// Weighted Jacobi from the residual: u += omega D^-1 (L u - f).
template <class T, class Op = LevelOperator<T>>
struct JacobiCorrection {
  View2D<T> u;
  View2D<const T> residual;
  Op op;
  T omega;
  KOKKOS_INLINE_FUNCTION void operator()(const int i, const int j) const {
    u(i, j) -= omega * residual(i, j) / op.diagonal(i, j);
  }
};

// One Chebyshev step for A = -L, preconditioned by D: step = keep * step +
// scale * D^-1 (b - A u) with b - A u = -(f - L u) = -residual; u += step.
template <class T, class Op = LevelOperator<T>>
struct ChebyshevStep {
  View2D<T> u, step;
  View2D<const T> residual;
  Op op;
  T keep, scale;
  KOKKOS_INLINE_FUNCTION void operator()(const int i, const int j) const {
    const T s = keep * step(i, j) - scale * residual(i, j) / op.diagonal(i, j);
    step(i, j) = s;
    u(i, j) += s;
  }
};

// The coarse right-hand side R (f - L u) at each coarse point, the fine
// residuals formed where they are gathered (never stored), and the coarse
// iterate zeroed for the correction it will hold.
// The weighted sum R r at coarse point (ci, cj) of the fine residuals
// fine.fine_residual(i, j) (in Sum) it gathers, rows outermost.
// With sum_squares, the squares of the fine residuals this coarse point
// owns (Transfer::owns in both directions) are added to owned_squares: over all coarse
// points, every fine residual once.
template <class Sum, class T, bool sum_squares = false, class Tr, class Fine>
KOKKOS_INLINE_FUNCTION Sum restricted(const Tr& row_transfer, const Tr& col_transfer, const int ci, const int cj,
                                      const Fine& fine, Sum* owned_squares = nullptr) {
  int rows[Tr::most_gathers], cols[Tr::most_gathers];
  T row_weight[Tr::most_gathers], col_weight[Tr::most_gathers];
  const int n_rows = row_transfer.gathers(ci, rows, row_weight);
  const int n_cols = col_transfer.gathers(cj, cols, col_weight);
  Sum sum = 0;
  for (int a = 0; a < n_rows; ++a) {
    Sum row_sum = 0;
    for (int b = 0; b < n_cols; ++b) {
      const Sum residual = fine.fine_residual(rows[a], cols[b]);
      row_sum += Sum(col_weight[b]) * residual;
      if constexpr (sum_squares)
        if (row_transfer.owns(ci, a) && col_transfer.owns(cj, b)) *owned_squares += residual * residual;
    }
    sum += Sum(row_weight[a]) * row_sum;
  }
  return sum;
}

// Tag: a restriction that also sums the squares of the fine residuals it
// forms (each once), for the solve's residual check (run_solve_cycles).
struct WithNorm {};

template <class T, class Op = LevelOperator<T>, class Tr = Transfer<T>>
struct RestrictResidual {
  using Sum = typename Accumulator<T>::type;
  View2D<const T> u, f;  // fine
  Op op;                 // fine
  Tr row_transfer, col_transfer;
  View2D<T> coarse_u, coarse_f;
  KOKKOS_INLINE_FUNCTION Sum fine_residual(const int i, const int j) const {
    return Sum(f(i, j)) - op.template apply<Sum>(u, i, j);
  }
  KOKKOS_INLINE_FUNCTION void operator()(const int ci, const int cj) const {
    coarse_f(ci, cj) = static_cast<T>(restricted<Sum, T>(row_transfer, col_transfer, ci, cj, *this));
    coarse_u(ci, cj) = T(0);
  }
  KOKKOS_INLINE_FUNCTION void operator()(WithNorm, const int ci, const int cj, Sum& squares) const {
    coarse_f(ci, cj) = static_cast<T>(restricted<Sum, T, true>(row_transfer, col_transfer, ci, cj, *this, &squares));
    coarse_u(ci, cj) = T(0);
  }
};

// RestrictResidual from fine residuals formed before (in Sum): over MPI
// ranks, where those next to a block's edge come from the neighbours. The
// same sums: the same bits.
template <class T, class Tr>
struct RestrictStoredResidual {
  using Sum = typename Accumulator<T>::type;
  View2D<const Sum> residual;  // fine
  Tr row_transfer, col_transfer;
  View2D<T> coarse_u, coarse_f;
  KOKKOS_INLINE_FUNCTION Sum fine_residual(const int i, const int j) const { return residual(i, j); }
  KOKKOS_INLINE_FUNCTION void operator()(const int ci, const int cj) const {
    coarse_f(ci, cj) = static_cast<T>(restricted<Sum, T>(row_transfer, col_transfer, ci, cj, *this));
    coarse_u(ci, cj) = T(0);
  }
};

// Hosts: RestrictResidual over a block of coarse rows per thread, each fine
// residual row formed once into the thread's `rows` (in Sum), where the
// point kernel forms every fine residual once per coarse point gathering it
// (2.25 times on average, most of a host cycle's time). The rows a coarse
// row gathers are consecutive, so fine row i lives in slot i % 3 and the
// next coarse row finds its shared row there. The residuals and their
// weighted sums are RestrictResidual's expressions in its order: the same
// bits. Dirichlet levels (LevelOperator, Transfer) only.
template <class T>
struct RestrictResidualRows {
  using Sum = typename Accumulator<T>::type;
  using value_type = Sum;  // the WithNorm reduction's
  static constexpr int slots = Transfer<T>::most_gathers;
  static constexpr int buffer_rows = 2 * slots;  // the formed fine rows, then each restricted along
  HostView2D<const T> u, f;                      // fine
  LevelOperator<T> op;                           // fine
  Transfer<T> row_transfer, col_transfer;
  HostView2D<T> coarse_u, coarse_f;
  Kokkos::View<Sum***, Kokkos::HostSpace> rows;  // [block][buffer row][fine column]
  int coarse_rows, coarse_cols, block_rows;

  // LevelOperator::apply's expression, its diagonal taken once for the row
  // (it changes in the last column only) so the loop vectorises.
  void form_residual_row(const int block, const int slot, const int i) const {
    const Sum cy = op.cy, cx = op.cx, diagonal = op.diagonal(i, 1);
    const T *above = &u(i - 1, 0), *here = &u(i, 0), *below = &u(i + 1, 0), *rhs = &f(i, 0);
    Sum* residual = &rows(block, slot, 0);
    const int last = op.cols;
    for (int j = 1; j < last; ++j)
      residual[j] = Sum(rhs[j]) - (cy * (Sum(above[j]) + Sum(below[j])) + cx * (Sum(here[j - 1]) + Sum(here[j + 1])) -
                                   diagonal * Sum(here[j]));
    residual[last] = Sum(f(i, last)) - op.template apply<Sum>(u, i, last);
  }

  // The sum of a formed row's squares, in four lanes so that the adds do not
  // wait on each other.
  Sum row_squares(const int block, const int slot) const {
    const Sum* residual = &rows(block, slot, 0);
    Sum lanes[4] = {0, 0, 0, 0};
    int j = 1;
    for (; j + 3 <= op.cols; j += 4)
      for (int l = 0; l < 4; ++l) lanes[l] += residual[j + l] * residual[j + l];
    for (; j <= op.cols; ++j) lanes[0] += residual[j] * residual[j];
    return (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
  }

  void operator()(const int block) const { restrict_block(block, nullptr); }
  void operator()(WithNorm, const int block, Sum& squares) const { restrict_block(block, &squares); }

  // With owned_squares: the squares of the fine rows this block's coarse
  // rows own (Transfer::owns), each row once over all blocks.
  void restrict_block(const int block, Sum* owned_squares) const {
    int held[slots];  // the fine row in each slot (-1: none yet)
    for (int s = 0; s < slots; ++s) held[s] = -1;
    const int begin = 1 + block * block_rows;
    const int end = begin + block_rows < coarse_rows + 1 ? begin + block_rows : coarse_rows + 1;
    for (int ci = begin; ci < end; ++ci) {
      int fine_rows[slots];
      T row_weight[slots] = {};  // gathers sets n_rows of them
      const int n_rows = row_transfer.gathers(ci, fine_rows, row_weight);
      const Sum* gathered[slots];
      for (int a = 0; a < n_rows; ++a) {
        const int slot = fine_rows[a] % slots;
        if (held[slot] != fine_rows[a]) {
          form_residual_row(block, slot, fine_rows[a]);
          restrict_along_row(block, slot);
          held[slot] = fine_rows[a];
        }
        if (owned_squares && row_transfer.owns(ci, a)) *owned_squares += row_squares(block, slot);
        gathered[a] = &rows(block, slots + slot, 0);
      }
      T* coarse_row = &coarse_f(ci, 0);
      T* correction = &coarse_u(ci, 0);
      if (n_rows == 1) {
        const Sum w = row_weight[0];
        for (int cj = 1; cj <= coarse_cols; ++cj) {
          Sum sum = 0;
          sum += w * gathered[0][cj];
          coarse_row[cj] = static_cast<T>(sum);
          correction[cj] = T(0);
        }
      } else if (n_rows == 2) {
        const Sum w0 = row_weight[0], w1 = row_weight[1];
        for (int cj = 1; cj <= coarse_cols; ++cj) {
          Sum sum = 0;
          sum += w0 * gathered[0][cj];
          sum += w1 * gathered[1][cj];
          coarse_row[cj] = static_cast<T>(sum);
          correction[cj] = T(0);
        }
      } else {
        const Sum w0 = row_weight[0], w1 = row_weight[1], w2 = row_weight[2];
        for (int cj = 1; cj <= coarse_cols; ++cj) {
          Sum sum = 0;
          sum += w0 * gathered[0][cj];
          sum += w1 * gathered[1][cj];
          sum += w2 * gathered[2][cj];
          coarse_row[cj] = static_cast<T>(sum);
          correction[cj] = T(0);
        }
      }
    }
  }

  // The formed fine row in `slot` restricted along the columns, each coarse
  // column's weighted sum (RestrictResidual's row_sum, in its order) into
  // row slots + slot: the fine rows a coarse row gathers are then weighted in
  // a loop that vectorises, and a fine row shared by two coarse rows is
  // summed along once.
  void restrict_along_row(const int block, const int slot) const {
    const Sum* residual = &rows(block, slot, 0);
    Sum* along = &rows(block, slots + slot, 0);
    for (int cj = 1; cj <= coarse_cols; ++cj) {
      int cols[slots];
      T col_weight[slots];
      const int n_cols = col_transfer.gathers(cj, cols, col_weight);
      Sum row_sum = 0;
      for (int b = 0; b < n_cols; ++b) row_sum += Sum(col_weight[b]) * residual[cols[b]];
      along[cj] = row_sum;
    }
  }
};

// u += P coarse_u at each fine point.
template <class T, class Tr = Transfer<T>>
struct ProlongAndCorrect {
  View2D<T> u;  // fine
  View2D<const T> coarse_u;
  Tr row_transfer, col_transfer;
  KOKKOS_INLINE_FUNCTION void operator()(const int i, const int j) const {
    int rows[2], cols[2];
    T row_weight[2], col_weight[2];
    const int n_rows = row_transfer.sources(i, rows, row_weight);
    const int n_cols = col_transfer.sources(j, cols, col_weight);
    T correction = 0;
    for (int a = 0; a < n_rows; ++a) {
      T row_sum = 0;
      for (int b = 0; b < n_cols; ++b) row_sum += col_weight[b] * coarse_u(rows[a], cols[b]);
      correction += row_weight[a] * row_sum;
    }
    u(i, j) += correction;
  }
};

// Hosts: ProlongAndCorrect over a block of fine rows per thread. Each coarse
// row the block reads is interpolated along the columns once, into the
// thread's `rows` (the columns' sources and weights tabulated once per level:
// `col_sources`, `col_weights`, `col_counts`), and each fine row adds its
// coarse rows' weighted interpolants in a loop that vectorises. The point
// kernel found every point's sources and interpolated each coarse row again
// for each of the up to three fine rows reading it. The sums are
// ProlongAndCorrect's expressions in its order: the same bits. Dirichlet
// levels (Transfer) only.
template <class T>
struct ProlongAndCorrectRows {
  // Fine row 2c - 1 reads coarse rows c - 1 and c, 2c row c, 2c + 1 rows c
  // and c + 1 (coarsened; else fine row i reads coarse row i): coarse row c
  // lives in slot c % 2 while the block's rows need it.
  static constexpr int slots = 2;
  HostView2D<T> u;  // fine
  HostView2D<const T> coarse_u;
  Transfer<T> row_transfer;
  Kokkos::View<const int* [2], Kokkos::HostSpace> col_sources;
  Kokkos::View<const T* [2], Kokkos::HostSpace> col_weights;
  Kokkos::View<const int*, Kokkos::HostSpace> col_counts;
  Kokkos::View<T***, Kokkos::HostSpace> rows;  // [block][slot][fine column]
  int fine_rows, cols, block_rows;

  void interpolate_row(const int block, const int slot, const int c) const {
    T* interpolated = &rows(block, slot, 0);
    for (int j = 1; j <= cols; ++j) {
      T row_sum = 0;
      for (int b = 0; b < col_counts(j); ++b) row_sum += col_weights(j, b) * coarse_u(c, col_sources(j, b));
      interpolated[j] = row_sum;
    }
  }

  void operator()(const int block) const {
    int held[slots] = {-1, -1};  // the coarse row in each slot
    const int begin = 1 + block * block_rows;
    const int end = begin + block_rows < fine_rows + 1 ? begin + block_rows : fine_rows + 1;
    for (int i = begin; i < end; ++i) {
      int sources[2];
      T weight[2];
      const int n_rows = row_transfer.sources(i, sources, weight);
      const T* interpolated[2];
      for (int a = 0; a < n_rows; ++a) {
        const int slot = sources[a] % slots;
        if (held[slot] != sources[a]) {
          interpolate_row(block, slot, sources[a]);
          held[slot] = sources[a];
        }
        interpolated[a] = &rows(block, slot, 0);
      }
      T* row = &u(i, 0);
      if (n_rows == 1) {
        const T w = weight[0], *a = interpolated[0];
        for (int j = 1; j <= cols; ++j) {
          T correction = 0;
          correction += w * a[j];
          row[j] += correction;
        }
      } else {
        const T w0 = weight[0], w1 = weight[1], *a = interpolated[0], *b = interpolated[1];
        for (int j = 1; j <= cols; ++j) {
          T correction = 0;
          correction += w0 * a[j];
          correction += w1 * b[j];
          row[j] += correction;
        }
      }
    }
  }
};

}  // namespace portasolve::poisson::detail::multigrid
