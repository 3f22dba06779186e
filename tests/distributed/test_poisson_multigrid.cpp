// Multigrid over MPI ranks against multigrid on one rank, run by every rank
// on the whole grid in the same test: a fixed number of cycles gives the
// single-rank iterate bit for bit for any rank count and split (levels split
// as deep as the blocks allow, or gathered at once; every smoother and cycle
// shape; full multigrid), the residual histories agree to rounding, and a
// solve to a tolerance stops after the same cycles.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

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

struct Grid {
  std::int64_t rows, cols;
};

// Solves on one rank and over the ranks with the same options; returns the
// distributed report and expects the iterates equal bit for bit (else to
// `relative` of the solution's largest value).
template <class T>
ps::SolveReport expect_like_one_rank(const Grid& g, const ps::SolverOptions& options, ps::SolveReport* single_report,
                                     pd::HaloStatistics* halo, double relative = 0) {
  const ps::Problem problem = ps::manufactured_problem(g.rows, g.cols);
  const View2D<T> whole = ps::to_device<T>(problem.start, "whole");
  *single_report = ps::solve(whole, ps::to_device<T>(problem.rhs, "rhs"), options);
  const ps::HostGrid single_x = ps::to_host(whole);

  pd::GridDecomposition grid(MPI_COMM_WORLD, g.rows, g.cols);
  ps::HostGrid start(grid.rows_owned().count + 2, grid.cols_owned().count + 2), rhs = start;
  start.values = grid.local_block(problem.start.values.data(), 1);
  rhs.values = grid.local_block(problem.rhs.values.data(), 1);
  const View2D<T> x = ps::to_device<T>(start, "x");
  const ps::SolveReport report = ps::solve_distributed(grid, x, ps::to_device<T>(rhs, "rhs"), options, {}, halo);
  const ps::HostGrid local_x = ps::to_host(x);
  double scale = 0;
  for (const double v : single_x.values) scale = std::max(scale, std::abs(v));
  int mismatches = 0;
  for (std::size_t i = 1; i + 1 < local_x.rows; ++i)
    for (std::size_t j = 1; j + 1 < local_x.cols; ++j) {
      const std::size_t gi = grid.rows_owned().first + i - 1, gj = grid.cols_owned().first + j - 1;
      const bool same = relative == 0 ? static_cast<T>(local_x(i, j)) == static_cast<T>(single_x(gi, gj))
                                      : std::abs(local_x(i, j) - single_x(gi, gj)) <= relative * scale;
      if (!same && mismatches++ < 3)
        ADD_FAILURE() << g.rows << "x" << g.cols << " at (" << gi << ", " << gj << ") on rank " << grid.rank() << ": "
                      << local_x(i, j) << " over ranks, " << single_x(gi, gj) << " on one";
    }
  return report;
}

template <class T>
void expect_fixed_cycles_equal_one_rank(const Grid& g, ps::MultigridOptions mg, const std::string& what) {
  if (world_size() > (g.rows - 2) * (g.cols - 2)) return;
  ps::SolverOptions options;
  options.method = ps::Method::multigrid;
  options.multigrid = mg;
  options.max_iterations = 3;
  options.tolerance = 0;  // a fixed number of cycles: the iterates must match exactly
  ps::SolveReport single;
  pd::HaloStatistics halo;
  SCOPED_TRACE(what + " on " + std::to_string(g.rows) + "x" + std::to_string(g.cols));
  const ps::SolveReport report = expect_like_one_rank<T>(g, options, &single, &halo);
  EXPECT_EQ(report.iterations, single.iterations);
  ASSERT_EQ(report.history.size(), single.history.size());
  for (std::size_t k = 0; k < report.history.size(); ++k)
    EXPECT_NEAR(report.history[k].relative_residual, single.history[k].relative_residual,
                1e-12 * single.history[k].relative_residual + 1e-300);
  // Multigrid's own exchanges beside the residual checks' (2 + a cycle's).
  if (world_size() > 1 && mg.coarsest_size < (g.rows - 2) * (g.cols - 2)) {
    EXPECT_GT(halo.exchanges, 2 + options.max_iterations);
  }
}

const std::vector<Grid> grids{
    {37, 53},   // uneven blocks, odd and even lines
    {101, 9},   // tall and thin: semi-coarsening along the rows first
    {6, 40},    // four interior rows: a rank may own one row
    {3, 30},    // one interior row: column splits only
    {66, 66},   // even interior lines: the last coarse point next to the boundary
    {130, 98},  // several split levels before the gathered one
};

template <class T>
void run_fixed_cycle_cases() {
  for (const Grid& g : grids)
    for (const int gather : {4096, 1}) {  // gathered at once, or split as deep as the blocks allow
      ps::MultigridOptions mg;
      mg.gather_size = gather;
      expect_fixed_cycles_equal_one_rank<T>(g, mg, "V(2,2) red-black, gather " + std::to_string(gather));
    }
  const Grid g{70, 83};
  ps::MultigridOptions mg;
  mg.gather_size = 1;
  mg.cycle = ps::MultigridCycle::w;
  expect_fixed_cycles_equal_one_rank<T>(g, mg, "W cycle");
  mg.cycle = ps::MultigridCycle::f;
  mg.fmg = true;
  expect_fixed_cycles_equal_one_rank<T>(g, mg, "F cycle, full multigrid start");
  mg = ps::MultigridOptions{};
  mg.gather_size = 1;
  mg.smoother = ps::MultigridSmoother::jacobi;
  mg.pre_sweeps = 3;
  mg.post_sweeps = 1;
  expect_fixed_cycles_equal_one_rank<T>(g, mg, "weighted Jacobi smoother");
  mg.smoother = ps::MultigridSmoother::chebyshev;
  expect_fixed_cycles_equal_one_rank<T>(g, mg, "Chebyshev smoother");
  mg = ps::MultigridOptions{};
  mg.coarsest_size = 4096;  // one level: the whole grid relaxed on every rank
  expect_fixed_cycles_equal_one_rank<T>(Grid{20, 31}, mg, "one level");
}

}  // namespace

TEST(PoissonMultigridDistributed, FloatCyclesEqualOneRankBitForBit) { run_fixed_cycle_cases<float>(); }
TEST(PoissonMultigridDistributed, DoubleCyclesEqualOneRankBitForBit) { run_fixed_cycle_cases<double>(); }

TEST(PoissonMultigridDistributed, ReachesTheToleranceAfterTheCyclesOneRankTakes) {
  ps::SolverOptions options;
  options.method = ps::Method::multigrid;
  options.tolerance = 1e-10;
  options.max_iterations = 50;
  options.multigrid.gather_size = 64;
  const Grid g{129, 129};
  ps::SolveReport single;
  pd::HaloStatistics halo;
  const ps::SolveReport report = expect_like_one_rank<double>(g, options, &single, &halo);
  EXPECT_TRUE(report.converged);
  EXPECT_EQ(report.stop_reason, "tolerance");
  EXPECT_LE(report.relative_residual, 1e-10);
  EXPECT_EQ(report.iterations, single.iterations);
  // Multigrid's rate: a tenth or better per cycle.
  EXPECT_LE(report.iterations, 10);
  // The same iterate (checked above), its norm summed in another order.
  EXPECT_NEAR(report.relative_residual, single.relative_residual, 1e-6 * single.relative_residual);
}

// cg with a multigrid cycle as preconditioner over the ranks: the cycle is
// one rank's bit for bit, CG's dot products are summed in another order, so
// the same tolerance within a check and the same answer to rounding.
template <class T>
void expect_multigrid_cg_like_one_rank(const Grid& g, int gather, double tolerance) {
  ps::SolverOptions options;
  options.method = ps::Method::cg;
  options.cg_preconditioner = ps::CgPreconditioner::multigrid;
  options.multigrid.gather_size = gather;
  options.tolerance = tolerance;
  options.check_every = 1;
  options.max_iterations = 100;
  ps::SolveReport single;
  pd::HaloStatistics halo;
  SCOPED_TRACE("multigrid-preconditioned cg, gather " + std::to_string(gather));
  const ps::SolveReport report = expect_like_one_rank<T>(g, options, &single, &halo, sizeof(T) == 4 ? 1e-4 : 1e-8);
  EXPECT_TRUE(report.converged) << report.relative_residual;
  EXPECT_LE(report.relative_residual, tolerance);
  EXPECT_LE(std::abs(report.iterations - single.iterations), 1);
  EXPECT_LE(report.iterations, 20);  // a multigrid-preconditioned rate, not plain CG's hundreds
  for (std::size_t k = 0; k < std::min<std::size_t>(3, std::min(report.history.size(), single.history.size())); ++k)
    EXPECT_NEAR(report.history[k].relative_residual, single.history[k].relative_residual,
                (sizeof(T) == 4 ? 1e-4 : 1e-9) * single.history[k].relative_residual);
  if (world_size() > 1) {
    EXPECT_GT(halo.exchanges, 10 * report.iterations);  // the cycles' own exchanges
  }
}

TEST(PoissonMultigridDistributed, PreconditionsCgLikeOneRank) {
  expect_multigrid_cg_like_one_rank<double>(Grid{129, 97}, 1, 1e-10);
  expect_multigrid_cg_like_one_rank<double>(Grid{40, 61}, 4096, 1e-10);
  expect_multigrid_cg_like_one_rank<float>(Grid{90, 70}, 1, 1e-5);
}

// A workspace keeps the hierarchy between solves: solves with it give the
// bits and exchange counts of solves without, through changes of options
// (another gather size, the preconditioner, back to the first).
TEST(PoissonMultigridDistributed, AWorkspaceKeepsTheHierarchyBetweenSolves) {
  const Grid g{70, 83};
  const ps::Problem problem = ps::manufactured_problem(g.rows, g.cols);
  pd::GridDecomposition grid(MPI_COMM_WORLD, g.rows, g.cols);
  const auto block = [&](const ps::HostGrid& global, const char* label) {
    ps::HostGrid local(grid.rows_owned().count + 2, grid.cols_owned().count + 2);
    local.values = grid.local_block(global.values.data(), 1);
    return ps::to_device<double>(local, label);
  };
  const View2D<double> rhs = block(problem.rhs, "rhs");
  ps::DistributedWorkspace<double> workspace;
  struct Step {
    ps::Method method;
    int gather;
  };
  for (const Step step : {Step{ps::Method::multigrid, 1}, Step{ps::Method::multigrid, 1}, Step{ps::Method::cg, 1},
                          Step{ps::Method::multigrid, 4096}, Step{ps::Method::cg, 1}, Step{ps::Method::multigrid, 1}}) {
    ps::SolverOptions options;
    options.method = step.method;
    if (step.method == ps::Method::cg) options.cg_preconditioner = ps::CgPreconditioner::multigrid;
    options.multigrid.gather_size = step.gather;
    options.max_iterations = 4;
    options.tolerance = 0;
    const View2D<double> alone = block(problem.start, "alone"), kept = block(problem.start, "kept");
    pd::HaloStatistics alone_halo, kept_halo;
    const ps::SolveReport a = ps::solve_distributed(grid, alone, rhs, options, {}, &alone_halo);
    const ps::SolveReport b = ps::solve_distributed(grid, kept, rhs, options, {}, &kept_halo, &workspace);
    EXPECT_EQ(kept_halo.exchanges, alone_halo.exchanges);
    EXPECT_EQ(b.relative_residual, a.relative_residual);
    const ps::HostGrid x_alone = ps::to_host(alone), x_kept = ps::to_host(kept);
    for (std::size_t i = 0; i < x_alone.values.size(); ++i)
      ASSERT_EQ(x_kept.values[i], x_alone.values[i]) << ps::name_of(step.method) << ", point " << i;
  }
  EXPECT_EQ(workspace.calls(), 6);
}

TEST(PoissonMultigridDistributed, RefusesOtherBoundariesAndBadGatherSizes) {
  pd::GridDecomposition grid(MPI_COMM_WORLD, 12, 12);
  const View2D<double> x("x", grid.rows_owned().count + 2, grid.cols_owned().count + 2),
      rhs("rhs", x.extent(0), x.extent(1));
  ps::SolverOptions options;
  options.method = ps::Method::multigrid;
  options.boundary = ps::Boundary::periodic;
  try {
    ps::solve_distributed(grid, x, rhs, options);
    ADD_FAILURE() << "a periodic multigrid over ranks was accepted";
  } catch (const portasolve::OptionError& error) {
    EXPECT_EQ(error.option(), "boundary");
  }
  options.boundary = ps::Boundary::dirichlet;
  options.multigrid.gather_size = 0;
  try {
    ps::solve_distributed(grid, x, rhs, options);
    ADD_FAILURE() << "gather_size 0 was accepted";
  } catch (const portasolve::OptionError& error) {
    EXPECT_EQ(error.option(), "multigrid.gather_size");
  }
}
