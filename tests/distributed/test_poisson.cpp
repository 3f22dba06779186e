// Poisson over MPI ranks against the same method on one rank, run by every
// rank on the whole grid in the same test. Jacobi: the iterates agree bit for
// bit for any rank count and split, the residual histories to rounding. CG:
// the same tolerance within a step or two, the histories to rounding.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "distributed/grid_decomposition.hpp"
#include "solvers/poisson/distributed.hpp"
#include "solvers/poisson/problem.hpp"
#include "solvers/poisson/solver.hpp"
#include "tests/distributed/ranks.hpp"

namespace ps = portasolve::poisson;
namespace pd = portasolve::distributed;
using pd::testing::world_size;
using portasolve::View2D;

namespace {

struct Case {
  std::int64_t rows, cols;
  double omega;
  std::array<int, 2> dims;  // {0, 0}: chosen
};

// The distributed method's options: plain Jacobi, or jacobi_blocked with k
// sweeps a launch on a kernel (its deep halo of k exchanged every k sweeps).
struct Blocking {
  int sweeps_per_launch = 0;  // 0: plain jacobi
  ps::BlockedKernel kernel = ps::BlockedKernel::automatic;
};

// Whether every block is at least k across where the grid is split.
bool deep_halo_fits(const pd::GridDecomposition& grid, int depth) {
  const auto& dims = grid.dims();
  return (dims[0] == 1 || (grid.global_rows() - 2) / dims[0] >= depth) &&
         (dims[1] == 1 || (grid.global_cols() - 2) / dims[1] >= depth);
}

template <class T>
void expect_distributed_equals_single_rank(const Case& c, const Blocking& blocking = {}) {
  if (c.dims[0] * c.dims[1] != 0 && c.dims[0] * c.dims[1] != world_size()) return;
  if (world_size() > (c.rows - 2) * (c.cols - 2)) return;
  const ps::Problem problem = ps::manufactured_problem(c.rows, c.cols);
  ps::SolverOptions options;
  options.method = ps::Method::jacobi;
  options.omega = c.omega;
  options.max_iterations = 230;
  options.check_every = 40;
  options.tolerance = 0;  // a fixed number of sweeps: the iterates must match exactly

  // The reference: plain Jacobi on one rank, one launch a sweep.
  const View2D<T> whole = ps::to_device<T>(problem.start, "whole");
  const ps::SolveReport single = ps::solve(whole, ps::to_device<T>(problem.rhs, "rhs"), options);
  const ps::HostGrid single_x = ps::to_host(whole);

  pd::GridDecomposition grid(MPI_COMM_WORLD, c.rows, c.cols, c.dims);
  if (blocking.sweeps_per_launch > 0) {
    if (!deep_halo_fits(grid, blocking.sweeps_per_launch)) return;
    options.method = ps::Method::jacobi_blocked;
    options.sweeps_per_launch = blocking.sweeps_per_launch;
    options.blocked_kernel = blocking.kernel;
  }
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
  if (blocking.sweeps_per_launch == 0) {
    EXPECT_EQ(halo.exchanges, options.max_iterations + 2);  // the start, every sweep, the re-check
  } else {
    // The start and the re-check, then per check interval one a round and
    // one for the check (the interval's first round reuses the last check's).
    const std::int64_t k = blocking.sweeps_per_launch, rounds_per_check = (options.check_every + k - 1) / k;
    const std::int64_t checks = options.max_iterations / options.check_every;
    const std::int64_t last = options.max_iterations - checks * options.check_every;
    const std::int64_t deep = 2 + checks * rounds_per_check + (last > 0 ? (last + k - 1) / k : 0);
    EXPECT_EQ(halo.exchanges, 2 + deep) << "k = " << k;
  }
}

const std::vector<Case> cases{
    {37, 53, 1.0, {0, 0}},  // uneven blocks
    {101, 9, 1.0, {0, 0}},  // tall and thin
    {6, 40, 1.0, {0, 0}},   // four interior rows: a rank may own one row
    {3, 30, 1.0, {0, 0}},   // one interior row: only column splits fit
    {30, 3, 0.8, {0, 0}},   // one interior column, weighted
    {24, 31, 0.9, {1, 0}},  // forced into a row of blocks (dims filled below)
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

// jacobi_blocked over ranks: the deep halo's rounds give plain Jacobi's bits
// for any split, on both blocked kernels, with rounds that do not divide the
// check interval (k = 3, 7 against 40) or exceed what is left (k = 8, 230).
template <class T>
void run_blocked_cases() {
  for (const Blocking blocking : {Blocking{3, ps::BlockedKernel::tiles}, Blocking{7, ps::BlockedKernel::tiles},
                                  Blocking{8, ps::BlockedKernel::registers}, Blocking{1, ps::BlockedKernel::automatic}})
    for (Case c : cases) {
      if (c.dims[0] == 1) c.dims[1] = world_size();
      expect_distributed_equals_single_rank<T>(c, blocking);
    }
  expect_distributed_equals_single_rank<T>(Case{70, 90, 0.9, {0, 0}}, Blocking{5, ps::BlockedKernel::automatic});
}

TEST(PoissonJacobiBlockedDistributed, FloatIteratesEqualPlainJacobiOnOneRankBitForBit) { run_blocked_cases<float>(); }
TEST(PoissonJacobiBlockedDistributed, DoubleIteratesEqualPlainJacobiOnOneRankBitForBit) { run_blocked_cases<double>(); }

// A workspace keeps the exchanges and local arrays between solves: solves
// from the same start give the bits of a solve without one, each call counts
// its own exchanges, and another depth makes new deep arrays that are right too.
template <class T>
void expect_workspace_reuse_gives_the_same_bits() {
  const Case c{37, 53, 1.0, {0, 0}};
  const ps::Problem problem = ps::manufactured_problem(c.rows, c.cols);
  pd::GridDecomposition grid(MPI_COMM_WORLD, c.rows, c.cols, c.dims);
  const auto block = [&](const ps::HostGrid& global, const char* label) {
    ps::HostGrid local(grid.rows_owned().count + 2, grid.cols_owned().count + 2);
    local.values = grid.local_block(global.values.data(), 1);
    return ps::to_device<T>(local, label);
  };
  const View2D<T> rhs = block(problem.rhs, "rhs");
  ps::DistributedWorkspace<T> workspace;
  std::int64_t calls = 0;
  for (const int k : {0, 3, 3, 5, 0}) {  // plain jacobi, then deep halos of 3, 3 again, 5
    ps::SolverOptions options;
    options.method = k == 0 ? ps::Method::jacobi : ps::Method::jacobi_blocked;
    options.sweeps_per_launch = std::max(k, 1);
    options.max_iterations = 60;
    options.check_every = 20;
    options.tolerance = 0;
    if (k > 0 && !deep_halo_fits(grid, k)) continue;
    const View2D<T> alone = block(problem.start, "alone"), kept = block(problem.start, "kept");
    ps::HaloStatistics alone_halo, kept_halo;
    ps::solve_distributed(grid, alone, rhs, options, {}, &alone_halo);
    ps::solve_distributed(grid, kept, rhs, options, {}, &kept_halo, &workspace);
    EXPECT_EQ(workspace.calls(), ++calls);
    EXPECT_EQ(kept_halo.exchanges, alone_halo.exchanges) << "k = " << k;
    const ps::HostGrid a = ps::to_host(alone), b = ps::to_host(kept);
    for (std::size_t i = 0; i < a.values.size(); ++i)
      ASSERT_EQ(static_cast<T>(b.values[i]), static_cast<T>(a.values[i])) << "k = " << k << ", point " << i;
  }
}

TEST(PoissonJacobiBlockedDistributed, AWorkspaceKeepsExchangesAndArraysBetweenSolves) {
  expect_workspace_reuse_gives_the_same_bits<float>();
  expect_workspace_reuse_gives_the_same_bits<double>();
}

TEST(PoissonJacobiBlockedDistributed, RefusesBlocksThinnerThanTheDeepHaloAndTheResidentKernel) {
  pd::GridDecomposition grid(MPI_COMM_WORLD, 12, 12);
  const View2D<double> x("x", grid.rows_owned().count + 2, grid.cols_owned().count + 2),
      rhs("rhs", x.extent(0), x.extent(1));
  ps::SolverOptions options;
  options.method = ps::Method::jacobi_blocked;
  options.sweeps_per_launch = 11;  // a 10x10 interior split anywhere leaves blocks thinner than 11
  if (grid.size() > 1) {
    try {
      ps::solve_distributed(grid, x, rhs, options);
      FAIL() << "a deep halo of 11 on blocks of " << grid.rows_owned().count << "x" << grid.cols_owned().count;
    } catch (const portasolve::OptionError& error) {
      EXPECT_EQ(error.option(), "sweeps_per_launch");
    }
  }
  options.sweeps_per_launch = 2;
  options.blocked_kernel = ps::BlockedKernel::resident;
  try {
    ps::solve_distributed(grid, x, rhs, options);
    FAIL() << "the resident kernel over ranks was accepted";
  } catch (const portasolve::OptionError& error) {
    EXPECT_EQ(error.option(), "blocked_kernel");
  }
}

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
  const ps::SolveReport report =
      ps::solve_distributed(grid, ps::to_device<double>(start, "x"), ps::to_device<double>(rhs, "rhs"), options);
  EXPECT_TRUE(report.converged);
  EXPECT_EQ(report.stop_reason, "tolerance");
  EXPECT_EQ(report.iterations, single.iterations);
  EXPECT_LE(report.relative_residual, 1e-3);
}

TEST(PoissonJacobiDistributed, RefusesMethodsAndBoundariesItCannotRun) {
  pd::GridDecomposition grid(MPI_COMM_WORLD, 12, 12);
  const View2D<double> x("x", grid.rows_owned().count + 2, grid.cols_owned().count + 2),
      rhs("rhs", x.extent(0), x.extent(1));
  // Refused with an OptionError naming `option`; `what` was asked for.
  const auto refused = [&](const ps::SolverOptions& options, const std::string& option, const std::string& what) {
    try {
      ps::solve_distributed(grid, x, rhs, options);
      ADD_FAILURE() << what << " over ranks was accepted";
    } catch (const portasolve::OptionError& error) {
      EXPECT_EQ(error.option(), option);
    }
  };
  ps::SolverOptions options;
  options.method = ps::Method::spectral;
  refused(options, "method", "spectral");
  options.method = ps::Method::jacobi;
  options.boundary = ps::Boundary::periodic;
  refused(options, "boundary", "a periodic boundary");
  options.boundary = ps::Boundary::dirichlet;
  const View2D<double> wrong("wrong", x.extent(0) + 1, x.extent(1));
  EXPECT_THROW(ps::solve_distributed(grid, wrong, rhs, options), std::invalid_argument);
}

namespace {

// Both solves to `tolerance`; x compared against the single-rank answer and
// against the exact discrete solution's residual, the histories early on.
template <class T>
void expect_cg_like_one_rank(std::int64_t rows, std::int64_t cols, ps::CgPreconditioner preconditioner,
                             double tolerance) {
  if (world_size() > (rows - 2) * (cols - 2)) return;
  const ps::Problem problem = ps::manufactured_problem(rows, cols);
  ps::SolverOptions options;
  options.method = ps::Method::cg;
  options.cg_preconditioner = preconditioner;
  options.tolerance = tolerance;
  options.check_every = 5;
  options.max_iterations = 5000;
  const View2D<T> whole = ps::to_device<T>(problem.start, "whole");
  const ps::SolveReport single = ps::solve(whole, ps::to_device<T>(problem.rhs, "rhs"), options);
  const ps::HostGrid single_x = ps::to_host(whole);

  pd::GridDecomposition grid(MPI_COMM_WORLD, rows, cols);
  ps::HostGrid start(grid.rows_owned().count + 2, grid.cols_owned().count + 2), rhs = start;
  start.values = grid.local_block(problem.start.values.data(), 1);
  rhs.values = grid.local_block(problem.rhs.values.data(), 1);
  const View2D<T> x = ps::to_device<T>(start, "x");
  const ps::SolveReport report = ps::solve_distributed(grid, x, ps::to_device<T>(rhs, "rhs"), options);
  const ps::HostGrid local_x = ps::to_host(x);

  EXPECT_TRUE(report.converged) << rows << "x" << cols << ": " << report.relative_residual;
  EXPECT_LE(report.relative_residual, tolerance);
  // Checks every 5 steps: one check apart at most.
  EXPECT_LE(std::abs(report.iterations - single.iterations), options.check_every) << rows << "x" << cols;
  // The first checks, before rounding differences grow: the same residuals.
  for (std::size_t k = 0; k < std::min<std::size_t>(3, std::min(report.history.size(), single.history.size())); ++k)
    EXPECT_NEAR(report.history[k].relative_residual, single.history[k].relative_residual,
                (sizeof(T) == 4 ? 1e-4 : 1e-9) * single.history[k].relative_residual);
  // Both answers solve the problem to the tolerance, so they differ by at
  // most about tolerance times the solution's scale (times the condition).
  double scale = 0, difference = 0;
  for (std::size_t i = 1; i + 1 < local_x.rows; ++i)
    for (std::size_t j = 1; j + 1 < local_x.cols; ++j) {
      const double one = single_x(grid.rows_owned().first + i - 1, grid.cols_owned().first + j - 1);
      scale = std::max(scale, std::abs(one));
      difference = std::max(difference, std::abs(local_x(i, j) - one));
    }
  MPI_Allreduce(MPI_IN_PLACE, &scale, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &difference, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  EXPECT_LE(difference, (sizeof(T) == 4 ? 1e-3 : 1e-7) * scale) << rows << "x" << cols;
}

}  // namespace

TEST(PoissonCgDistributed, DoubleReachesTheToleranceLikeOneRank) {
  expect_cg_like_one_rank<double>(41, 57, ps::CgPreconditioner::none, 1e-10);
  expect_cg_like_one_rank<double>(90, 7, ps::CgPreconditioner::jacobi, 1e-10);
  expect_cg_like_one_rank<double>(6, 33, ps::CgPreconditioner::none, 1e-10);
}

TEST(PoissonCgDistributed, FloatReachesTheToleranceLikeOneRank) {
  expect_cg_like_one_rank<float>(41, 57, ps::CgPreconditioner::none, 1e-5);
  expect_cg_like_one_rank<float>(33, 20, ps::CgPreconditioner::jacobi, 1e-5);
}
