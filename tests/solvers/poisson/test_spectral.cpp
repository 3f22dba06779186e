// The spectral method: the Dirichlet problem solved directly, compared with a
// long double solve of its own here (the DST-I diagonalisation by direct
// sums) and with the 5-point residual, for random data on odd, even and
// non-square grids, in double and float.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <utility>
#include <vector>

#include "core/errors.hpp"
#include "fft/fft.hpp"
#include "solvers/poisson/detail/spectral_columns.hpp"
#include "solvers/poisson/solver.hpp"
#include "tests/solvers/poisson/reference.hpp"

namespace portasolve::poisson {
namespace {

const long double pi = 3.141592653589793238462643383279502884L;

// S[p][i] = sin(pi (p+1)(i+1) / (k+1)), the k-point DST-I matrix (symmetric).
std::vector<std::vector<long double>> sine_matrix(std::size_t k) {
  std::vector<std::vector<long double>> s(k, std::vector<long double>(k));
  for (std::size_t p = 0; p < k; ++p)
    for (std::size_t i = 0; i < k; ++i) s[p][i] = std::sin(pi * (p + 1) * (i + 1) / (k + 1));
  return s;
}

// S_m A S_n for an m x n interior.
std::vector<std::vector<long double>> both_sides(const std::vector<std::vector<long double>>& a,
                                                 const std::vector<std::vector<long double>>& sm,
                                                 const std::vector<std::vector<long double>>& sn) {
  const std::size_t m = sm.size(), n = sn.size();
  std::vector<std::vector<long double>> left(m, std::vector<long double>(n)), out = left;
  for (std::size_t p = 0; p < m; ++p)
    for (std::size_t i = 0; i < m; ++i)
      for (std::size_t j = 0; j < n; ++j) left[p][j] += sm[p][i] * a[i][j];
  for (std::size_t p = 0; p < m; ++p)
    for (std::size_t j = 0; j < n; ++j)
      for (std::size_t q = 0; q < n; ++q) out[p][q] += left[p][j] * sn[j][q];
  return out;
}

// The exact discrete solution, in long double: U = S (S B' S / (lambda_p +
// lambda_q)) S (2/(m+1)) (2/(n+1)), B' = B minus the ring's contributions.
HostGrid reference_solution(const HostGrid& start, const HostGrid& rhs) {
  const std::size_t m = rhs.rows - 2, n = rhs.cols - 2;
  const auto ring = [&](std::size_t i, std::size_t j) -> long double {
    return i == 0 || j == 0 || i + 1 == rhs.rows || j + 1 == rhs.cols ? start(i, j) : 0;
  };
  std::vector<std::vector<long double>> folded(m, std::vector<long double>(n));
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j)
      folded[i][j] = rhs(i + 1, j + 1) - ring(i, j + 1) - ring(i + 2, j + 1) - ring(i + 1, j) - ring(i + 1, j + 2);
  const auto sm = sine_matrix(m), sn = sine_matrix(n);
  auto coefficients = both_sides(folded, sm, sn);
  for (std::size_t p = 0; p < m; ++p)
    for (std::size_t q = 0; q < n; ++q)
      coefficients[p][q] /= 2 * std::cos(pi * (p + 1) / (m + 1)) - 2 + 2 * std::cos(pi * (q + 1) / (n + 1)) - 2;
  const auto u = both_sides(coefficients, sm, sn);
  HostGrid x = start;
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) x(i + 1, j + 1) = double(u[i][j] * 4 / ((m + 1) * (n + 1)));
  return x;
}

// Random boundary and right-hand side, a random interior to start from (the
// method must not depend on it).
Problem random_problem(std::size_t rows, std::size_t cols, unsigned seed) {
  Problem problem;
  problem.rhs = testing::random_grid(rows, cols, seed);
  problem.start = testing::random_grid(rows, cols, seed + 1, -3, 3);
  return problem;
}

template <class T>
HostGrid run_spectral(const Problem& problem, SolveReport* report = nullptr, double tolerance = 0,
                      Boundary boundary = Boundary::dirichlet, SpectralFft fft = SpectralFft::library,
                      SpectralLength length = SpectralLength::fast) {
  SolverOptions options;
  options.method = Method::spectral;
  options.boundary = boundary;
  options.tolerance = tolerance;
  options.spectral_fft = fft;
  options.spectral_length = length;
  auto x = to_device<T>(problem.start, "x");
  const auto b = to_device<T>(problem.rhs, "b");
  const SolveReport r = solve(x, b, options);
  if (report) *report = r;
  return to_host(x);
}

double relative_difference(const HostGrid& got, const HostGrid& want) {
  double error = 0, norm = 0;
  for (std::size_t k = 0; k < want.values.size(); ++k) {
    error += (got.values[k] - want.values[k]) * (got.values[k] - want.values[k]);
    norm += want.values[k] * want.values[k];
  }
  return std::sqrt(error / norm);
}

struct Size {
  std::size_t rows, cols;
};
const Size sizes[] = {{3, 3}, {5, 8}, {17, 33}, {64, 64}, {101, 37}, {4, 130}};

TEST(PoissonSpectral, DoubleIsTheExactDiscreteSolution) {
  for (const Size size : sizes) {
    const Problem problem = random_problem(size.rows, size.cols, unsigned(size.rows * 1000 + size.cols));
    SolveReport report;
    const HostGrid x = run_spectral<double>(problem, &report);
    const HostGrid want = reference_solution(problem.start, problem.rhs);
    EXPECT_LE(relative_difference(x, want), 1e-12) << size.rows << "x" << size.cols;
    const double reference = testing::host_residual_norm(problem.start, problem.rhs);
    EXPECT_LE(testing::host_residual_norm(x, problem.rhs), 1e-12 * reference) << size.rows << "x" << size.cols;
    EXPECT_EQ(report.iterations, 1);
    EXPECT_EQ(report.stop_reason, "direct");
    ASSERT_EQ(report.history.size(), 2u);
    EXPECT_LE(report.relative_residual, 1e-12);
    // The ring is the boundary, never written.
    for (std::size_t j = 0; j < size.cols; ++j) {
      EXPECT_EQ(x(0, j), problem.start(0, j));
      EXPECT_EQ(x(size.rows - 1, j), problem.start(size.rows - 1, j));
    }
  }
}

// Solves of one shape reuse the last solve's buffers and plans: each must
// still give what a first solve gives, whatever came before it (another
// shape, other data, a release, a solve that threw).
TEST(PoissonSpectral, RepeatedSolvesAreThoseOfAFreshWorkspace) {
  const Problem a = random_problem(17, 33, 1), b = random_problem(17, 33, 2), c = random_problem(20, 9, 3);
  release_workspaces();
  const HostGrid first_a = run_spectral<double>(a);
  EXPECT_LE(relative_difference(first_a, reference_solution(a.start, a.rhs)), 1e-12);
  const HostGrid first_b = run_spectral<double>(b);
  EXPECT_LE(relative_difference(first_b, reference_solution(b.start, b.rhs)), 1e-12);
  EXPECT_LE(relative_difference(run_spectral<double>(c), reference_solution(c.start, c.rhs)), 1e-12);
  const HostGrid again_a = run_spectral<double>(a);
  EXPECT_EQ(again_a.values, first_a.values);  // bit for bit: same plans, same sums
  EXPECT_EQ(run_spectral<double>(a).values, first_a.values);
  release_workspaces();
  EXPECT_EQ(run_spectral<double>(b).values, first_b.values);
}

// auto: spectral on every backend (HIP's FFTs on the portable kernels); the
// report names what ran, and the answer is that method's.
TEST(PoissonSpectral, AutoRunsSpectral) {
  const Problem problem = random_problem(33, 20, 7);
  SolverOptions options;
  options.method = Method::automatic;
  options.tolerance = 1e-10;
  options.max_iterations = 50;
  auto x = to_device<double>(problem.start, "x");
  const auto b = to_device<double>(problem.rhs, "b");
  const SolveReport report = solve(x, b, options);
  EXPECT_EQ(report.method, Method::spectral);
  EXPECT_EQ(chosen_method(options), Method::spectral);
  EXPECT_TRUE(report.converged);
  EXPECT_LE(relative_difference(to_host(x), reference_solution(problem.start, problem.rhs)), 1e-8);
  options.boundary = Boundary::periodic;
  EXPECT_NO_THROW(check(options));
}

// Gradient-domain rebuild: B = L image on the whole grid with the boundary's
// neighbours; the answer is the image minus its (weighted) mean.
TEST(PoissonSpectral, WholeGridReconstructionReturnsTheImageMinusItsMean) {
  const HostGrid image = testing::test_image(37, 52);
  for (const Boundary boundary : {Boundary::neumann, Boundary::periodic}) {
    const Problem problem = whole_grid_reconstruction_problem(image, boundary);
    SolveReport report;
    const HostGrid x = run_spectral<double>(problem, &report, 0, boundary);
    EXPECT_LE(testing::max_abs_difference(x, problem.exact.value()), 1e-9) << name_of(boundary);
    // The exact answer differs from the image by one constant, and has zero (weighted) mean.
    double weighted = 0;
    for (std::size_t i = 0; i < image.rows; ++i)
      for (std::size_t j = 0; j < image.cols; ++j) {
        const double w = boundary == Boundary::periodic ? 1.0
                                                        : (i == 0 || i + 1 == image.rows ? 0.5 : 1.0) *
                                                              (j == 0 || j + 1 == image.cols ? 0.5 : 1.0);
        weighted += w * problem.exact.value()(i, j);
        EXPECT_NEAR(image(i, j) - problem.exact.value()(i, j), image(0, 0) - problem.exact.value()(0, 0), 1e-9);
      }
    EXPECT_NEAR(weighted, 0, 1e-8);
  }
}

TEST(PoissonSpectral, FloatIsTheExactSolutionToFloatRounding) {
  for (const Size size : sizes) {
    const Problem problem = random_problem(size.rows, size.cols, unsigned(size.rows * 1000 + size.cols));
    const HostGrid x = run_spectral<float>(problem);
    EXPECT_LE(relative_difference(x, reference_solution(problem.start, problem.rhs)), 1e-5)
        << size.rows << "x" << size.cols;
  }
}

// In float one direct solve leaves a residual of a few 1e-6; with a tolerance
// below that, refinement steps (each a direct solve of the residual
// equation) reach it, and the report counts the solves.
TEST(PoissonSpectral, FloatRefinementReachesToleranceBelowOneSolvesRounding) {
  const HostGrid image = testing::test_image(266, 400);
  const Problem problem = reconstruction_problem(image);
  const double reference = testing::host_residual_norm(problem.start, problem.rhs);
  SolveReport one, refined;
  const HostGrid x_one = run_spectral<float>(problem, &one);
  EXPECT_EQ(one.iterations, 1);
  const double one_residual = testing::host_residual_norm(x_one, problem.rhs) / reference;
  const HostGrid x = run_spectral<float>(problem, &refined, 1e-6);
  const double residual = testing::host_residual_norm(x, problem.rhs) / reference;
  if (one_residual > 1e-6) {
    EXPECT_GE(refined.iterations, 2);
    EXPECT_LE(refined.iterations, 3);
  }
  EXPECT_TRUE(refined.converged) << refined.relative_residual;
  EXPECT_EQ(refined.stop_reason, "tolerance");
  EXPECT_LE(residual, 1.1e-6);
  EXPECT_LT(residual, one_residual);
  EXPECT_LE(testing::max_abs_difference(x, image), testing::max_abs_difference(x_one, image));
  // Tolerance 0: one solve, whatever its rounding.
  EXPECT_EQ(one.stop_reason, "direct");
}

TEST(PoissonSpectral, ReconstructsTheTalksImage) {
  const HostGrid image = testing::test_image(266, 400);
  const Problem problem = reconstruction_problem(image);
  EXPECT_LE(testing::max_abs_difference(run_spectral<double>(problem), image), 1e-9);
  EXPECT_LE(testing::max_abs_difference(run_spectral<float>(problem), image), 1e-2);
}

TEST(PoissonSpectral, ToleranceMetIsReportedAsConverged) {
  const Problem problem = reconstruction_problem(testing::test_image(30, 45));
  SolveReport report;
  run_spectral<double>(problem, &report, 1e-10);
  EXPECT_TRUE(report.converged);
  EXPECT_EQ(report.stop_reason, "tolerance");
  EXPECT_EQ(report.iterations, 1);
}

TEST(PoissonSpectral, NeumannAndPeriodicReturnTheSolutionOfZeroMean) {
  for (const Boundary boundary : {Boundary::neumann, Boundary::periodic})
    for (const Size size : sizes) {
      const Problem problem =
          testing::whole_grid_problem(size.rows, size.cols, boundary, unsigned(size.rows + 7 * size.cols));
      SolveReport report;
      const HostGrid x = run_spectral<double>(problem, &report, 0, boundary);
      EXPECT_LE(relative_difference(x, *problem.exact), 1e-11)
          << name_of(boundary) << " " << size.rows << "x" << size.cols;
      EXPECT_LE(report.relative_residual, 1e-12) << name_of(boundary);
      EXPECT_LE(relative_difference(run_spectral<float>(problem, nullptr, 0, boundary), *problem.exact), 1e-4)
          << name_of(boundary) << " float " << size.rows << "x" << size.cols;
    }
}

// poisson.spectral.fft: portable, the FFTs of HIP builds run here: the same
// exact solutions, every boundary, double and float.
TEST(PoissonSpectral, ThePortableFftGivesTheExactSolutionsToo) {
  for (const Size size : sizes) {
    const unsigned seed = unsigned(size.rows * 1000 + size.cols);
    const Problem problem = random_problem(size.rows, size.cols, seed);
    const HostGrid want = reference_solution(problem.start, problem.rhs);
    SolveReport report;
    const HostGrid x = run_spectral<double>(problem, &report, 0, Boundary::dirichlet, SpectralFft::portable);
    EXPECT_LE(relative_difference(x, want), 1e-12) << size.rows << "x" << size.cols;
    EXPECT_LE(report.relative_residual, 1e-12) << size.rows << "x" << size.cols;
    EXPECT_LE(relative_difference(
                  run_spectral<float>(problem, nullptr, 1e-6, Boundary::dirichlet, SpectralFft::portable), want),
              1e-4)
        << "float " << size.rows << "x" << size.cols;
    for (const Boundary boundary : {Boundary::neumann, Boundary::periodic}) {
      const Problem whole = testing::whole_grid_problem(size.rows, size.cols, boundary, seed + 1);
      EXPECT_LE(
          relative_difference(run_spectral<double>(whole, nullptr, 0, boundary, SpectralFft::portable), *whole.exact),
          1e-11)
          << name_of(boundary) << " " << size.rows << "x" << size.cols;
      EXPECT_LE(
          relative_difference(run_spectral<float>(whole, nullptr, 0, boundary, SpectralFft::portable), *whole.exact),
          1e-4)
          << name_of(boundary) << " float " << size.rows << "x" << size.cols;
    }
  }
}

// Transform lengths: n itself where n + 1 has only the factors 2, 3, 5, 7
// (the libraries) or is a power of two (the portable kernels), else the next
// such length; exact is always n.
TEST(PoissonSpectral, RowLengthsAreTheNextFastOnes) {
  const auto fast = [](std::int64_t n, SpectralFft fft) {
    return spectral_row_length(100, n, fft, SpectralLength::fast);
  };
  const SpectralFft library = fft::library_available ? SpectralFft::library : SpectralFft::portable;
  if (fft::library_available) {
    EXPECT_EQ(fast(8190, library), 8191);  // 8191 prime -> 8192
    EXPECT_EQ(fast(2046, library), 2047);  // 2047 = 23 x 89 -> 2048
    EXPECT_EQ(fast(398, library), 399);    // 399 = 3 x 7 x 19 -> 400 = 2^4 x 5^2
    EXPECT_EQ(fast(62, library), 62);      // 63 = 3^2 x 7
    EXPECT_EQ(fast(209, library), 209);    // 210 = 2 x 3 x 5 x 7
  }
  EXPECT_EQ(fast(1, SpectralFft::portable), 1);
  EXPECT_EQ(fast(6, SpectralFft::portable), 7);
  EXPECT_EQ(fast(8190, SpectralFft::portable), 8191);
  EXPECT_EQ(fast(4097, SpectralFft::portable), 8191);
  EXPECT_EQ(spectral_row_length(100, 8190, library, SpectralLength::exact), 8190);
  // Rows longer than the FFT plans' int range allows stay at n.
  EXPECT_EQ(spectral_row_length(30000, 32768, SpectralFft::portable, SpectralLength::fast), 32768);
  EXPECT_EQ(spectral_row_length(100, 32768, SpectralFft::portable, SpectralLength::fast), 65535);
}

// Grids whose rows run embedded in longer transforms (n + 1 = 13, 23, 211
// and 43 x 3; on the portable kernels most sizes) give the exact solution as
// the plain solve does: the capacitance correction is exact, one row of
// interior (m = 1) included.
TEST(PoissonSpectral, EmbeddedRowsGiveTheExactSolution) {
  const Size embedded[] = {{3, 14}, {12, 24}, {30, 212}, {9, 130}, {41, 14}};
  for (const SpectralFft fft : {SpectralFft::library, SpectralFft::portable})
    for (const Size size : embedded) {
      const std::int64_t n = std::int64_t(size.cols) - 2;
      ASSERT_GT(spectral_row_length(std::int64_t(size.rows) - 2, n, fft, SpectralLength::fast), n)
          << size.rows << "x" << size.cols;
      const Problem problem = random_problem(size.rows, size.cols, unsigned(size.rows * 31 + size.cols));
      const HostGrid want = reference_solution(problem.start, problem.rhs);
      SolveReport report;
      const HostGrid x = run_spectral<double>(problem, &report, 0, Boundary::dirichlet, fft);
      EXPECT_LE(relative_difference(x, want), 1e-12) << name_of(fft) << " " << size.rows << "x" << size.cols;
      EXPECT_LE(report.relative_residual, 1e-12) << name_of(fft) << " " << size.rows << "x" << size.cols;
      const HostGrid plain = run_spectral<double>(problem, nullptr, 0, Boundary::dirichlet, fft, SpectralLength::exact);
      EXPECT_LE(relative_difference(plain, want), 1e-12) << name_of(fft) << " exact " << size.rows << "x" << size.cols;
      EXPECT_LE(relative_difference(run_spectral<float>(problem, nullptr, 0, Boundary::dirichlet, fft), want), 1e-5)
          << name_of(fft) << " float " << size.rows << "x" << size.cols;
      // The ring, the embedded column's target included, is never written.
      for (std::size_t i = 0; i < size.rows; ++i) EXPECT_EQ(x(i, size.cols - 1), problem.start(i, size.cols - 1));
    }
}

// A refinement step's right-hand side is the residual with a zero ring: on
// an embedded grid the correction's column must be driven to zero, not to
// the ring values (a float solve to 1e-6, below one solve's rounding).
TEST(PoissonSpectral, EmbeddedRefinementReachesTolerance) {
  const HostGrid image = testing::test_image(1000, 212);  // n + 1 = 211, prime
  ASSERT_GT(spectral_row_length(998, 210, SpectralFft::library, SpectralLength::fast), 210);
  const Problem problem = reconstruction_problem(image);
  const double reference = testing::host_residual_norm(problem.start, problem.rhs);
  SolveReport one, refined;
  const HostGrid x_one = run_spectral<float>(problem, &one);
  const HostGrid x = run_spectral<float>(problem, &refined, 1e-6);
  const double one_residual = testing::host_residual_norm(x_one, problem.rhs) / reference;
  const double residual = testing::host_residual_norm(x, problem.rhs) / reference;
  // The premise: one solve misses the tolerance, so the refinement (the
  // correction's column driven to zero) runs.
  ASSERT_GT(one_residual, 1.5e-6);
  EXPECT_GE(refined.iterations, 2);
  EXPECT_TRUE(refined.converged) << refined.relative_residual;
  EXPECT_LE(residual, 1.1e-6);
  EXPECT_LE(residual, one_residual);
  EXPECT_LE(testing::max_abs_difference(x, image), testing::max_abs_difference(x_one, image));
  EXPECT_LE(testing::max_abs_difference(x, image), 1e-3);
}

// The column solves GPUs run (a thread per mode, ColumnSolve) and hosts run
// (blocks of modes along the rows, ColumnBlocks) give the same bits in both
// phases: a host build runs the GPUs' functor here, so CI covers its
// arithmetic. Random modes, Thomas factors of real eigenvalues, a source and
// weights; widths not a multiple of the host block; one row included.
template <class T>
void expect_column_solves_agree() {
  if constexpr (!host_execution) {
    GTEST_SKIP() << "ColumnBlocks runs on hosts only";
  } else {
    using detail::ColumnBlocks;
    using detail::ColumnSolve;
    const std::pair<int, int> shapes[] = {{37, 150}, {1, 70}, {64, 64}};
    for (const auto& [m, width] : shapes) {
      const auto random_grid = [](int rows, int cols, unsigned seed) {
        View2D<T> grid("grid", rows, cols);
        auto host = Kokkos::create_mirror_view(grid);
        std::mt19937 rng(seed);
        std::uniform_real_distribution<double> value(-1, 1);
        for (int i = 0; i < rows; ++i)
          for (int j = 0; j < cols; ++j) host(i, j) = T(value(rng));
        Kokkos::deep_copy(grid, host);
        return grid;
      };
      View1D<double> eigenvalues("eigenvalues", width), source("source", m), weights("weights", width);
      auto host_eigenvalues = Kokkos::create_mirror_view(eigenvalues);
      auto host_source = Kokkos::create_mirror_view(source);
      auto host_weights = Kokkos::create_mirror_view(weights);
      for (int q = 0; q < width; ++q) {
        const double s = std::sin(std::acos(-1.0) * (q + 1) / (2.0 * (width + 1)));
        host_eigenvalues(q) = -4 * s * s;
        host_weights(q) = std::cos(0.3 * q);
      }
      for (int i = 0; i < m; ++i) host_source(i) = std::sin(1.7 * i) + 0.25;
      Kokkos::deep_copy(eigenvalues, host_eigenvalues);
      Kokkos::deep_copy(source, host_source);
      Kokkos::deep_copy(weights, host_weights);
      View2D<T> factors("factors", m, width);
      Kokkos::parallel_for(Kokkos::RangePolicy<ExecSpace>(0, width), detail::ThomasFactors<T>{factors, eigenvalues});
      const double scale = 1.0 / (2 * (width + 1));
      const View2D<T> original = random_grid(m, width, unsigned(m + width));
      View2D<T> per_mode("per_mode", m, width), blocked("blocked", m, width);
      View2D<T> scratch_a("scratch_a", m, width), scratch_b("scratch_b", m, width);
      Kokkos::deep_copy(per_mode, original);
      Kokkos::deep_copy(blocked, original);
      const int blocks = (width + detail::host_mode_block - 1) / detail::host_mode_block;
      Kokkos::parallel_for(Kokkos::RangePolicy<ExecSpace, detail::SolveModes>(0, width),
                           ColumnSolve<T>{per_mode, factors, scale, {}, {}, {}});
      Kokkos::parallel_for(Kokkos::RangePolicy<ExecSpace, detail::SolveModes>(0, blocks),
                           ColumnBlocks<T>{ColumnSolve<T>{blocked, factors, scale, {}, {}, {}}});
      Kokkos::parallel_for(Kokkos::RangePolicy<ExecSpace, detail::AddSourceResponse>(0, width),
                           ColumnSolve<T>{per_mode, factors, scale, source, weights, scratch_a});
      Kokkos::parallel_for(Kokkos::RangePolicy<ExecSpace, detail::AddSourceResponse>(0, blocks),
                           ColumnBlocks<T>{ColumnSolve<T>{blocked, factors, scale, source, weights, scratch_b}});
      Kokkos::fence();
      const auto a = Kokkos::create_mirror_view_and_copy(HostSpace(), per_mode);
      const auto b = Kokkos::create_mirror_view_and_copy(HostSpace(), blocked);
      const auto before = Kokkos::create_mirror_view_and_copy(HostSpace(), original);
      int changed = 0;
      for (int i = 0; i < m; ++i)
        for (int q = 0; q < width; ++q) {
          ASSERT_EQ(a(i, q), b(i, q)) << m << "x" << width << " at " << i << ", " << q;
          changed += a(i, q) != before(i, q);
        }
      EXPECT_GT(changed, m * width / 2);  // the solves did run
    }
  }
}

TEST(PoissonSpectral, ColumnSolvesOfGpusAndHostsAgreeDouble) { expect_column_solves_agree<double>(); }
TEST(PoissonSpectral, ColumnSolvesOfGpusAndHostsAgreeFloat) { expect_column_solves_agree<float>(); }

TEST(PoissonSpectral, IncompatibleDataIsAnInputError) {
  for (const Boundary boundary : {Boundary::neumann, Boundary::periodic}) {
    Problem problem;
    problem.rhs = HostGrid(9, 12, 1.0);  // a constant source with nowhere to go
    problem.start = HostGrid(9, 12);
    try {
      run_spectral<double>(problem, nullptr, 0, boundary);
      ADD_FAILURE() << name_of(boundary) << ": no error";
    } catch (const InputError& error) {
      EXPECT_NE(std::string(error.what()).find("Poisson boundary " + name_of(boundary)), std::string::npos)
          << error.what();
    }
  }
}

TEST(PoissonSpectral, OtherMethodsRefuseOtherBoundaries) {
  SolverOptions options;
  options.method = Method::cg;
  options.boundary = Boundary::periodic;
  try {
    check(options);
    ADD_FAILURE() << "no error";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("poisson.boundary periodic"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace portasolve::poisson
