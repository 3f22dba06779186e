// Jacobi over MPI ranks against Jacobi on one rank, run by every rank on the
// whole grid in the same test: the iterates must agree bit for bit for any
// rank count and split, the residual histories to rounding.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <vector>

#include "core/errors.hpp"
#include "distributed/grid_decomposition.hpp"
#include "solvers/poisson/distributed.hpp"
#include "solvers/poisson/problem.hpp"
#include "solvers/poisson/solver.hpp"

namespace ps = portasolve::poisson;
namespace pd = portasolve::distributed;
using portasolve::View2D;

namespace {

int world_size() {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

struct Case {
  std::int64_t rows, cols;
  double omega;
  std::array<int, 2> dims;  // {0, 0}: chosen
};

template <class T>
void expect_distributed_equals_single_rank(const Case& c) {
  if (c.dims[0] * c.dims[1] != 0 && c.dims[0] * c.dims[1] != world_size()) return;
  if (world_size() > (c.rows - 2) * (c.cols - 2)) return;
  const ps::Problem problem = ps::manufactured_problem(c.rows, c.cols);
  ps::SolverOptions options;
  options.method = ps::Method::jacobi;
  options.omega = c.omega;
  options.max_iterations = 230;
  options.check_every = 40;
  options.tolerance = 0;  // a fixed number of sweeps: the iterates must match exactly

  const View2D<T> whole = ps::to_device<T>(problem.start, "whole");
  const ps::SolveReport single = ps::solve(whole, ps::to_device<T>(problem.rhs, "rhs"), options);
  const ps::HostGrid single_x = ps::to_host(whole);

  pd::GridDecomposition grid(MPI_COMM_WORLD, c.rows, c.cols, c.dims);
  const auto block = [&](const ps::HostGrid& global) {
    ps::HostGrid local(grid.rows_owned().count + 2, grid.cols_owned().count + 2);
    local.values = grid.local_block(global.values.data(), 1);
    return local;
  };
  const View2D<T> x = ps::to_device<T>(block(problem.start), "x");
  const View2D<T> rhs = ps::to_device<T>(block(problem.rhs), "rhs");
  ps::HaloStatistics halo;
  const ps::SolveReport report = ps::solve_distributed(grid, x, rhs, options, {}, &halo);
  const ps::HostGrid local_x = ps::to_host(x);

  for (std::size_t i = 1; i + 1 < local_x.rows; ++i)
    for (std::size_t j = 1; j + 1 < local_x.cols; ++j) {
      const std::size_t gi = grid.rows_owned().first + i - 1, gj = grid.cols_owned().first + j - 1;
      ASSERT_EQ(static_cast<T>(local_x(i, j)), static_cast<T>(single_x(gi, gj)))
          << c.rows << "x" << c.cols << " at (" << gi << ", " << gj << ") on rank " << grid.rank();
    }
  EXPECT_EQ(report.iterations, single.iterations);
  ASSERT_EQ(report.history.size(), single.history.size());
  for (std::size_t k = 0; k < report.history.size(); ++k) {
    EXPECT_EQ(report.history[k].iteration, single.history[k].iteration);
    EXPECT_NEAR(report.history[k].relative_residual, single.history[k].relative_residual,
                1e-12 * single.history[k].relative_residual);
  }
  EXPECT_NEAR(report.reference_norm, single.reference_norm, 1e-12 * single.reference_norm);
  EXPECT_EQ(halo.exchanges, options.max_iterations + 1);
}

const std::vector<Case> cases{
    {37, 53, 1.0, {0, 0}},   // uneven blocks
    {101, 9, 1.0, {0, 0}},   // tall and thin
    {6, 40, 1.0, {0, 0}},    // four interior rows: a rank may own one row
    {3, 30, 1.0, {0, 0}},    // one interior row: only column splits fit
    {30, 3, 0.8, {0, 0}},    // one interior column, weighted
    {24, 31, 0.9, {1, 0}},   // forced into a row of blocks (dims filled below)
};

template <class T>
void run_cases() {
  for (Case c : cases) {
    if (c.dims[0] == 1) c.dims[1] = world_size();
    expect_distributed_equals_single_rank<T>(c);
  }
}

}  // namespace

TEST(PoissonJacobiDistributed, FloatIteratesEqualOneRankBitForBit) { run_cases<float>(); }
TEST(PoissonJacobiDistributed, DoubleIteratesEqualOneRankBitForBit) { run_cases<double>(); }

TEST(PoissonJacobiDistributed, StopsAtTheToleranceLikeOneRank) {
  const ps::Problem problem = ps::manufactured_problem(33, 45);
  ps::SolverOptions options;
  options.method = ps::Method::jacobi;
  options.tolerance = 1e-3;
  options.check_every = 10;
  const View2D<double> whole = ps::to_device<double>(problem.start, "whole");
  const ps::SolveReport single = ps::solve(whole, ps::to_device<double>(problem.rhs, "rhs"), options);
  pd::GridDecomposition grid(MPI_COMM_WORLD, 33, 45);
  ps::HostGrid start(grid.rows_owned().count + 2, grid.cols_owned().count + 2), rhs = start;
  start.values = grid.local_block(problem.start.values.data(), 1);
  rhs.values = grid.local_block(problem.rhs.values.data(), 1);
  const ps::SolveReport report = ps::solve_distributed(grid, ps::to_device<double>(start, "x"),
                                                       ps::to_device<double>(rhs, "rhs"), options);
  EXPECT_TRUE(report.converged);
  EXPECT_EQ(report.stop_reason, "tolerance");
  EXPECT_EQ(report.iterations, single.iterations);
  EXPECT_LE(report.relative_residual, 1e-3);
}

TEST(PoissonJacobiDistributed, RefusesMethodsAndBoundariesItCannotRun) {
  pd::GridDecomposition grid(MPI_COMM_WORLD, 12, 12);
  const View2D<double> x("x", grid.rows_owned().count + 2, grid.cols_owned().count + 2), rhs("rhs", x.extent(0),
                                                                                             x.extent(1));
  ps::SolverOptions options;
  options.method = ps::Method::cg;
  try {
    ps::solve_distributed(grid, x, rhs, options);
    FAIL() << "cg over ranks was accepted";
  } catch (const portasolve::OptionError& error) {
    EXPECT_EQ(error.option(), "method");
  }
  options.method = ps::Method::jacobi;
  options.boundary = ps::Boundary::periodic;
  try {
    ps::solve_distributed(grid, x, rhs, options);
    FAIL() << "a periodic boundary over ranks was accepted";
  } catch (const portasolve::OptionError& error) {
    EXPECT_EQ(error.option(), "boundary");
  }
  options.boundary = ps::Boundary::dirichlet;
  const View2D<double> wrong("wrong", x.extent(0) + 1, x.extent(1));
  EXPECT_THROW(ps::solve_distributed(grid, wrong, rhs, options), std::invalid_argument);
}
