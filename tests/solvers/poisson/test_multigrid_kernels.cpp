// Multigrid's red-black sweep in row blocks (the hosts' smoother: both
// colours in one pass, a block's edge rows in a second launch) against two
// plain float64 half sweeps written here (the GPUs' order), for blocks of one row up to one
// block for the whole level, both colour orders and uneven level ends.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <tuple>

#include "core/grid_range.hpp"
#include "core/spaces.hpp"
#include "solvers/poisson/detail/multigrid_hierarchy.hpp"
#include "solvers/poisson/detail/multigrid_kernels.hpp"

namespace portasolve::poisson::detail::multigrid {
namespace {

// The level's diagonal at (i, j), as the operator defines it.
double diagonal(const LevelOperator<double>& op, int i, int j) {
  return op.centre + (i == op.rows ? op.row_end : 0) + (j == op.cols ? op.col_end : 0);
}

// One half sweep over the points of one colour, in any order (a colour's
// points read only the other colour).
void host_half_sweep(HostView2D<double>& u, const HostView2D<double>& f, const LevelOperator<double>& op, int parity) {
  for (int i = 1; i <= op.rows; ++i)
    for (int j = 1; j <= op.cols; ++j)
      if ((i + j) % 2 == parity)
        u(i, j) =
            (op.cy * (u(i - 1, j) + u(i + 1, j)) + op.cx * (u(i, j - 1) + u(i, j + 1)) - f(i, j)) / diagonal(op, i, j);
}

TEST(PoissonMultigridKernels, RowBlockSweepsEqualTwoHalfSweepsForEveryBlockSize) {
  constexpr int sweeps = 2;
  constexpr double rounding_allowed = 1e-14;  // values are O(1): a few ulps
  std::mt19937 random(11);
  std::uniform_real_distribution<double> value(-1, 1);
  for (const auto& [rows, cols] : {std::pair<int, int>{37, 23}, {1, 7}, {2, 2}, {9, 1}, {64, 64}}) {
    // An even fine line's last point lies 1/2 spacing from its boundary.
    const LevelOperator<double> op =
        level_operator<double>(Axis{rows, 0.25, 0.5}, Axis{cols, 1.0, rows % 2 == 0 ? 0.75 : 1.0});
    HostView2D<double> start("start", rows + 2, cols + 2), f("f", rows + 2, cols + 2);
    for (int i = 0; i < rows + 2; ++i)
      for (int j = 0; j < cols + 2; ++j) start(i, j) = value(random), f(i, j) = value(random);
    const View2D<double> f_device("f", rows + 2, cols + 2);
    Kokkos::deep_copy(f_device, f);
    for (const int first_parity : {Red::parity, Black::parity}) {
      HostView2D<double> expected("expected", rows + 2, cols + 2);
      Kokkos::deep_copy(expected, start);
      for (int s = 0; s < sweeps; ++s) {
        host_half_sweep(expected, f, op, first_parity);
        host_half_sweep(expected, f, op, 1 - first_parity);
      }
      for (const int block_rows : {1, 2, 3, 8, 1000}) {
        const View2D<double> u("u", rows + 2, cols + 2);
        Kokkos::deep_copy(u, start);
        const RedBlackRowBlocks<double> kernel{u, f_device, op, first_parity, block_rows};
        const int blocks = (rows + block_rows - 1) / block_rows;
        for (int s = 0; s < sweeps; ++s) {
          Kokkos::parallel_for(Kokkos::RangePolicy<ExecSpace, FirstPass>(0, blocks), kernel);
          Kokkos::parallel_for(Kokkos::RangePolicy<ExecSpace, EdgeRows>(0, blocks), kernel);
        }
        const auto result = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), u);
        // Same operations in the same order: equal on hosts, within a
        // rounding or two where a GPU compiler fuses multiply-adds.
        int differing = 0;
        for (int i = 0; i < rows + 2; ++i)
          for (int j = 0; j < cols + 2; ++j) differing += std::abs(result(i, j) - expected(i, j)) > rounding_allowed;
        EXPECT_EQ(differing, 0) << rows << "x" << cols << ", blocks of " << block_rows << " rows, colour "
                                << first_parity << " first";
        EXPECT_NE(result(1, 1), start(1, 1));  // the sweep ran
      }
    }
  }
}

// Levels for the transfer kernels' tests (rows, cols, each direction
// coarsened or not): odd and even lines (an even line's last coarse point
// gathers two rows), a direction not coarsened, thin levels. An even line's
// last point lies half a spacing from its boundary.
const std::tuple<int, int, bool, bool> transfer_cases[] = {{37, 23, true, true}, {36, 24, true, true},
                                                           {9, 40, false, true}, {31, 3, true, false},
                                                           {3, 3, true, true},   {2, 5, true, true}};
Axis row_axis_of(int rows) { return Axis{rows, 0.25, rows % 2 == 0 ? 0.5 : 1.0}; }
Axis col_axis_of(int cols) { return Axis{cols, 1.0, cols % 2 == 0 ? 0.5 : 1.0}; }

// The restriction with the norm of the fine residuals (WithNorm: the solve's
// residual check) sums each fine residual's square once, whichever coarse
// point or block forms it.
TEST(PoissonMultigridKernels, RestrictionByRowsEqualsThePointKernelAndAFloat64Restriction) {
  std::mt19937 random(5);
  std::uniform_real_distribution<double> value(-1, 1);
  // Blocks of one coarse row to all.
  for (const auto& [rows, cols, coarsen_rows, coarsen_cols] : transfer_cases) {
    const Axis row_axis = row_axis_of(rows), col_axis = col_axis_of(cols);
    const LevelOperator<double> op = level_operator<double>(row_axis, col_axis);
    const Transfer<double> row_transfer = transfer<double>(row_axis, coarsen_rows);
    const Transfer<double> col_transfer = transfer<double>(col_axis, coarsen_cols);
    const int coarse_rows = coarsen_rows ? rows / 2 : rows, coarse_cols = coarsen_cols ? cols / 2 : cols;
    HostView2D<double> u("u", rows + 2, cols + 2), f("f", rows + 2, cols + 2);
    for (int i = 0; i < rows + 2; ++i)
      for (int j = 0; j < cols + 2; ++j) u(i, j) = value(random), f(i, j) = value(random);
    // float64 reference: the residual f - L u at every fine point, then each
    // coarse point's weighted gathers.
    HostView2D<double> residual("residual", rows + 2, cols + 2);
    for (int i = 1; i <= rows; ++i)
      for (int j = 1; j <= cols; ++j)
        residual(i, j) = f(i, j) - (op.cy * (u(i - 1, j) + u(i + 1, j)) + op.cx * (u(i, j - 1) + u(i, j + 1)) -
                                    diagonal(op, i, j) * u(i, j));
    // The point kernel (the GPUs' restriction) on the execution space.
    const View2D<double> u_device("u", rows + 2, cols + 2), f_device("f", rows + 2, cols + 2);
    Kokkos::deep_copy(u_device, u);
    Kokkos::deep_copy(f_device, f);
    const View2D<double> point_u("point_u", coarse_rows + 2, coarse_cols + 2),
        point_f_device("point_f", coarse_rows + 2, coarse_cols + 2);
    for_rectangle(
        "restrict", GridRectangle{1, 1, coarse_rows, coarse_cols},
        RestrictResidual<double>{u_device, f_device, op, row_transfer, col_transfer, point_u, point_f_device});
    const auto point_f = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), point_f_device);
    // With the norm (the solve's check): every fine residual's square once,
    // the same coarse values.
    double expected_squares = 0;
    for (int i = 1; i <= rows; ++i)
      for (int j = 1; j <= cols; ++j) expected_squares += residual(i, j) * residual(i, j);
    const View2D<double> normed_f_device("normed_f", coarse_rows + 2, coarse_cols + 2);
    double point_squares = 0;
    reduce_rectangle<double, WithNorm>(
        "restrict_norm", GridRectangle{1, 1, coarse_rows, coarse_cols},
        RestrictResidual<double>{u_device, f_device, op, row_transfer, col_transfer, point_u, normed_f_device},
        point_squares);
    EXPECT_NEAR(point_squares, expected_squares, 1e-12 * expected_squares) << rows << "x" << cols;
    const auto normed_f = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), normed_f_device);
    for (int ci = 1; ci <= coarse_rows; ++ci)
      for (int cj = 1; cj <= coarse_cols; ++cj) EXPECT_EQ(normed_f(ci, cj), point_f(ci, cj)) << ci << "," << cj;
    for (const int block_rows : {1, 2, 5, 1000}) {
      const int blocks = (coarse_rows + block_rows - 1) / block_rows;
      HostView2D<double> coarse_u("coarse_u", coarse_rows + 2, coarse_cols + 2),
          coarse_f("coarse_f", coarse_rows + 2, coarse_cols + 2);
      Kokkos::deep_copy(coarse_u, 7.0);  // the kernel zeroes the interior
      const Kokkos::View<double***, Kokkos::HostSpace> buffer("rows", blocks, RestrictResidualRows<double>::buffer_rows,
                                                              cols + 2);
      const RestrictResidualRows<double> by_rows{u,        f,      op,          row_transfer, col_transfer, coarse_u,
                                                 coarse_f, buffer, coarse_rows, coarse_cols,  block_rows};
      Kokkos::parallel_for(Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, blocks), by_rows);
      HostView2D<double> normed_rows_f("normed_rows_f", coarse_rows + 2, coarse_cols + 2);
      RestrictResidualRows<double> by_rows_normed = by_rows;
      by_rows_normed.coarse_f = normed_rows_f;
      double rows_squares = 0;
      Kokkos::parallel_reduce(Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace, WithNorm>(0, blocks),
                              by_rows_normed, rows_squares);
      EXPECT_NEAR(rows_squares, expected_squares, 1e-12 * expected_squares)
          << rows << "x" << cols << " blocks of " << block_rows;
      for (int ci = 1; ci <= coarse_rows; ++ci)
        for (int cj = 1; cj <= coarse_cols; ++cj) {
          int fine_rows[3], fine_cols[3];
          double row_weight[3], col_weight[3];
          const int n_rows = row_transfer.gathers(ci, fine_rows, row_weight);
          const int n_cols = col_transfer.gathers(cj, fine_cols, col_weight);
          double expected = 0;
          for (int a = 0; a < n_rows; ++a)
            for (int b = 0; b < n_cols; ++b)
              expected += row_weight[a] * col_weight[b] * residual(fine_rows[a], fine_cols[b]);
          const std::string where = std::to_string(rows) + "x" + std::to_string(cols) + " blocks of " +
                                    std::to_string(block_rows) + " at " + std::to_string(ci) + "," + std::to_string(cj);
          // The same bits on hosts; within a rounding where a GPU compiler
          // fuses multiply-adds.
          if (host_execution)
            EXPECT_EQ(coarse_f(ci, cj), point_f(ci, cj)) << where;
          else
            EXPECT_NEAR(coarse_f(ci, cj), point_f(ci, cj), 1e-14) << where;
          EXPECT_NEAR(coarse_f(ci, cj), expected, 1e-14) << where;
          EXPECT_EQ(normed_rows_f(ci, cj), coarse_f(ci, cj)) << where;
          EXPECT_EQ(coarse_u(ci, cj), 0.0) << where;
        }
      EXPECT_EQ(coarse_u(0, 0), 7.0);  // the ring untouched
    }
  }
}

TEST(PoissonMultigridKernels, ProlongationByRowsEqualsThePointKernelAndAFloat64Interpolation) {
  std::mt19937 random(9);
  std::uniform_real_distribution<double> value(-1, 1);
  for (const auto& [rows, cols, coarsen_rows, coarsen_cols] : transfer_cases) {
    const Axis row_axis = row_axis_of(rows), col_axis = col_axis_of(cols);
    const Transfer<double> row_transfer = transfer<double>(row_axis, coarsen_rows);
    const Transfer<double> col_transfer = transfer<double>(col_axis, coarsen_cols);
    const int coarse_rows = coarsen_rows ? rows / 2 : rows, coarse_cols = coarsen_cols ? cols / 2 : cols;
    HostView2D<double> start("start", rows + 2, cols + 2), coarse("coarse", coarse_rows + 2, coarse_cols + 2);
    for (int i = 0; i < rows + 2; ++i)
      for (int j = 0; j < cols + 2; ++j) start(i, j) = value(random);
    for (int i = 1; i <= coarse_rows; ++i)  // the coarse ring stays zero, as the cycle keeps it
      for (int j = 1; j <= coarse_cols; ++j) coarse(i, j) = value(random);
    // float64 reference: each fine point plus its sources' weighted values.
    HostView2D<double> expected("expected", rows + 2, cols + 2);
    Kokkos::deep_copy(expected, start);
    for (int i = 1; i <= rows; ++i)
      for (int j = 1; j <= cols; ++j) {
        int source_rows[2], source_cols[2];
        double row_weight[2], col_weight[2];
        const int n_rows = row_transfer.sources(i, source_rows, row_weight);
        const int n_cols = col_transfer.sources(j, source_cols, col_weight);
        for (int a = 0; a < n_rows; ++a)
          for (int b = 0; b < n_cols; ++b)
            expected(i, j) += row_weight[a] * col_weight[b] * coarse(source_rows[a], source_cols[b]);
      }
    // The point kernel (the GPUs' prolongation) on the execution space.
    const View2D<double> point_device("point", rows + 2, cols + 2),
        coarse_device("coarse", coarse_rows + 2, coarse_cols + 2);
    Kokkos::deep_copy(point_device, start);
    Kokkos::deep_copy(coarse_device, coarse);
    for_rectangle("prolong", GridRectangle{1, 1, rows, cols},
                  ProlongAndCorrect<double>{point_device, coarse_device, row_transfer, col_transfer});
    const auto point = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), point_device);
    // The column tables the hierarchy builds.
    Kokkos::View<int* [2], Kokkos::HostSpace> col_sources("sources", cols + 1);
    Kokkos::View<double* [2], Kokkos::HostSpace> col_weights("weights", cols + 1);
    Kokkos::View<int*, Kokkos::HostSpace> col_counts("counts", cols + 1);
    for (int j = 1; j <= cols; ++j) {
      int index[2];
      double weight[2];
      col_counts(j) = col_transfer.sources(j, index, weight);
      for (int b = 0; b < col_counts(j); ++b) col_sources(j, b) = index[b], col_weights(j, b) = weight[b];
    }
    for (const int block_rows : {1, 2, 3, 1000}) {
      const int blocks = (rows + block_rows - 1) / block_rows;
      HostView2D<double> u("u", rows + 2, cols + 2);
      Kokkos::deep_copy(u, start);
      const Kokkos::View<double***, Kokkos::HostSpace> buffer("rows", blocks, 2, cols + 2);
      Kokkos::parallel_for(Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, blocks),
                           ProlongAndCorrectRows<double>{u, coarse, row_transfer, col_sources, col_weights, col_counts,
                                                         buffer, rows, cols, block_rows});
      int differing_from_points = 0, off_reference = 0;
      for (int i = 0; i < rows + 2; ++i)
        for (int j = 0; j < cols + 2; ++j) {
          // The same bits on hosts; within a rounding where a GPU compiler fuses multiply-adds.
          differing_from_points += host_execution ? u(i, j) != point(i, j) : std::abs(u(i, j) - point(i, j)) > 1e-14;
          off_reference += std::abs(u(i, j) - expected(i, j)) > 1e-14;
        }
      const std::string where =
          std::to_string(rows) + "x" + std::to_string(cols) + " blocks of " + std::to_string(block_rows);
      EXPECT_EQ(differing_from_points, 0) << where;
      EXPECT_EQ(off_reference, 0) << where;
      EXPECT_NE(u(1, 1), start(1, 1)) << where;  // corrected
      EXPECT_EQ(u(0, 0), start(0, 0)) << where;  // the ring untouched
    }
  }
}

}  // namespace
}  // namespace portasolve::poisson::detail::multigrid

namespace portasolve::poisson::detail::multigrid {
namespace {

// GPUs run a cycle's coarse levels in one launch (multigrid_tail.hpp): the
// same point kernels in the same steps, so the same bits as a launch per
// step, for every cycle shape, the symmetric (preconditioner) order, the
// full multigrid start, a serial and a swept coarsest level, thin grids.
template <class T>
void expect_tail_equals_launches(int rows, int cols, MultigridCycle shape, bool symmetric, bool fmg,
                                 int coarsest_size) {
  MultigridOptions options;
  options.cycle = shape;
  options.coarsest_size = coarsest_size;
  std::mt19937 random(rows * 1000 + cols);
  std::uniform_real_distribution<double> value(-1, 1);
  HostView2D<T> start("start", rows, cols), b("b", rows, cols);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) {
      start(i, j) = static_cast<T>(value(random));
      b(i, j) = static_cast<T>(value(random));
    }
  std::vector<T> results[2];
  for (int tail = 0; tail < 2; ++tail) {
    View2D<T> x("x", rows, cols), rhs("rhs", rows, cols);
    Kokkos::deep_copy(x, start);
    Kokkos::deep_copy(rhs, b);
    Hierarchy<T> hierarchy(ExecSpace(), x, rhs, options, symmetric);
    hierarchy.set_tail_points(tail ? 4096 : 0);
    if (tail)
      ASSERT_LT(hierarchy.tail_start() + 1, hierarchy.depth()) << rows << "x" << cols;  // two levels or more
    else
      ASSERT_EQ(hierarchy.tail_start(), hierarchy.depth());
    if (fmg) hierarchy.full_multigrid_cycle(ExecSpace(), shape);
    for (int c = 0; c < 2; ++c) hierarchy.cycle(ExecSpace(), 0, shape);
    const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
    results[tail].assign(host.data(), host.data() + host.size());
  }
  EXPECT_EQ(results[1], results[0]) << rows << "x" << cols << " cycle " << name_of(shape) << " symmetric " << symmetric
                                    << " fmg " << fmg << " coarsest_size " << coarsest_size;
  double largest = 0;
  for (const T v : results[1]) largest = std::max(largest, std::fabs(double(v)));
  EXPECT_GT(largest, 0.0);
}

TEST(PoissonMultigridKernels, TheCoarseTailInOneLaunchGivesALaunchPerStepsBits) {
  for (const MultigridCycle shape : {MultigridCycle::v, MultigridCycle::w, MultigridCycle::f})
    for (const bool symmetric : {false, true}) {
      expect_tail_equals_launches<double>(130, 98, shape, symmetric, false, 4);
      expect_tail_equals_launches<float>(67, 140, shape, symmetric, shape == MultigridCycle::v, 4);
    }
  expect_tail_equals_launches<double>(200, 5, MultigridCycle::v, false, false, 4);   // semi-coarsened
  expect_tail_equals_launches<double>(90, 90, MultigridCycle::v, true, true, 1000);  // a swept coarsest level
}

}  // namespace
}  // namespace portasolve::poisson::detail::multigrid
