// The NUFFT algorithm's parts: the team FFT (one and two levels) against a
// plain DFT, and the periodogram on segmented and two-level grids, at a
// given tolerance, against the float64 reference.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <random>

#include "solvers/lombscargle/detail/fft.hpp"
#include "solvers/lombscargle/detail/nufft.hpp"
#include "solvers/lombscargle/periodogram.hpp"
#include "tests/solvers/lombscargle/helpers.hpp"
#include "tests/solvers/lombscargle/reference.hpp"

namespace {

namespace ls = portasolve::lombscargle;
using ls::testing::random_series;
using ls::testing::uniform_values;

// Rows of random data through fft_rows with a team length of `team_length`,
// against sum_j x_j e^{+2 pi i j k / n} in long double.
template <class T>
double fft_error(std::int64_t n, int team_length, int rows) {
  ls::detail::ComplexRows<T> data("data", rows, n);
  auto host = Kokkos::create_mirror_view(data);
  std::mt19937 rng(static_cast<unsigned>(n + team_length));
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  for (int r = 0; r < rows; ++r)
    for (std::int64_t j = 0; j < n; ++j)
      host(r, j) = ls::detail::Complex<T>(static_cast<T>(value(rng)), static_cast<T>(value(rng)));
  const auto input = Kokkos::create_mirror(data);
  Kokkos::deep_copy(input, host);
  Kokkos::deep_copy(data, host);
  const ls::detail::FftShape shape = ls::detail::fft_shape(n, team_length);
  EXPECT_EQ(shape.two_level(), n > team_length);
  ls::detail::fft_rows<T>(portasolve::ExecSpace(), data,
                          ls::detail::twiddle_table<T>(portasolve::ExecSpace(), team_length), shape);
  Kokkos::deep_copy(host, data);
  double worst = 0, scale = 0;
  for (int r = 0; r < rows; ++r) {
    for (std::int64_t k = 0; k < n; ++k) {
      std::complex<long double> exact = 0;
      for (std::int64_t j = 0; j < n; ++j) {
        const long double angle = 2 * 3.14159265358979323846264338327950288L * ((j * k) % n) / n;
        exact += std::complex<long double>(input(r, j).real(), input(r, j).imag()) *
                 std::complex<long double>(std::cos(angle), std::sin(angle));
      }
      const auto got = host(r, shape.position(k));
      worst = std::max(worst, static_cast<double>(std::abs(exact - std::complex<long double>(got.real(), got.imag()))));
      scale = std::max(scale, static_cast<double>(std::abs(exact)));
    }
  }
  return worst / scale;
}

TEST(Fft, WholeTransformsMatchTheDft) {
  for (std::int64_t n : {2, 8, 64, 256}) {
    EXPECT_LT(fft_error<double>(n, 256, 3), 1e-14) << n;
    EXPECT_LT(fft_error<float>(n, 256, 3), 1e-6) << n;
  }
}

TEST(Fft, TwoLevelTransformsMatchTheDft) {
  // n1 x n2 = 4 x 16 (four columns a team), 16 x 16, 8 x 32.
  for (const auto& [n, team] : {std::pair<std::int64_t, int>{64, 16}, {256, 16}, {256, 32}, {1024, 64}}) {
    EXPECT_LT(fft_error<double>(n, team, 2), 1e-14) << n << " " << team;
    EXPECT_LT(fft_error<float>(n, team, 2), 2e-6) << n << " " << team;
  }
}

TEST(Fft, TeamLengthIsAPowerOfTwoThatFitsAndHonoursTheCap) {
  for (int cap : {0, 64}) {
    const int length = ls::detail::fft_team_length<double>(cap);
    EXPECT_EQ(length & (length - 1), 0);
    EXPECT_GE(length, 64);
    if (cap) {
      EXPECT_EQ(length, cap);
    }
  }
}

TEST(Nufft, KernelWidthFollowsTheTolerance) {
  EXPECT_EQ(ls::detail::spreading_kernel_for(1e-12).width, 13);
  EXPECT_EQ(ls::detail::spreading_kernel_for(1e-7).width, 8);
  EXPECT_EQ(ls::detail::spreading_kernel_for(1e-3).width, 4);
  EXPECT_EQ(ls::detail::spreading_kernel_for(1e-30).width, 16);
}

ls::Series series_with_dy(std::size_t n, double span, unsigned seed) {
  std::mt19937 rng(seed);
  ls::Series series = random_series(
      rng, n, span, 0.4, [](double t) { return 0.5 + std::sin(2 * M_PI * 1.7 * t); }, /*sorted=*/false);
  series.dy = uniform_values(rng, n, 0.2, 0.6);
  return series;
}

template <class T>
double peak_relative_error(const ls::Series& series, const ls::FrequencyGrid& grid, const ls::Options& options,
                           const std::vector<double>& reference) {
  const auto power =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ls::periodogram<T>({series}, grid, options));
  double worst = 0, peak = 0;
  for (std::size_t k = 0; k < grid.size(); ++k) {
    worst = std::max(worst, std::fabs(static_cast<double>(power(0, k)) - reference[k]));
    peak = std::max(peak, std::fabs(reference[k]));
  }
  return worst / peak;
}

template <class T>
double nufft_error(const ls::Series& series, const ls::FrequencyGrid& grid, ls::Options options,
                   const std::vector<double>& reference) {
  options.algorithm = ls::Algorithm::nufft;
  return peak_relative_error<T>(series, grid, options, reference);
}

TEST(Nufft, SegmentedAndTwoLevelGridsMatchTheReference) {
  // 700 samples spread over many grid periods (df t up to 21 turns), and
  // crowded into a few grid points (df t < 0.007): both limits of the
  // spreading walk.
  for (const double span : {3000.0, 1.0}) {
    const ls::Series series = series_with_dy(700, span, 21);
    const ls::FrequencyGrid grid = ls::uniform_grid(2.0 / span, 70.0, 9973, false);
    const auto ref = reference::astropy_lombscargle(series.t, series.y, series.dy, grid.values, true, true, "standard");
    ls::Options options;
    for (long long limit : {0LL, 4096LL, 64LL}) {  // one two-level grid; 5 segments; 313 segments
      options.nufft_grid_limit = limit;
      EXPECT_LT(nufft_error<double>(series, grid, options, ref), 1e-10) << span << " " << limit;
      EXPECT_LT(nufft_error<float>(series, grid, options, ref), 1e-4) << span << " " << limit;
    }
  }
}

TEST(Nufft, BatchesMatchTheReferenceSeriesBySeries) {
  // More series than host threads: on host backends each thread takes whole
  // series through its own grids (scatter, lengths 2^a 3^b 5^c);
  // ragged lengths, spread and crowded (df t < 0.12) samplings, segmented grids, with and
  // without the floating mean.
  std::vector<ls::Series> batch;
  for (unsigned s = 0; s < 12; ++s) batch.push_back(series_with_dy(150 + 37 * s, s % 3 == 2 ? 50.0 : 300.0, 40 + s));
  const ls::FrequencyGrid grid = ls::uniform_grid(0.01, 7.0, 3001, false);
  for (const bool fit_mean : {true, false}) {
    std::vector<std::vector<double>> refs;
    for (const auto& series : batch)
      refs.push_back(
          reference::astropy_lombscargle(series.t, series.y, series.dy, grid.values, fit_mean, true, "standard"));
    ls::Options options;
    options.algorithm = ls::Algorithm::nufft;
    options.fit_mean = fit_mean;
    for (long long limit : {0LL, 1024LL, 64LL}) {
      options.nufft_grid_limit = limit;
      const auto power_double =
          Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ls::periodogram<double>(batch, grid, options));
      const auto power_float =
          Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ls::periodogram<float>(batch, grid, options));
      for (std::size_t s = 0; s < batch.size(); ++s) {
        double worst_double = 0, worst_float = 0, peak = 0;
        for (std::size_t k = 0; k < grid.size(); ++k) {
          worst_double = std::max(worst_double, std::fabs(power_double(s, k) - refs[s][k]));
          worst_float = std::max(worst_float, std::fabs(static_cast<double>(power_float(s, k)) - refs[s][k]));
          peak = std::max(peak, std::fabs(refs[s][k]));
        }
        EXPECT_LT(worst_double / peak, 1e-10) << s << " " << fit_mean << " " << limit;
        EXPECT_LT(worst_float / peak, 1e-4) << s << " " << fit_mean << " " << limit;
      }
    }
  }
}

TEST(Nufft, IllConditionedFrequenciesAreAsAccurateAsDirectSums) {
  // f T from 0.02: the floating-mean model is nearly degenerate at the low
  // end (CC_tau << sum w), which no algorithm computes to full precision;
  // the NUFFT must lose no more there than the recurrence (phases in double).
  const ls::Series series = series_with_dy(700, 1.0, 23);
  const ls::FrequencyGrid grid = ls::uniform_grid(0.02, 70.0, 9973, false);
  const auto ref = reference::astropy_lombscargle(series.t, series.y, series.dy, grid.values, true, true, "standard");
  ls::Options options;
  options.algorithm = ls::Algorithm::recurrence;
  const double recurrence_double = peak_relative_error<double>(series, grid, options, ref);
  const double recurrence_float = peak_relative_error<float>(series, grid, options, ref);
  EXPECT_GT(recurrence_float, 1e-3);  // the case is as hard as described
  EXPECT_LT(nufft_error<double>(series, grid, options, ref), 2 * recurrence_double + 1e-11);
  EXPECT_LT(nufft_error<float>(series, grid, options, ref), 2 * recurrence_float);
}

TEST(Nufft, ErrorFollowsTheRequestedTolerance) {
  const ls::Series series = series_with_dy(400, 50.0, 22);
  const ls::FrequencyGrid grid = ls::uniform_grid(0.01, 8.0, 3000, false);
  ls::Options options;
  options.form = ls::Form::classic;
  options.precenter = true;
  std::vector<double> angular(grid.size());
  for (std::size_t k = 0; k < grid.size(); ++k) angular[k] = 2 * M_PI * grid.values[k];
  ls::Series classic = series;
  classic.dy.clear();
  const auto ref = reference::scipy_lombscargle(classic.t, classic.y, angular, true, false);
  double previous = 1;
  for (double tolerance : {1e-3, 1e-6, 1e-9, 1e-12}) {
    options.nufft_tolerance = tolerance;
    const double error = nufft_error<double>(classic, grid, options, ref);
    EXPECT_LT(error, 10 * tolerance) << tolerance;
    EXPECT_LT(error, previous) << tolerance;
    previous = error;
  }
}

}  // namespace
