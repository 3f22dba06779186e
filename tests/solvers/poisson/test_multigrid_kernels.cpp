// Multigrid's red-black sweep in row blocks (the hosts' smoother: both
// colours in one pass, a block's edge rows in a second launch) against two
// plain float64 half sweeps written here (the GPUs' order), for blocks of one row up to one
// block for the whole level, both colour orders and uneven level ends.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/spaces.hpp"
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

}  // namespace
}  // namespace portasolve::poisson::detail::multigrid
