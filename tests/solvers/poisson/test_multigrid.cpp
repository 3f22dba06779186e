// Geometric multigrid: residuals measured by the host reference after the
// solve, per-cycle convergence factors, cycle counts that do not grow with the
// grid, every cycle shape and smoother, and the reconstruction's exact answer.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/errors.hpp"
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

using testing::multigrid_options;
using testing::worst_factor;

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

// Cycles to 1e-8 on grids 4x finer each time, 257^2 to 4097^2 (issue 20's
// range): multigrid's rate is the same on every grid, so the counts stay
// within two cycles of one another.
TEST(PoissonMultigrid, CycleCountDoesNotGrowWithTheGrid) {
  std::vector<std::int64_t> cycles;
  // Odd interiors all the way down, and even ones (the boundary's end distance at work).
  for (const std::size_t n : {257, 513, 1025, 2049, 4097, 256, 512, 1024}) {
    const Problem problem = random_problem(n, n, 3);
    const Solved solved = solve_on_device<double>(problem, multigrid_options(50, 1e-8));
    EXPECT_TRUE(solved.report.converged) << n;
    EXPECT_LE(solved.host_relative_residual, 1e-8) << n;
    EXPECT_LE(worst_factor(solved.report), 0.15) << n;
    std::cout << "multigrid V(2,2) rbgs " << n << "^2: " << solved.report.iterations << " cycles, worst factor "
              << worst_factor(solved.report) << "\n";
    cycles.push_back(solved.report.iterations);
  }
  const auto [fewest, most] = std::minmax_element(cycles.begin(), cycles.end());
  EXPECT_LE(*most - *fewest, 2);
  EXPECT_LE(*most, 12);
}

TEST(PoissonMultigrid, EveryCycleShapeAndSmootherConverges) {
  const Problem problem = random_problem(41, 30, 5);
  for (const MultigridCycle cycle : {MultigridCycle::v, MultigridCycle::w, MultigridCycle::f})
    for (const MultigridSmoother smoother :
         {MultigridSmoother::rbgs, MultigridSmoother::jacobi, MultigridSmoother::chebyshev})
      for (const bool fmg : {false, true}) {
        if (fmg && cycle != MultigridCycle::v) continue;  // the start is shared; keep the test short
        SolverOptions options = multigrid_options(40, 1e-10);
        options.multigrid.cycle = cycle;
        options.multigrid.smoother = smoother;
        options.multigrid.fmg = fmg;
        const Solved solved = solve_on_device<double>(problem, options);
        const std::string name = name_of(cycle) + " " + name_of(smoother) + (fmg ? " fmg" : "");
        EXPECT_TRUE(solved.report.converged) << name;
        EXPECT_LE(solved.host_relative_residual, 1e-10) << name;
        // Jacobi and Chebyshev smooth less per sweep than Gauss-Seidel, still at a grid-independent rate.
        EXPECT_LE(worst_factor(solved.report), smoother == MultigridSmoother::rbgs ? 0.15 : 0.5) << name;
        std::cout << name << ": " << solved.report.iterations << " cycles, worst factor " << worst_factor(solved.report)
                  << "\n";
      }
}

// A full multigrid start leaves less residual after one cycle than a V cycle from zero.
TEST(PoissonMultigrid, FullMultigridStartBeatsOneCycleFromZero) {
  const Problem problem = manufactured_problem(129, 129);
  SolverOptions options = multigrid_options(1, 0);
  const Solved plain = solve_on_device<double>(problem, options);
  options.multigrid.fmg = true;
  const Solved fmg = solve_on_device<double>(problem, options);
  EXPECT_LT(fmg.host_relative_residual, plain.host_relative_residual);
}

// B = L image: the discrete solution is the image itself.
TEST(PoissonMultigrid, ReconstructsTheImage) {
  for (const auto& [rows, cols] : {std::pair<std::size_t, std::size_t>{30, 45}, {64, 64}, {3, 40}}) {
    const Problem problem = reconstruction_problem(testing::test_image(rows, cols));
    const Solved solved = solve_on_device<double>(problem, multigrid_options(40, 1e-12));
    EXPECT_TRUE(solved.report.converged);
    EXPECT_LT(testing::max_abs_difference(solved.x, problem.exact.value()), 1e-8) << rows << "x" << cols;
    const Solved in_float = solve_on_device<float>(problem, multigrid_options(40, 1e-5));
    EXPECT_LT(testing::max_abs_difference(in_float.x, problem.exact.value()), 0.05) << rows << "x" << cols;
  }
}

// max_iterations counts cycles; every cycle is checked.
// The hierarchy of the last solve is kept for the next of the same grid and
// options: each solve must still be what a fresh hierarchy gives, whatever
// came before (other data, another grid, other options, a release).
TEST(PoissonMultigrid, RepeatedSolvesAreThoseOfAFreshHierarchy) {
  const Problem a = random_problem(65, 40, 11), b = random_problem(65, 40, 12), c = random_problem(30, 31, 13);
  const SolverOptions options = multigrid_options(4, 0);
  SolverOptions w_cycles = options;
  w_cycles.multigrid.cycle = MultigridCycle::w;
  release_workspaces();
  const Solved first_a = solve_on_device<double>(a, options);
  const Solved first_b = solve_on_device<double>(b, options);
  EXPECT_LT(first_a.host_relative_residual, 1e-3);
  EXPECT_LT(first_b.host_relative_residual, 1e-3);
  EXPECT_EQ(solve_on_device<double>(a, options).x.values, first_a.x.values);
  solve_on_device<double>(c, options);
  solve_on_device<double>(a, w_cycles);
  EXPECT_EQ(solve_on_device<double>(b, options).x.values, first_b.x.values);
  release_workspaces();
  EXPECT_EQ(solve_on_device<double>(a, options).x.values, first_a.x.values);
}

TEST(PoissonMultigrid, MaxIterationsStopsAfterThatManyCycles) {
  const Problem problem = random_problem(40, 40, 9);
  const Solved solved = solve_on_device<double>(problem, multigrid_options(3, 0));
  EXPECT_EQ(solved.report.iterations, 3);
  EXPECT_EQ(solved.report.stop_reason, "max_iterations");
  ASSERT_EQ(solved.report.history.size(), 4u);
  for (std::size_t k = 0; k < 4; ++k) EXPECT_EQ(solved.report.history[k].iteration, std::int64_t(k));
}

TEST(PoissonMultigrid, RejectsBadOptionsNamingThem) {
  const auto message = [](const SolverOptions& options) {
    try {
      check(options);
    } catch (const std::invalid_argument& error) {
      return std::string(error.what());
    }
    return std::string();
  };
  SolverOptions options = multigrid_options(10, 0);
  options.multigrid.pre_sweeps = -1;
  EXPECT_NE(message(options).find("pre_sweeps"), std::string::npos);
  options = multigrid_options(10, 0);
  options.multigrid.pre_sweeps = options.multigrid.post_sweeps = 0;
  EXPECT_NE(message(options).find("at least one smoothing sweep"), std::string::npos);
  options = multigrid_options(10, 0);
  options.multigrid.coarsest_size = 0;
  EXPECT_NE(message(options).find("coarsest"), std::string::npos);
  options = multigrid_options(10, 0);
  options.multigrid.jacobi_omega = 1.5;
  EXPECT_NE(message(options).find("jacobi_omega"), std::string::npos);
  options = multigrid_options(10, 0);
  options.multigrid.smoother = static_cast<MultigridSmoother>(7);
  EXPECT_NE(message(options).find("rbgs, jacobi, chebyshev"), std::string::npos);
  options = multigrid_options(10, 0);
  options.multigrid.cycle = static_cast<MultigridCycle>(7);
  EXPECT_NE(message(options).find("v, w, f"), std::string::npos);
  EXPECT_EQ(multigrid_cycle_from_name("w"), MultigridCycle::w);
  EXPECT_EQ(multigrid_smoother_from_name("chebyshev"), MultigridSmoother::chebyshev);
  EXPECT_THROW(multigrid_smoother_from_name("sor"), std::exception);
  EXPECT_EQ(method_from_name("multigrid"), Method::multigrid);
}

SolverOptions preconditioned_cg(CgPreconditioner preconditioner, std::int64_t steps, double tolerance) {
  SolverOptions options;
  options.method = Method::cg;
  options.cg_preconditioner = preconditioner;
  options.max_iterations = steps;
  options.tolerance = tolerance;
  options.check_every = 1;
  return options;
}

TEST(PoissonMultigridPreconditionedCg, ReachesTightTolerancesInFewSteps) {
  for (const auto& [rows, cols] : {std::pair<std::size_t, std::size_t>{129, 129}, {64, 48}, {1000, 3}, {5, 7}}) {
    const Problem problem = random_problem(rows, cols, 13);
    const Solved solved = solve_on_device<double>(problem, preconditioned_cg(CgPreconditioner::multigrid, 100, 1e-10));
    EXPECT_TRUE(solved.report.converged) << rows << "x" << cols;
    EXPECT_LE(solved.host_relative_residual, 1e-10) << rows << "x" << cols;
    EXPECT_LE(solved.report.iterations, 10) << rows << "x" << cols;
    // Each step cuts the residual by well over half (CG minimises the error's energy, not the residual).
    for (std::size_t k = 1; k < solved.report.history.size(); ++k)
      EXPECT_LT(solved.report.history[k].relative_residual, 0.5 * solved.report.history[k - 1].relative_residual)
          << rows << "x" << cols << " step " << k;
    std::cout << "multigrid-preconditioned cg " << rows << "x" << cols << ": " << solved.report.iterations
              << " steps to 1e-10\n";
  }
}

// With a symmetric positive definite M, preconditioned CG minimises the
// error's A-norm over a growing space: it falls at every step. The iterates
// approach the same answer as plain CG and the Jacobi-scaled CG.
TEST(PoissonMultigridPreconditionedCg, EnergyNormFallsEveryStepAndTheAnswerIsPlainCgs) {
  const Problem problem = reconstruction_problem(testing::test_image(40, 57));
  const HostGrid& exact = problem.exact.value();
  for (const MultigridSmoother smoother :
       {MultigridSmoother::rbgs, MultigridSmoother::jacobi, MultigridSmoother::chebyshev}) {
    double previous = testing::energy_norm(problem.start, exact);
    for (std::int64_t steps = 1; steps <= 6; ++steps) {
      SolverOptions options = preconditioned_cg(CgPreconditioner::multigrid, steps, 0);
      options.multigrid.smoother = smoother;
      const Solved solved = solve_on_device<double>(problem, options);
      const double error = testing::energy_norm(solved.x, exact);
      EXPECT_LT(error, previous) << name_of(smoother) << " step " << steps;
      previous = error;
    }
  }
  const Solved plain = solve_on_device<double>(problem, preconditioned_cg(CgPreconditioner::none, 1000, 1e-11));
  const Solved jacobi = solve_on_device<double>(problem, preconditioned_cg(CgPreconditioner::jacobi, 1000, 1e-11));
  const Solved mg = solve_on_device<double>(problem, preconditioned_cg(CgPreconditioner::multigrid, 1000, 1e-11));
  EXPECT_LT(testing::max_abs_difference(plain.x, mg.x), 1e-6);
  EXPECT_LT(testing::max_abs_difference(jacobi.x, mg.x), 1e-6);
  EXPECT_LT(testing::max_abs_difference(mg.x, exact), 1e-6);
  // A constant diagonal only scales the residual: Jacobi takes plain CG's steps.
  EXPECT_EQ(jacobi.report.iterations, plain.report.iterations);
  EXPECT_LT(mg.report.iterations * 5, plain.report.iterations);

  const Solved in_float = solve_on_device<float>(problem, preconditioned_cg(CgPreconditioner::multigrid, 100, 1e-5));
  EXPECT_TRUE(in_float.report.converged);
  EXPECT_LE(in_float.host_relative_residual, 1.5e-5);
}

// The matrix-free operator runs the preconditioned loop with its scalars on
// the device (q = A p carried along, beta applied in the next step's first
// kernel); the assembled one runs the textbook loop on Kokkos Kernels' BLAS.
// Same algorithm: the same residuals at every step to rounding, in double
// and in float (whose drift check restarts both from the true residual).
TEST(PoissonMultigridPreconditionedCg, DeviceScalarsFollowTheTextbookLoop) {
  const Problem problem = random_problem(67, 90, 5);
  for (const CgPreconditioner preconditioner : {CgPreconditioner::multigrid, CgPreconditioner::jacobi}) {
    const std::string name = name_of(preconditioner);
    const bool jacobi = preconditioner == CgPreconditioner::jacobi;  // plain CG's steps: many more
    SolverOptions options = preconditioned_cg(preconditioner, jacobi ? 150 : 8, 0);
    SolverOptions textbook = options;
    textbook.cg_operator = CgOperator::crs;
    const Solved fused = solve_on_device<double>(problem, options);
    const Solved reference = solve_on_device<double>(problem, textbook);
    ASSERT_EQ(fused.report.history.size(), reference.report.history.size()) << name;
    for (std::size_t k = 0; k < fused.report.history.size(); ++k)
      EXPECT_NEAR(fused.report.history[k].relative_residual, reference.report.history[k].relative_residual,
                  1e-9 * reference.report.history[k].relative_residual + 1e-15)
          << name << " step " << k;
    EXPECT_LT(fused.report.history.back().relative_residual, 1e-3 * fused.report.history.front().relative_residual)
        << name;
    double largest = 0;
    for (const double value : reference.x.values) largest = std::max(largest, std::abs(value));
    EXPECT_LT(testing::max_abs_difference(fused.x, reference.x), 1e-9 * largest) << name;

    SolverOptions in_float = preconditioned_cg(preconditioner, 400, jacobi ? 2e-5 : 2e-6);
    SolverOptions textbook_float = in_float;
    textbook_float.cg_operator = CgOperator::crs;
    const Solved fused_float = solve_on_device<float>(problem, in_float);
    const Solved reference_float = solve_on_device<float>(problem, textbook_float);
    EXPECT_TRUE(fused_float.report.converged) << name;
    // x rounded to float leaves a few 1e-6 of residual, whichever loop made it.
    EXPECT_LE(fused_float.host_relative_residual, 2 * reference_float.host_relative_residual + 1e-6) << name;
    std::cout << name << "-preconditioned cg in float to " << in_float.tolerance
              << ", device scalars / textbook: " << fused_float.report.iterations << " / "
              << reference_float.report.iterations << " steps, host residual " << fused_float.host_relative_residual
              << " / " << reference_float.host_relative_residual << "\n";
    EXPECT_NEAR(double(fused_float.report.iterations), double(reference_float.report.iterations), 2) << name;
  }
}

TEST(PoissonMultigridPreconditionedCg, OnlyCgTakesAPreconditioner) {
  SolverOptions options = preconditioned_cg(CgPreconditioner::multigrid, 10, 0);
  options.method = Method::cg_fused;
  try {
    check(options);
    ADD_FAILURE() << "a preconditioner was accepted for cg_fused";
  } catch (const OptionError& error) {
    EXPECT_EQ(error.option(), "cg_preconditioner") << error.what();
  }
  EXPECT_EQ(cg_preconditioner_from_name("multigrid"), CgPreconditioner::multigrid);
  // An unsymmetric cycle would void CG's guarantees: refused, naming both counts.
  SolverOptions unsymmetric = preconditioned_cg(CgPreconditioner::multigrid, 10, 0);
  unsymmetric.multigrid.post_sweeps = unsymmetric.multigrid.pre_sweeps + 1;
  try {
    check(unsymmetric);
    ADD_FAILURE() << "an unsymmetric multigrid preconditioner was accepted";
  } catch (const OptionError& error) {
    EXPECT_EQ(error.option(), "multigrid.post_sweeps") << error.what();
    EXPECT_NE(std::string(error.what()).find("pre_sweeps == post_sweeps"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace portasolve::poisson
