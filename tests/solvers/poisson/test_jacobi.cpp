// Jacobi, plain and blocked, against the float64 host loop; blocked == plain.
#include <gtest/gtest.h>

#include <cmath>
#include <iterator>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>

#include "core/errors.hpp"
#include "core/grid_range.hpp"
#include "core/kokkos_session.hpp"
#include "solvers/poisson/detail/jacobi_resident.hpp"
#include "solvers/poisson/detail/stencil.hpp"
#include "solvers/poisson/solver.hpp"
#include "tests/solvers/poisson/reference.hpp"

namespace portasolve::poisson {
namespace {

using namespace detail;  // the internals under test

using testing::host_jacobi;
using testing::max_abs_difference;
using testing::random_grid;

template <class T>
HostGrid run(const HostGrid& start, const HostGrid& rhs, SolverOptions options, SolveReport* report = nullptr) {
  auto x = to_device<T>(start, "x");
  const auto b = to_device<T>(rhs, "b");
  const SolveReport r = solve(x, b, options);
  if (report) *report = r;
  return to_host(x);
}

SolverOptions sweeps(Method method, std::int64_t count, double omega = 1) {
  SolverOptions options;
  options.method = method;
  options.max_iterations = count;
  options.check_every = 7;
  options.omega = omega;
  return options;
}

TEST(PoissonJacobi, MatchesHostLoopOnNonSquareGridWithBoundaryValues) {
  const HostGrid start = random_grid(13, 21, 1), rhs = random_grid(13, 21, 2);
  for (const double omega : {1.0, 0.8}) {
    const HostGrid expected = host_jacobi(start, rhs, 25, omega);
    EXPECT_LT(max_abs_difference(run<double>(start, rhs, sweeps(Method::jacobi, 25, omega)), expected), 1e-13);
    EXPECT_LT(max_abs_difference(run<float>(start, rhs, sweeps(Method::jacobi, 25, omega)), expected), 2e-6);
  }
}

// The blocked kernel runs the same updates in the same order: equal to
// rounding for tiles that do and do not divide the grid, sweep counts that are
// and are not multiples of k, and k larger than a tile.
template <class T>
void expect_blocked_equals_plain(double tolerance) {
  const HostGrid start = random_grid(37, 29, 3), rhs = random_grid(37, 29, 4);
  struct Shape {
    int k, tile_rows, tile_cols;
    std::int64_t sweeps;
    double omega;
  };
  for (const Shape shape : {Shape{4, 8, 8, 23, 1.0}, Shape{3, 5, 16, 9, 1.0}, Shape{8, 4, 4, 17, 0.7},
                            Shape{1, 32, 32, 5, 1.0}, Shape{6, 16, 16, 30, 1.0}, Shape{2, 0, 0, 7, 1.0}}) {
    SolverOptions blocked = sweeps(Method::jacobi_blocked, shape.sweeps, shape.omega);
    blocked.sweeps_per_launch = shape.k;
    blocked.tile_rows = shape.tile_rows;
    blocked.tile_cols = shape.tile_cols;
    const HostGrid plain = run<T>(start, rhs, sweeps(Method::jacobi, shape.sweeps, shape.omega));
    EXPECT_LE(max_abs_difference(run<T>(start, rhs, blocked), plain), tolerance)
        << "k=" << shape.k << " tile " << shape.tile_rows << "x" << shape.tile_cols << " sweeps " << shape.sweeps;
    EXPECT_LT(max_abs_difference(plain, host_jacobi(start, rhs, shape.sweeps, shape.omega)), 1e3 * tolerance + 1e-12);
  }
}

// The update every sweep uses, (up + down + left + right) * 1/4 - B/4, against
// the textbook (up + down + left + right - B) / 4 summed in the same order:
// scaling by 4 is exact, so both round alike, bit for bit, over magnitudes
// from 2^-20 to 2^20 (results far from the subnormal range).
template <class T>
void expect_quartered_update_rounds_as_textbook() {
  std::mt19937 generator(17);
  std::uniform_real_distribution<double> mantissa(-1.0, 1.0);
  std::uniform_int_distribution<int> exponent(-20, 20);
  const auto draw = [&] { return static_cast<T>(std::ldexp(mantissa(generator), exponent(generator))); };
  int differ = 0;
  for (int n = 0; n < 200000; ++n) {
    const T up = draw(), down = draw(), left = draw(), right = draw(), rhs = draw();
    const volatile T textbook = (up + down + left + right - rhs) / T(4);
    differ += jacobi_update(T(0), up, down, left, right, rhs, T(1), false) != textbook;
  }
  EXPECT_EQ(differ, 0);
}

TEST(PoissonJacobi, QuarteredUpdateRoundsAsTextbookFloat) { expect_quartered_update_rounds_as_textbook<float>(); }
TEST(PoissonJacobi, QuarteredUpdateRoundsAsTextbookDouble) { expect_quartered_update_rounds_as_textbook<double>(); }

TEST(PoissonJacobi, BlockedEqualsPlainDouble) { expect_blocked_equals_plain<double>(4e-15); }
TEST(PoissonJacobi, BlockedEqualsPlainFloat) { expect_blocked_equals_plain<float>(2e-6f); }

// Register bands update each point from the same neighbours in the same
// order as the plain sweep: equal bit for bit (omega = 1; a weighted sweep
// to rounding, as a compiler may contract its multiply-add in one kernel and
// not the other). Grids of one band and of several (hosts: 7 bands of 48
// columns at k = 8; GPUs: 3 of 112), strips that do and do not divide the
// rows, the last launch shorter than k.
template <class T>
void expect_register_bands_equal_plain(double weighted_tolerance) {
  struct Shape {
    int rows, cols, k, strip_rows;
    std::int64_t sweeps;
    double omega;
  };
  for (const Shape shape : {Shape{37, 29, 4, 0, 23, 1.0}, Shape{37, 29, 1, 5, 9, 1.0}, Shape{40, 300, 8, 16, 17, 1.0},
                            Shape{40, 300, 3, 7, 11, 0.7}, Shape{19, 150, 8, 0, 8, 1.0}}) {
    const HostGrid start = random_grid(shape.rows, shape.cols, 6), rhs = random_grid(shape.rows, shape.cols, 7);
    SolverOptions bands = sweeps(Method::jacobi_blocked, shape.sweeps, shape.omega);
    bands.blocked_kernel = BlockedKernel::registers;
    bands.sweeps_per_launch = shape.k;
    bands.tile_rows = shape.strip_rows;
    const HostGrid plain = run<T>(start, rhs, sweeps(Method::jacobi, shape.sweeps, shape.omega));
    EXPECT_LE(max_abs_difference(run<T>(start, rhs, bands), plain), shape.omega == 1 ? 0.0 : weighted_tolerance)
        << shape.rows << "x" << shape.cols << " k=" << shape.k << " strip " << shape.strip_rows;
  }
}

TEST(PoissonJacobi, RegisterBandsEqualPlainDouble) { expect_register_bands_equal_plain<double>(4e-15); }
TEST(PoissonJacobi, RegisterBandsEqualPlainFloat) { expect_register_bands_equal_plain<float>(2e-6f); }

// Resident tiles: grids of one tile and of several (hosts: one 64x64 region
// a thread, 2 tiles; GPUs: 5 to 20 tiles of a few warps, so halos cross
// corners), rounds that do and do not divide the sweeps, several launches
// (check_every 7), k = 1. Each case runs only where its tiles can all be
// resident at once (a one-thread host runs the one-tile case).
template <class T>
void expect_resident_tiles_equal_plain(double weighted_tolerance) {
  struct Shape {
    int rows, cols, k;
    std::int64_t sweeps;
    double omega;
  };
  int ran = 0;
  for (const Shape shape : {Shape{37, 29, 4, 23, 1.0}, Shape{40, 90, 8, 30, 1.0}, Shape{21, 60, 1, 5, 1.0},
                            Shape{60, 110, 3, 11, 0.7}, Shape{30, 60, 16, 40, 1.0}}) {
    if (resident_geometry(shape.rows, shape.cols, shape.k, compute_units()).tiles() == 0) continue;
    ++ran;
    const HostGrid start = random_grid(shape.rows, shape.cols, 8), rhs = random_grid(shape.rows, shape.cols, 9);
    SolverOptions resident = sweeps(Method::jacobi_blocked, shape.sweeps, shape.omega);
    resident.blocked_kernel = BlockedKernel::resident;
    resident.sweeps_per_launch = shape.k;
    const HostGrid plain = run<T>(start, rhs, sweeps(Method::jacobi, shape.sweeps, shape.omega));
    EXPECT_LE(max_abs_difference(run<T>(start, rhs, resident), plain), shape.omega == 1 ? 0.0 : weighted_tolerance)
        << shape.rows << "x" << shape.cols << " k=" << shape.k;
  }
  EXPECT_GE(ran, compute_units() >= 2 ? 5 : 1);
}

TEST(PoissonJacobi, ResidentTilesEqualPlainDouble) { expect_resident_tiles_equal_plain<double>(4e-15); }
TEST(PoissonJacobi, ResidentTilesEqualPlainFloat) { expect_resident_tiles_equal_plain<float>(2e-6f); }

// A resident wait that gives up (here after one poll, through the
// environment's patience) must end in the documented stall error: never a
// result, right or wrong, taken from a launch whose teams stopped waiting.
// Teams that found their neighbours done in time may still finish a solve:
// then it must equal the plain sweeps bit for bit.
template <class T>
void expect_resident_stall_is_an_error_or_exact() {
  if (resident_geometry(40, 90, 8, compute_units()).tiles() < 2) GTEST_SKIP() << "one tile: no team ever waits";
  const HostGrid start = random_grid(40, 90, 10), rhs = random_grid(40, 90, 11);
  SolverOptions resident = sweeps(Method::jacobi_blocked, 64, 1.0);
  resident.blocked_kernel = BlockedKernel::resident;
  resident.sweeps_per_launch = 8;
  resident.check_every = 64;  // one launch of 8 rounds: 7 exchanges, each a wait
  const HostGrid plain = run<T>(start, rhs, sweeps(Method::jacobi, 64, 1.0));
  testing::ScopedEnvironment impatient("PORTASOLVE_RESIDENT_PATIENCE", "1");
  int stalled = 0;
  for (int attempt = 0; attempt < 8; ++attempt) {
    try {
      EXPECT_EQ(max_abs_difference(run<T>(start, rhs, resident), plain), 0.0) << "attempt " << attempt;
    } catch (const SolverError& error) {
      EXPECT_NE(std::string(error.what()).find("did not all run at once"), std::string::npos) << error.what();
      ++stalled;
    }
  }
  ::testing::Test::RecordProperty("stalled_attempts", stalled);
}

TEST(PoissonJacobi, ResidentStallIsAnErrorOrExactDouble) { expect_resident_stall_is_an_error_or_exact<double>(); }
TEST(PoissonJacobi, ResidentStallIsAnErrorOrExactFloat) { expect_resident_stall_is_an_error_or_exact<float>(); }

TEST(PoissonJacobi, ResidentGeometryCoversTheGridWithTheFewestWarps) {
  for (const int k : {1, 4, 16}) {
    const ResidentGeometry g = resident_geometry(266, 400, k, 132);
    ASSERT_GT(g.tiles(), 0) << k;
    EXPECT_LE(g.tiles(), 132);
    EXPECT_GE(g.tiles_down * g.tile_rows(), 264);
    EXPECT_GE(g.tiles_across * g.tile_cols(), 398);
    EXPECT_GE(std::min(g.tile_rows(), g.tile_cols()), k);
    if (g.warps > 1) {
      ResidentGeometry fewer = g;
      --fewer.warps;
      const auto needed = [](int extent, int tile) { return tile < 1 ? 1 << 30 : (extent + tile - 1) / tile; };
      EXPECT_TRUE(fewer.tile_rows() < k || needed(264, fewer.tile_rows()) * needed(398, fewer.tile_cols()) > 132) << k;
    }
  }
  EXPECT_EQ(resident_geometry(266, 400, 22, 132).tiles(), 0);  // the halo would pass the next tile
  EXPECT_EQ(resident_geometry(2000, 2000, 8, 132).tiles(), 0);
}

TEST(PoissonJacobi, AutomaticBlockedKernel) {
  const std::int64_t large = 8192, medium = 1000, small = 100;
  SolverOptions options = sweeps(Method::jacobi_blocked, 10);
  EXPECT_EQ(chosen_blocked_kernel(options, large, large),
            host_execution ? BlockedKernel::tiles : BlockedKernel::registers);
  EXPECT_EQ(chosen_blocked_kernel(options, small, small),
            host_execution ? BlockedKernel::tiles : BlockedKernel::resident);
  EXPECT_EQ(chosen_blocked_kernel(options, medium, medium), BlockedKernel::tiles);
  options.sweeps_per_launch = register_band_sweeps + 1;
  EXPECT_EQ(chosen_blocked_kernel(options, large, large), BlockedKernel::tiles);
  options.sweeps_per_launch = 4;
  options.tile_cols = 16;
  EXPECT_EQ(chosen_blocked_kernel(options, large, large), BlockedKernel::tiles);
  options.tile_cols = 0;
  options.blocked_kernel = BlockedKernel::tiles;
  EXPECT_EQ(chosen_blocked_kernel(options, large, large), BlockedKernel::tiles);
  options.blocked_kernel = BlockedKernel::registers;
  EXPECT_EQ(chosen_blocked_kernel(options, small, small), BlockedKernel::registers);
}

// I - A/4 is symmetric with spectral radius < 1, so each sweep shrinks the
// residual's 2-norm: the recorded history must decrease, and its entries must
// be the residuals of the iterates the host loop produces.
TEST(PoissonJacobi, ResidualHistoryDecreasesAndMatchesHost) {
  const HostGrid image = testing::test_image(24, 40);
  const Problem problem = reconstruction_problem(image);
  SolveReport report;
  SolverOptions options = sweeps(Method::jacobi_blocked, 200);
  options.check_every = 20;
  options.sweeps_per_launch = 6;
  run<double>(problem.start, problem.rhs, options, &report);
  ASSERT_EQ(report.history.size(), 11u);
  const double reference = testing::host_residual_norm(problem.start, problem.rhs);
  EXPECT_NEAR(report.reference_norm, reference, 1e-12 * reference);
  EXPECT_EQ(report.history.front().relative_residual, 1.0);
  for (std::size_t k = 1; k < report.history.size(); ++k) {
    const auto& check = report.history[k];
    EXPECT_EQ(check.iteration, std::int64_t(20 * k));
    EXPECT_LT(check.relative_residual, report.history[k - 1].relative_residual);
    const double host =
        testing::host_residual_norm(host_jacobi(problem.start, problem.rhs, check.iteration), problem.rhs);
    EXPECT_NEAR(check.relative_residual, host / reference, 1e-10);
  }
  EXPECT_EQ(report.iterations, 200);
  EXPECT_EQ(report.stop_reason, "max_iterations");
  EXPECT_FALSE(report.converged);
}

TEST(PoissonJacobi, StopsAtTheFirstCheckBelowTolerance) {
  const Problem problem = manufactured_problem(12, 12);
  SolverOptions options = sweeps(Method::jacobi, 100000);
  options.tolerance = 1e-3;
  options.check_every = 10;
  SolveReport report;
  run<double>(problem.start, problem.rhs, options, &report);
  ASSERT_TRUE(report.converged);
  EXPECT_EQ(report.stop_reason, "tolerance");
  EXPECT_LE(report.relative_residual, 1e-3);
  ASSERT_GE(report.history.size(), 2u);
  EXPECT_GT(report.history[report.history.size() - 2].relative_residual, 1e-3);
  EXPECT_EQ(report.iterations % 10, 0);
}

TEST(PoissonJacobi, RejectsBadOptionsAndExtents) {
  const HostGrid grid = random_grid(9, 9, 5);
  // Refused with an OptionError naming the field at fault.
  const auto fails = [&](SolverOptions options, const std::string& option, const HostGrid& on) {
    try {
      run<double>(on, on, options);
      ADD_FAILURE() << "accepted; expected an error about " << option;
    } catch (const OptionError& error) {
      EXPECT_EQ(error.option(), option) << error.what();
    }
  };
  // Each case changes sweeps(method, 3).
  struct Refused {
    Method method;
    void (*change)(SolverOptions&);
    const char* option;
  };
  const Refused refused[] = {
      {Method::jacobi, [](SolverOptions& o) { o.omega = 0; }, "omega"},
      {Method::jacobi, [](SolverOptions& o) { o.omega = 1.5; }, "omega"},
      {Method::jacobi_blocked, [](SolverOptions& o) { o.tile_rows = -1; }, "tile_rows"},
      {Method::jacobi_blocked,
       [](SolverOptions& o) {
         o.tile_rows = o.tile_cols = 200;  // far more team scratch than any backend allows
         o.sweeps_per_launch = 100;
       },
       "sweeps_per_launch"},
      {Method::jacobi, [](SolverOptions& o) { o.check_every = 0; }, "check_every"},
      {Method::jacobi_blocked,
       [](SolverOptions& o) {
         o.blocked_kernel = BlockedKernel::registers;
         o.sweeps_per_launch = register_band_sweeps + 1;
       },
       "blocked_kernel"},
      {Method::jacobi_blocked,
       [](SolverOptions& o) {
         o.blocked_kernel = BlockedKernel::registers;
         o.sweeps_per_launch = 2;
         o.tile_cols = 8;
       },
       "blocked_kernel"},
      {Method::jacobi_blocked,
       [](SolverOptions& o) {
         o.blocked_kernel = BlockedKernel::resident;
         o.tile_rows = 8;
       },
       "blocked_kernel"},
  };
  for (std::size_t k = 0; k < std::size(refused); ++k) {
    SCOPED_TRACE("case " + std::to_string(k));
    SolverOptions options = sweeps(refused[k].method, 3);
    refused[k].change(options);
    fails(options, refused[k].option, grid);
  }
  // One more tile than the device runs at once (4 sweeps a round: 56 columns a tile).
  SolverOptions options = sweeps(Method::jacobi_blocked, 3);
  options.blocked_kernel = BlockedKernel::resident;
  options.sweeps_per_launch = 4;
  fails(options, "blocked_kernel", random_grid(9, 2 + 56 * (compute_units() + 1), 5));

  auto x = to_device<double>(grid, "x");
  const auto small_rhs = to_device<double>(random_grid(8, 9, 6), "b");
  EXPECT_THROW(solve(x, small_rhs, sweeps(Method::jacobi, 1)), std::invalid_argument);
  auto tiny = to_device<double>(random_grid(2, 9, 7), "tiny");
  EXPECT_THROW(solve(tiny, tiny, sweeps(Method::jacobi, 1)), std::invalid_argument);
}

}  // namespace
}  // namespace portasolve::poisson
