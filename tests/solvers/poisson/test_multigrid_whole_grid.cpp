// Multigrid on the whole-grid boundaries (neumann, periodic): B = L X for a
// random X of zero weighted mean (tests/solvers/poisson/reference.hpp, the
// neighbour rule written there independently), so the answer is X itself;
// residuals measured on the host, per-cycle convergence factors, cycle
// counts that do not grow with the grid, odd periodic sizes (whose wrap needs
// the seam colour), every smoother and cycle shape, float, bad data.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "solvers/poisson/solver.hpp"
#include "tests/solvers/poisson/reference.hpp"

namespace portasolve::poisson {
namespace {

const Boundary whole_grid_boundaries[] = {Boundary::neumann, Boundary::periodic};

// Every solve: V(2,2) cycles on `boundary`.
SolverOptions multigrid_options(Boundary boundary, std::int64_t cycles, double tolerance) {
  return testing::multigrid_options(cycles, tolerance, boundary);
}

struct Solved {
  HostGrid x;
  SolveReport report;
  double host_relative_residual;  // ||B - L X|| / ||B|| from the host's own stencil
};

double norm(const HostGrid& grid) {
  double sum = 0;
  for (const double v : grid.values) sum += v * v;
  return std::sqrt(sum);
}

template <class T>
Solved solve_whole(const Problem& problem, const SolverOptions& options) {
  auto x = to_device<T>(problem.start, "x");
  const auto b = to_device<T>(problem.rhs, "b");
  Solved solved;
  solved.report = solve(x, b, options);
  solved.x = to_host(x);
  HostGrid residual = testing::whole_grid_laplacian(solved.x, options.boundary);
  for (std::size_t k = 0; k < residual.values.size(); ++k)
    residual.values[k] = problem.rhs.values[k] - residual.values[k];
  solved.host_relative_residual = norm(residual) / norm(problem.rhs);
  return solved;
}

double relative_difference(const HostGrid& got, const HostGrid& want) {
  double error = 0;
  for (std::size_t k = 0; k < want.values.size(); ++k)
    error += (got.values[k] - want.values[k]) * (got.values[k] - want.values[k]);
  return std::sqrt(error) / norm(want);
}

using testing::worst_factor;

struct Size {
  std::size_t rows, cols;
};

// Odd, even, non-square and thin grids; 33x17 and 101x37 are odd in both
// directions (periodic: a seam row and a seam column).
TEST(PoissonMultigridWholeGrid, ReturnsTheExactZeroMeanSolution) {
  for (const Boundary boundary : whole_grid_boundaries)
    for (const Size size : {Size{3, 3}, Size{5, 8}, Size{17, 33}, Size{64, 64}, Size{101, 37}, Size{4, 130},
                            Size{33, 17}, Size{200, 3}}) {
      const Problem problem =
          testing::whole_grid_problem(size.rows, size.cols, boundary, unsigned(size.rows * 31 + size.cols));
      const Solved solved = solve_whole<double>(problem, multigrid_options(boundary, 100, 1e-12));
      const std::string what = name_of(boundary) + " " + std::to_string(size.rows) + "x" + std::to_string(size.cols);
      EXPECT_TRUE(solved.report.converged) << what << " after " << solved.report.iterations << " cycles";
      EXPECT_EQ(solved.report.method, Method::multigrid) << what;
      EXPECT_LE(solved.host_relative_residual, 2e-12) << what;
      EXPECT_LE(relative_difference(solved.x, *problem.exact), 1e-8) << what;
    }
}

TEST(PoissonMultigridWholeGrid, VCycleReducesTheResidualTenfoldPerCycle) {
  for (const Boundary boundary : whole_grid_boundaries)
    for (const Size size : {Size{65, 65}, Size{64, 64}, Size{63, 64}, Size{129, 128}, Size{97, 33}}) {
      const Problem problem = testing::whole_grid_problem(size.rows, size.cols, boundary, 7);
      const Solved solved = solve_whole<double>(problem, multigrid_options(boundary, 8, 0));
      EXPECT_LE(worst_factor(solved.report), 0.15) << name_of(boundary) << " " << size.rows << "x" << size.cols;
    }
}

// Thin grids coarsen along their long side down to a line; a large
// poisson.multigrid.coarsest leaves a coarsest level relaxed by coloured
// sweeps over all threads: the rate is that of the square grids.
TEST(PoissonMultigridWholeGrid, ThinGridsAndLargeCoarsestLevelsKeepTheRate) {
  for (const Boundary boundary : whole_grid_boundaries) {
    for (const Size size : {Size{400, 5}, Size{5, 400}, Size{1000, 3}}) {
      const Problem problem = testing::whole_grid_problem(size.rows, size.cols, boundary, 3);
      const Solved solved = solve_whole<double>(problem, multigrid_options(boundary, 8, 0));
      EXPECT_LE(worst_factor(solved.report), 0.15) << name_of(boundary) << " " << size.rows << "x" << size.cols;
    }
    SolverOptions options = multigrid_options(boundary, 8, 0);
    options.multigrid.coarsest_size = 1024;  // 65^2 -> 33^2 -> 17^2 = 289 points: the parallel coarsest solve
    const Problem problem = testing::whole_grid_problem(65, 65, boundary, 4);
    const Solved solved = solve_whole<double>(problem, options);
    EXPECT_LE(worst_factor(solved.report), 0.15) << name_of(boundary) << " coarsest 1024";
    EXPECT_LE(solved.host_relative_residual, 1e-7) << name_of(boundary) << " coarsest 1024";
  }
}

TEST(PoissonMultigridWholeGrid, CycleCountDoesNotGrowWithTheGrid) {
  for (const Boundary boundary : whole_grid_boundaries) {
    std::vector<std::int64_t> cycles;
    for (const std::size_t n : {65, 128, 257, 512}) {
      const Problem problem = testing::whole_grid_problem(n, n, boundary, unsigned(n));
      const Solved solved = solve_whole<double>(problem, multigrid_options(boundary, 50, 1e-8));
      EXPECT_TRUE(solved.report.converged) << name_of(boundary) << " " << n;
      cycles.push_back(solved.report.iterations);
      std::cout << "multigrid V(2,2) rbgs " << name_of(boundary) << " " << n << "^2: " << solved.report.iterations
                << " cycles, worst factor " << worst_factor(solved.report) << "\n";
    }
    const auto [fewest, most] = std::minmax_element(cycles.begin(), cycles.end());
    EXPECT_LE(*most - *fewest, 2) << name_of(boundary);
  }
}

TEST(PoissonMultigridWholeGrid, EveryCycleShapeAndSmootherConverges) {
  for (const Boundary boundary : whole_grid_boundaries) {
    const Problem problem = testing::whole_grid_problem(41, 30, boundary, 5);
    for (const MultigridCycle cycle : {MultigridCycle::v, MultigridCycle::w, MultigridCycle::f})
      for (const MultigridSmoother smoother :
           {MultigridSmoother::rbgs, MultigridSmoother::jacobi, MultigridSmoother::chebyshev})
        for (const bool fmg : {false, true}) {
          if (fmg && cycle != MultigridCycle::v) continue;
          SolverOptions options = multigrid_options(boundary, 60, 1e-10);
          options.multigrid.cycle = cycle;
          options.multigrid.smoother = smoother;
          options.multigrid.fmg = fmg;
          const Solved solved = solve_whole<double>(problem, options);
          const std::string name =
              name_of(boundary) + " " + name_of(cycle) + " " + name_of(smoother) + (fmg ? " fmg" : "");
          EXPECT_TRUE(solved.report.converged) << name;
          EXPECT_LE(solved.host_relative_residual, 2e-10) << name;
          EXPECT_LE(worst_factor(solved.report), smoother == MultigridSmoother::rbgs ? 0.15 : 0.5) << name;
        }
  }
}

TEST(PoissonMultigridWholeGrid, FloatReachesItsTolerance) {
  for (const Boundary boundary : whole_grid_boundaries) {
    const Problem problem = testing::whole_grid_problem(96, 75, boundary, 11);
    const Solved solved = solve_whole<float>(problem, multigrid_options(boundary, 30, 1e-5));
    EXPECT_TRUE(solved.report.converged) << name_of(boundary);
    EXPECT_LE(solved.host_relative_residual, 2e-5) << name_of(boundary);
    EXPECT_LE(relative_difference(solved.x, *problem.exact), 1e-3) << name_of(boundary);
  }
}

// The gradient-domain rebuild (B = L image with the boundary's neighbours):
// the image minus its weighted mean, as the spectral method returns it.
TEST(PoissonMultigridWholeGrid, RebuildsTheImageAsTheSpectralMethodDoes) {
  const HostGrid image = testing::test_image(37, 52);
  for (const Boundary boundary : whole_grid_boundaries) {
    const Problem problem = whole_grid_reconstruction_problem(image, boundary);
    const Solved solved = solve_whole<double>(problem, multigrid_options(boundary, 60, 1e-13));
    EXPECT_TRUE(solved.report.converged) << name_of(boundary);
    EXPECT_LE(testing::max_abs_difference(solved.x, problem.exact.value()), 1e-8) << name_of(boundary);
  }
}

TEST(PoissonMultigridWholeGrid, IncompatibleDataIsAnInputError) {
  for (const Boundary boundary : whole_grid_boundaries) {
    Problem problem;
    problem.rhs = HostGrid(9, 12, 1.0);  // a constant source with nowhere to go
    problem.start = HostGrid(9, 12);
    try {
      solve_whole<double>(problem, multigrid_options(boundary, 10, 1e-8));
      ADD_FAILURE() << name_of(boundary) << ": no error";
    } catch (const InputError& error) {
      EXPECT_NE(std::string(error.what()).find("Poisson boundary " + name_of(boundary)), std::string::npos)
          << error.what();
    }
  }
}

}  // namespace
}  // namespace portasolve::poisson
