// Conjugate gradients (Kokkos Kernels matrix-free and CrsMatrix, fused, and
// the Jacobi-preconditioned loop with its scalars on the device, whose
// constant diagonal gives plain CG's iterates): tolerance reached on the true
// residual, the A-norm of the error decreasing step by step, and all variants
// following the same iterates.
#include <gtest/gtest.h>

#include <string>

#include "core/errors.hpp"
#include "core/kokkos_session.hpp"
#include "solvers/poisson/solver.hpp"
#include "tests/solvers/poisson/reference.hpp"

namespace portasolve::poisson {
namespace {

using testing::energy_norm;

struct Variant {
  Method method;
  CgOperator cg_operator;
  CgKernel cg_kernel;
  CgPreconditioner preconditioner = CgPreconditioner::none;
};
const Variant variants[] = {{Method::cg, CgOperator::matrix_free, CgKernel::automatic},
                            {Method::cg, CgOperator::crs, CgKernel::automatic},
                            {Method::cg_fused, CgOperator::matrix_free, CgKernel::launches},
                            {Method::cg_fused, CgOperator::matrix_free, CgKernel::resident},
                            {Method::cg, CgOperator::matrix_free, CgKernel::automatic, CgPreconditioner::jacobi}};

std::string name_of(const Variant& variant) {
  return poisson::name_of(variant.method) + " " + poisson::name_of(variant.cg_operator) + " " +
         poisson::name_of(variant.cg_kernel) + " " + poisson::name_of(variant.preconditioner);
}

template <class T>
HostGrid run_cg(const Problem& problem, Variant variant, std::int64_t steps, double tolerance,
                SolveReport* report = nullptr) {
  SolverOptions options;
  options.method = variant.method;
  options.cg_operator = variant.cg_operator;
  options.cg_kernel = variant.cg_kernel;
  options.cg_preconditioner = variant.preconditioner;
  options.max_iterations = steps;
  options.tolerance = tolerance;
  options.check_every = 5;
  auto x = to_device<T>(problem.start, "x");
  const auto b = to_device<T>(problem.rhs, "b");
  const SolveReport r = solve(x, b, options);
  if (report) *report = r;
  return to_host(x);
}

TEST(PoissonCg, ReachesToleranceOnTheTrueResidual) {
  const Problem problem = reconstruction_problem(testing::test_image(30, 45));
  const double reference = testing::host_residual_norm(problem.start, problem.rhs);
  for (const Variant variant : variants) {
    SolveReport report;
    const HostGrid x = run_cg<double>(problem, variant, 10000, 1e-10, &report);
    EXPECT_TRUE(report.converged) << name_of(variant);
    EXPECT_EQ(report.stop_reason, "tolerance");
    EXPECT_LE(testing::host_residual_norm(x, problem.rhs) / reference, 1e-10);
    // The discrete solution is the image: CG needs far fewer steps than points.
    EXPECT_LT(report.iterations, 300);
    EXPECT_LT(testing::max_abs_difference(x, problem.exact.value()), 1e-6);

    const HostGrid x_float = run_cg<float>(problem, variant, 10000, 1e-5, &report);
    EXPECT_TRUE(report.converged) << name_of(variant) << " float";
    EXPECT_LE(testing::host_residual_norm(x_float, problem.rhs) / reference, 1.5e-5);
  }
}

// CG minimises ||x - x*||_A over a growing Krylov space: the error's A-norm
// must fall at every step. x* is the image (B was built from it). Every
// variant runs the same arithmetic up to rounding, so the iterates agree.
TEST(PoissonCg, EnergyNormOfTheErrorDecreasesEveryStep) {
  const Problem problem = reconstruction_problem(testing::test_image(17, 23));
  const HostGrid& exact = problem.exact.value();
  for (const Variant variant : variants) {
    double previous = energy_norm(problem.start, exact);
    for (std::int64_t steps = 1; steps <= 40; ++steps) {
      const HostGrid x = run_cg<double>(problem, variant, steps, 0);
      const double error = energy_norm(x, exact);
      EXPECT_LT(error, previous) << name_of(variant) << " step " << steps;
      previous = error;
      const HostGrid textbook = run_cg<double>(problem, variants[0], steps, 0);
      EXPECT_LT(testing::max_abs_difference(x, textbook), 1e-9 * 255);
    }
  }
}

TEST(PoissonCg, ManufacturedErrorShrinksWithTheGridSquared) {
  double previous_error = 0;
  for (const std::size_t n : {17, 33, 65}) {
    const Problem problem = manufactured_problem(n, n + n / 2);  // non-square
    SolveReport report;
    const HostGrid x = run_cg<double>(problem, variants[2], 100000, 1e-13, &report);
    ASSERT_TRUE(report.converged);
    const double error = testing::max_abs_difference(x, problem.exact.value());
    if (previous_error > 0) {
      EXPECT_GT(previous_error / error, 3.5) << n;  // O(h^2): 4 when h halves
      EXPECT_LT(previous_error / error, 4.5) << n;
    }
    previous_error = error;
  }
}

// The resident kernel's teams split the interior into runs of points that
// cross rows, and it launches once per check: on grids down to one interior
// point, and over several checks, it follows the launched steps.
TEST(PoissonCg, ResidentFollowsTheLaunchedSteps) {
  const std::pair<std::size_t, std::size_t> shapes[] = {{3, 3}, {3, 40}, {40, 3}, {31, 47}};
  for (const auto& [rows, cols] : shapes) {
    const Problem problem = reconstruction_problem(testing::test_image(rows, cols));
    for (const std::int64_t steps : {1, 7, 26}) {
      const HostGrid launched = run_cg<double>(problem, variants[2], steps, 0);
      const HostGrid resident = run_cg<double>(problem, variants[3], steps, 0);
      EXPECT_LT(testing::max_abs_difference(launched, resident), 1e-9 * 255) << rows << "x" << cols << " " << steps;
      EXPECT_GT(testing::max_abs_difference(launched, problem.start), 1e-3) << "no step was taken";
    }
  }
}

// 26 resident cg_fused steps on `problem`, in float (`single`) or double.
HostGrid run_resident(const Problem& problem, bool single) {
  return single ? run_cg<float>(problem, variants[3], 26, 0) : run_cg<double>(problem, variants[3], 26, 0);
}

// A resident wait that gives up (after one poll, through the environment's
// patience) ends in the documented stall error, never in a result; a solve
// whose teams never had to give up equals the same resident solve without
// the limit bit for bit (its sums run in a fixed order).
TEST(PoissonCg, ResidentStallIsAnErrorNeverANumber) {
  if (compute_units() < 2) GTEST_SKIP() << "one team: no team ever waits";
  const Problem problem = reconstruction_problem(testing::test_image(31, 47));
  int stalled = 0;
  for (const bool single : {false, true}) {
    const HostGrid patient = run_resident(problem, single);
    testing::ScopedEnvironment impatient("PORTASOLVE_RESIDENT_PATIENCE", "1");
    for (int attempt = 0; attempt < 4; ++attempt) {
      try {
        const HostGrid x = run_resident(problem, single);
        EXPECT_EQ(testing::max_abs_difference(x, patient), 0.0) << (single ? "float" : "double") << " " << attempt;
      } catch (const SolverError& error) {
        EXPECT_NE(std::string(error.what()).find("did not all run at once"), std::string::npos) << error.what();
        ++stalled;
      }
    }
  }
  ::testing::Test::RecordProperty("stalled_attempts", stalled);
}

// A team that falls behind (held back before it reads the other teams'
// partials, so the rest run ahead into the next phase and publish their next
// partials) must sum the same values: the solution stays bit for bit the
// on-time one. On CUDA the partials once shared memory between the two
// reductions' rows, and a late team summed a neighbour's next partial.
TEST(PoissonCg, ResidentSumsStayWhenATeamFallsBehind) {
  if (compute_units() < 2) GTEST_SKIP() << "one team: no team ever waits";
  const Problem problem = reconstruction_problem(testing::test_image(31, 47));
  constexpr const char* lag = "200000";  // GPU clock cycles (~0.1 ms) or host nanoseconds, each barrier
  for (const bool single : {false, true}) {
    const HostGrid on_time = run_resident(problem, single);
    testing::ScopedEnvironment late("PORTASOLVE_RESIDENT_LAG", lag);
    const HostGrid behind = run_resident(problem, single);
    EXPECT_EQ(testing::max_abs_difference(behind, on_time), 0.0) << (single ? "float" : "double");
    EXPECT_GT(testing::max_abs_difference(on_time, problem.start), 1e-3) << "no step was taken";
  }
}

// The solution is re-checked from scratch after the last check: an x that
// no longer gives the residual the check measured (here changed by the
// check's own callback, after it was recorded) is an error, not an answer.
TEST(PoissonCg, FinalResidualIsRecheckedFromScratch) {
  const Problem problem = reconstruction_problem(testing::test_image(31, 47));
  for (const Variant variant : variants) {
    SolverOptions options;
    options.method = variant.method;
    options.cg_operator = variant.cg_operator;
    options.cg_kernel = variant.cg_kernel;
    options.cg_preconditioner = variant.preconditioner;
    options.max_iterations = 20;
    options.check_every = 10;
    auto x = to_device<double>(problem.start, "x");
    const auto b = to_device<double>(problem.rhs, "b");
    EXPECT_NO_THROW(solve(x, b, options)) << name_of(variant);
    x = to_device<double>(problem.start, "x");
    const CheckCallback corrupt = [&](const ResidualCheck& check) {
      if (check.iteration == options.max_iterations) Kokkos::deep_copy(Kokkos::subview(x, 15, 20), 1e6);
    };
    EXPECT_THROW(solve(x, b, options, corrupt), SolverError) << name_of(variant);
  }
}

TEST(PoissonCg, StopsCleanlyWhenTheResidualIsExactlyZero) {
  // A linear function solves L X = 0 exactly; starting from it leaves r = 0.
  Problem problem = manufactured_problem(9, 9);
  for (std::size_t i = 0; i < 9; ++i)
    for (std::size_t j = 0; j < 9; ++j) problem.start(i, j) = double(i) + 2.0 * double(j);
  problem.rhs = HostGrid(9, 9);
  for (const Variant variant : variants) {
    SolveReport report;
    const HostGrid x = run_cg<double>(problem, variant, 20, 0, &report);
    EXPECT_EQ(testing::max_abs_difference(x, problem.start), 0.0) << name_of(variant);
    EXPECT_TRUE(std::isfinite(report.relative_residual));
  }
}

}  // namespace
}  // namespace portasolve::poisson

namespace portasolve::poisson {
namespace {

// cg keeps its vectors, matrix and multigrid preconditioner for the next
// solve of the same grid and options: each solve must still be what a fresh
// workspace gives, whatever came before (other data, another grid, a release).
TEST(PoissonCg, RepeatedSolvesAreThoseOfAFreshWorkspace) {
  const Problem a = reconstruction_problem(testing::test_image(30, 45));
  const Problem b = manufactured_problem(30, 45), c = manufactured_problem(17, 20);
  struct Setting {
    CgPreconditioner preconditioner;
    CgOperator cg_operator;
  };
  for (const Setting setting :
       {Setting{CgPreconditioner::none, CgOperator::crs}, Setting{CgPreconditioner::jacobi, CgOperator::matrix_free},
        Setting{CgPreconditioner::multigrid, CgOperator::matrix_free}}) {
    SolverOptions options;
    options.method = Method::cg;
    options.cg_preconditioner = setting.preconditioner;
    options.cg_operator = setting.cg_operator;
    options.max_iterations = 40;
    options.tolerance = 0;
    options.check_every = 7;
    // float: its dot products overflow (below) where the double reference norm does not.
    const auto solved = [&](const Problem& problem) {
      auto x = to_device<float>(problem.start, "x");
      solve(x, to_device<float>(problem.rhs, "b"), options);
      return to_host(x).values;
    };
    const std::string name = poisson::name_of(setting.preconditioner);
    release_workspaces();
    const std::vector<double> first_a = solved(a);
    const std::vector<double> after_a = solved(b);  // on a's kept workspace
    EXPECT_EQ(solved(a), first_a) << name;
    solved(c);
    release_workspaces();
    EXPECT_EQ(solved(b), after_a) << name;
    EXPECT_NE(first_a, after_a) << name;
    // A solve that overflows (r r infinite in float, alpha NaN: NaN on the
    // vectors' rings) and fails leaves nothing behind for the next.
    Problem overflow = b;
    for (double& value : overflow.rhs.values) value *= 1e20;
    try {
      solved(overflow);  // stops at a breakdown or as not finite
    } catch (const SolverError&) {
    }
    EXPECT_EQ(solved(b), after_a) << name;
  }
}

}  // namespace
}  // namespace portasolve::poisson
