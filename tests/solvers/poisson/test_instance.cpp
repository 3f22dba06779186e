// solve(exec, ...) and residual_norm(exec, ...): a solve on an instance of
// its own (CUDA: a new non-blocking stream, tests/instance.hpp) gives the
// default instance's bits and report, for every method and kernel, in float
// and double, on a small odd-sized grid. The result is read with no fence at
// all (on CUDA a copy that does not wait for the instance's stream): solve()
// promises that on return x is complete. Solves alternate between the
// instance and the default one, so the spectral and multigrid workspaces kept
// between solves pass from one instance to the other.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "core/kokkos_session.hpp"
#include "solvers/poisson/detail/jacobi_resident.hpp"
#include "solvers/poisson/solver.hpp"
#include "tests/instance.hpp"
#include "tests/solvers/poisson/reference.hpp"

namespace portasolve::poisson {
namespace {

using namespace detail;  // the internals under test

using instance_tests::bit_differences;
using instance_tests::expect_same_members;
using instance_tests::OwnInstance;
using instance_tests::read_now;

SolverOptions iterations(Method method, std::int64_t count, std::int64_t check_every, double tolerance = 0) {
  SolverOptions options;
  options.method = method;
  options.max_iterations = count;
  options.check_every = check_every;
  options.tolerance = tolerance;
  return options;
}

constexpr std::size_t grid_rows = 37, grid_cols = 29;

// A solve the tests run on an instance and on the default one.
struct Case {
  std::string name;
  SolverOptions options;
};

std::vector<Case> cases() {
  std::vector<Case> all;
  const auto add = [&](const std::string& name, const SolverOptions& options) { all.push_back({name, options}); };
  // The neumann and periodic boundaries of a method, one case each.
  const auto add_whole_grid = [&](const std::string& name, Method method, int max_iterations) {
    for (const Boundary boundary : {Boundary::neumann, Boundary::periodic}) {
      SolverOptions whole = iterations(method, max_iterations, 1);
      whole.boundary = boundary;
      add(name + " " + name_of(boundary), whole);
    }
  };
  add("jacobi", iterations(Method::jacobi, 40, 10));
  SolverOptions weighted = iterations(Method::jacobi, 30, 7);
  weighted.omega = 0.8;
  add("jacobi omega 0.8", weighted);
  for (const BlockedKernel kernel : {BlockedKernel::tiles, BlockedKernel::registers, BlockedKernel::resident}) {
    SolverOptions blocked = iterations(Method::jacobi_blocked, 41, 10);
    blocked.blocked_kernel = kernel;
    blocked.sweeps_per_launch = 4;
    if (kernel == BlockedKernel::resident &&
        resident_geometry(grid_rows, grid_cols, blocked.sweeps_per_launch, compute_units()).tiles() == 0)
      continue;
    add("jacobi_blocked " + name_of(kernel), blocked);
  }
  for (const CgOperator op : {CgOperator::matrix_free, CgOperator::crs}) {
    SolverOptions cg = iterations(Method::cg, 30, 5);
    cg.cg_operator = op;
    add("cg " + name_of(op), cg);
  }
  // To a tolerance: the checks' restarts from the true residual, the stop on it.
  add("cg to tolerance", iterations(Method::cg, 1000, 5, 1e-6));
  for (const CgPreconditioner preconditioner : {CgPreconditioner::jacobi, CgPreconditioner::multigrid}) {
    SolverOptions cg = iterations(Method::cg, 8, 2);
    cg.cg_preconditioner = preconditioner;
    add("cg preconditioner " + name_of(preconditioner), cg);
  }
  for (const CgKernel kernel : {CgKernel::launches, CgKernel::resident}) {
    SolverOptions fused = iterations(Method::cg_fused, 30, 5);
    fused.cg_kernel = kernel;
    add("cg_fused " + name_of(kernel), fused);
    fused.max_iterations = 1000;
    fused.tolerance = 1e-6;
    add("cg_fused " + name_of(kernel) + " to tolerance", fused);
  }
  add("multigrid v rbgs", iterations(Method::multigrid, 4, 1));
  SolverOptions fmg = iterations(Method::multigrid, 3, 1);
  fmg.multigrid.fmg = true;
  fmg.multigrid.cycle = MultigridCycle::w;
  fmg.multigrid.smoother = MultigridSmoother::chebyshev;
  add("multigrid fmg w chebyshev", fmg);
  SolverOptions jacobi_smoother = iterations(Method::multigrid, 3, 1);
  jacobi_smoother.multigrid.cycle = MultigridCycle::f;
  jacobi_smoother.multigrid.smoother = MultigridSmoother::jacobi;
  add("multigrid f jacobi", jacobi_smoother);
  add_whole_grid("multigrid", Method::multigrid, 3);
  // A tolerance below float's reach: float runs its refinement solves.
  add("spectral dirichlet", iterations(Method::spectral, 3, 1, 1e-12));
  add_whole_grid("spectral", Method::spectral, 1);
  return all;
}

Problem problem_for(const SolverOptions& options) {
  const HostGrid image = testing::test_image(grid_rows, grid_cols);
  return options.boundary == Boundary::dirichlet ? reconstruction_problem(image)
                                                 : whole_grid_reconstruction_problem(image, options.boundary);
}

template <class T>
struct Outcome {
  SolveReport report;
  std::vector<T> x;
  double residual = 0, residual_with_boundary = 0;  // residual_norm afterwards, on the same instance
};

// Solves on exec, or on the default instance through the overload without
// one, and reads x at once.
template <class T>
Outcome<T> solve_once(const Problem& problem, const SolverOptions& options, const ExecSpace* exec) {
  const View2D<T> x = to_device<T>(problem.start, "x"), b = to_device<T>(problem.rhs, "b");
  Outcome<T> outcome;
  outcome.report = exec ? solve(*exec, x, b, options) : solve(x, b, options);
  outcome.x = read_now(x);
  outcome.residual = exec ? residual_norm(*exec, x, b) : residual_norm(x, b);
  outcome.residual_with_boundary =
      exec ? residual_norm(*exec, x, b, options.boundary) : residual_norm(x, b, options.boundary);
  return outcome;
}

template <class T>
void expect_same(const Outcome<T>& instance, const Outcome<T>& plain, const std::string& what) {
  EXPECT_EQ(bit_differences(instance.x, plain.x), 0) << what << ": points of x that differ";
  const SolveReport &a = instance.report, &b = plain.report;
  expect_same_members(a, b, what + ", report", &SolveReport::iterations, &SolveReport::relative_residual,
                      &SolveReport::reference_norm, &SolveReport::converged, &SolveReport::stop_reason,
                      &SolveReport::method);
  ASSERT_EQ(a.history.size(), b.history.size()) << what;
  for (std::size_t k = 0; k < a.history.size(); ++k)
    expect_same_members(a.history[k], b.history[k], what + " check " + std::to_string(k), &ResidualCheck::iteration,
                        &ResidualCheck::relative_residual);
  expect_same_members(instance, plain, what, &Outcome<T>::residual, &Outcome<T>::residual_with_boundary);
}

// The solve did real work, and the x read back is the one its report
// measured: its residual, summed here on the host in double, over the
// report's reference is the reported relative residual (dirichlet; the
// whole-grid boundaries' residuals have other neighbours).
template <class T>
void expect_real_solve(const Outcome<T>& outcome, const Problem& problem, const SolverOptions& options,
                       const std::string& what) {
  const SolveReport& report = outcome.report;
  EXPECT_GT(report.iterations, 0) << what;
  EXPECT_GT(report.reference_norm, 0) << what;
  EXPECT_LT(report.relative_residual, 0.5) << what;
  HostGrid x(grid_rows, grid_cols);
  for (std::size_t k = 0; k < x.values.size(); ++k) x.values[k] = static_cast<double>(outcome.x[k]);
  EXPECT_GT(testing::max_abs_difference(x, problem.start), 1.0) << what << ": x left as it started";
  if (options.boundary != Boundary::dirichlet) return;
  const double host_relative = testing::host_residual_norm(x, problem.rhs) / report.reference_norm;
  // cg's last check may take the norm of r rounded to T after a restart; in
  // float, r = b - A x itself carries rounding of ~eps_float (6e-8) of the
  // scale of b at each point, which reaches ~1e-9 of ||b|| (seen: 1.1e-9 with
  // two OpenMP threads on Kokkos 4.6), hence 1e-8 there.
  const double rounding = std::is_same<T, float>::value ? 1e-8 : 1e-9;
  EXPECT_NEAR(host_relative, report.relative_residual, rounding + 1e-5 * report.relative_residual) << what;
}

template <class T>
void expect_instance_solves_match_the_default(const char* type) {
  const std::vector<Case> all = cases();
  ASSERT_GE(all.size(), 21u);
  for (const Case& c : all) {
    const std::string what = c.name + " " + type;
    const Problem problem = problem_for(c.options);
    release_workspaces();  // the first solve builds any workspace on the instance
    const OwnInstance instance;
    const Outcome<T> first = solve_once<T>(problem, c.options, &instance.exec());
    const Outcome<T> plain = solve_once<T>(problem, c.options, nullptr);
    const Outcome<T> again = solve_once<T>(problem, c.options, &instance.exec());
    expect_real_solve(plain, problem, c.options, what);
    expect_same(first, plain, what + " (instance, fresh workspace)");
    expect_same(again, plain, what + " (instance, workspace from the default instance)");
  }
}

TEST(PoissonInstance, EveryMethodOnAnInstanceGivesTheDefaultBitsDouble) {
  expect_instance_solves_match_the_default<double>("double");
}
TEST(PoissonInstance, EveryMethodOnAnInstanceGivesTheDefaultBitsFloat) {
  expect_instance_solves_match_the_default<float>("float");
}

// Two instances alive at once, each solving its own grid in turn with the
// kernels that keep device scalars between launches: neither disturbs the
// other's results.
TEST(PoissonInstance, TwoInstancesInTurnKeepTheirOwnResults) {
  const OwnInstance one, two;
  for (const CgKernel kernel : {CgKernel::launches, CgKernel::resident}) {
    SolverOptions options = iterations(Method::cg_fused, 25, 5);
    options.cg_kernel = kernel;
    const Problem a = reconstruction_problem(testing::test_image(grid_rows, grid_cols));
    const Problem b = reconstruction_problem(testing::test_image(grid_cols + 2, grid_rows));
    const Outcome<double> a_plain = solve_once<double>(a, options, nullptr);
    const Outcome<double> b_plain = solve_once<double>(b, options, nullptr);
    EXPECT_GT(a_plain.report.iterations, 0);
    EXPECT_GT(b_plain.report.iterations, 0);
    for (int round = 0; round < 3; ++round) {
      expect_same(solve_once<double>(a, options, &one.exec()), a_plain, "grid a on instance one " + name_of(kernel));
      expect_same(solve_once<double>(b, options, &two.exec()), b_plain, "grid b on instance two " + name_of(kernel));
    }
  }
}

// The problem helpers' instance overloads: an upload and a read back on the
// test's own instance give the grid itself (double) and its rounding
// (float), and a solve between them on the instance the default path's x.
TEST(PoissonInstance, ProblemCopiesOnAnInstanceRoundTrip) {
  const OwnInstance instance;
  const ExecSpace& exec = instance.exec();
  const Problem problem = reconstruction_problem(testing::test_image(grid_rows, grid_cols));
  EXPECT_EQ(to_host(exec, to_device<double>(exec, problem.start, "x")).values, problem.start.values);
  const HostGrid rounded = to_host(exec, to_device<float>(exec, problem.rhs, "b"));
  ASSERT_EQ(rounded.values.size(), problem.rhs.values.size());
  for (std::size_t k = 0; k < rounded.values.size(); ++k)
    ASSERT_EQ(rounded.values[k], double(float(problem.rhs.values[k]))) << "entry " << k;
  const SolverOptions options = iterations(Method::multigrid, 2, 1);
  const View2D<double> x = to_device<double>(exec, problem.start, "x");
  const View2D<double> b = to_device<double>(exec, problem.rhs, "b");
  solve(exec, x, b, options);
  const HostGrid on_instance = to_host(exec, x);
  const Outcome<double> plain = solve_once<double>(problem, options, nullptr);
  EXPECT_EQ(bit_differences(on_instance.values, plain.x), 0);
}

}  // namespace
}  // namespace portasolve::poisson
