// Problem builders and the solve interface's bookkeeping.
#include <gtest/gtest.h>

#include <cmath>
#include <csignal>

#include "core/errors.hpp"
#include "core/interrupt.hpp"
#include "solvers/poisson/solver.hpp"
#include "tests/solvers/poisson/reference.hpp"

namespace portasolve::poisson {
namespace {

TEST(PoissonProblem, ReconstructionRhsIsTheImagesLaplacianAndTheImageSolvesIt) {
  const HostGrid image = testing::test_image(11, 14);
  const Problem problem = reconstruction_problem(image);
  EXPECT_EQ(testing::host_residual_norm(image, problem.rhs), 0.0);
  for (std::size_t i = 0; i < image.rows; ++i)
    for (std::size_t j = 0; j < image.cols; ++j) {
      const bool ring = i == 0 || j == 0 || i + 1 == image.rows || j + 1 == image.cols;
      EXPECT_EQ(problem.start(i, j), ring ? image(i, j) : 0.0);
    }
  // The device residual of the exact solution is zero too, in both precisions.
  EXPECT_EQ(residual_norm(to_device<double>(image, "x"), to_device<double>(problem.rhs, "b")), 0.0);
}

TEST(PoissonProblem, ManufacturedRhsApproximatesTheContinuousLaplacian) {
  const Problem problem = manufactured_problem(41, 61);
  const HostGrid& u = problem.exact.value();
  const double h = 1.0 / 60;
  EXPECT_DOUBLE_EQ(u(3, 5), manufactured_solution(5 * h, 3 * h));
  // h^2 (Laplacian of u) vs the 5-point stencil of the samples: O(h^4) apart.
  double worst = 0;
  for (std::size_t i = 1; i + 1 < u.rows; ++i)
    for (std::size_t j = 1; j + 1 < u.cols; ++j)
      worst = std::max(worst, std::fabs(testing::stencil(u, i, j) - problem.rhs(i, j)));
  EXPECT_LT(worst, 5 * std::pow(h, 4) * std::pow(M_PI, 4) * 25);
  EXPECT_GT(worst, 0.0);
}

TEST(PoissonProblem, AManufacturedWindowHoldsTheWholeProblemsValuesThere) {
  // Over MPI ranks each rank builds its block and ring only (rows 4-12, columns 20-40 of 23 x 47).
  const Problem whole = manufactured_problem(23, 47);
  const GridWindow window{4, 9, 20, 21};
  const Problem part = manufactured_problem(23, 47, window);
  ASSERT_EQ(part.rhs.rows, 9u);
  ASSERT_EQ(part.rhs.cols, 21u);
  for (std::size_t i = 0; i < window.rows; ++i)
    for (std::size_t j = 0; j < window.cols; ++j) {
      const std::size_t gi = window.first_row + i, gj = window.first_col + j;
      EXPECT_EQ(part.exact.value()(i, j), whole.exact.value()(gi, gj));
      EXPECT_EQ(part.rhs(i, j), whole.rhs(gi, gj));
      // The start: u on the window's ring (the boundary where that is the grid's), zero inside.
      const bool ring = i == 0 || j == 0 || i + 1 == window.rows || j + 1 == window.cols;
      EXPECT_EQ(part.start(i, j), ring ? whole.exact.value()(gi, gj) : 0.0);
    }
  EXPECT_THROW(manufactured_problem(23, 47, GridWindow{20, 4, 0, 5}), std::invalid_argument);
}

TEST(PoissonProblem, BadInputsAreInputErrors) {
  HostGrid image = testing::test_image(8, 8);
  image(3, 4) = std::nan("");
  EXPECT_THROW(reconstruction_problem(image), InputError);
  EXPECT_THROW(reconstruction_problem(HostGrid(2, 10)), InputError);
  EXPECT_THROW(manufactured_problem(10, 2), InputError);
}

TEST(PoissonProblem, NonFiniteIterationIsASolverError) {
  // A huge right-hand side overflows float: the solve must say so, not return inf.
  const Problem problem = reconstruction_problem(testing::test_image(10, 10));
  HostGrid rhs = problem.rhs;
  for (double& v : rhs.values) v *= 1e37;
  auto x = to_device<float>(problem.start, "x");
  auto b = to_device<float>(rhs, "b");
  SolverOptions options;
  options.max_iterations = 50;
  options.check_every = 10;
  for (const Method method : {Method::jacobi, Method::cg_fused}) {
    options.method = method;
    Kokkos::deep_copy(x, to_device<float>(problem.start, "x0"));
    EXPECT_THROW(solve(x, b, options), SolverError) << name_of(method);
  }
}

TEST(PoissonProblem, CallbackSeesEveryCheckAndCanAbandonTheSolve) {
  const Problem problem = manufactured_problem(12, 12);
  auto x = to_device<double>(problem.start, "x");
  const auto b = to_device<double>(problem.rhs, "b");
  SolverOptions options;
  options.max_iterations = 25;
  options.check_every = 10;
  std::vector<std::int64_t> seen;
  const SolveReport report = solve(x, b, options, [&](const ResidualCheck& c) { seen.push_back(c.iteration); });
  EXPECT_EQ(seen, (std::vector<std::int64_t>{0, 10, 20, 25}));
  EXPECT_EQ(report.history.size(), 4u);
  struct Stop {};
  EXPECT_THROW(solve(x, b, options,
                     [](const ResidualCheck& c) {
                       if (c.iteration == 10) throw Stop{};
                     }),
               Stop);
}

// Building a large problem takes seconds on the host: Ctrl-C must stop it
// there, not after the whole setup (24.6 s for a 16384^2 grid).
TEST(PoissonProblem, SetupStopsOnCtrlC) {
  const HostGrid image = testing::test_image(11, 14);
  {
    const InterruptHandler handler;
    std::raise(SIGINT);  // the handler only records the request
    EXPECT_THROW(manufactured_problem(40, 30), Interrupted);
    EXPECT_THROW(reconstruction_problem(image), Interrupted);
    EXPECT_THROW(to_device<double>(image, "poisson_test_grid"), Interrupted);
  }
  const InterruptHandler fresh;  // clears the request for the tests after this one
  EXPECT_NO_THROW(manufactured_problem(40, 30));
}

}  // namespace
}  // namespace portasolve::poisson
