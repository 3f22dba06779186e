// Bootstrap false-alarm probabilities: the draws, the resampled maxima
// against a float64 host periodogram of the same resamples, independence of
// launch size and chunking, and astropy's counting rule.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "core/errors.hpp"
#include "solvers/lombscargle/bootstrap.hpp"
#include "tests/solvers/lombscargle/reference.hpp"

namespace {

namespace ls = portasolve::lombscargle;

ls::Series noisy_series(std::size_t n, unsigned seed, bool with_dy) {
  std::mt19937 generator(seed);
  std::uniform_real_distribution<double> when(0.0, 30.0), error(0.5, 1.5);
  std::normal_distribution<double> noise(0.0, 1.0);
  ls::Series series;
  for (std::size_t j = 0; j < n; ++j) series.t.push_back(when(generator));
  std::sort(series.t.begin(), series.t.end());
  for (const double t : series.t) {
    const double sigma = with_dy ? error(generator) : 1.0;
    series.y.push_back(0.4 * std::sin(2 * M_PI * 0.7 * t) + sigma * noise(generator));
    if (with_dy) series.dy.push_back(sigma);
  }
  return series;
}

// Sorted highest powers of the resamples, in double on the host.
std::vector<double> reference_maxima(const ls::Series& series, std::size_t index, const ls::BootstrapOptions& options,
                                     const ls::FrequencyGrid& grid) {
  std::vector<double> maxima;
  for (std::size_t r = 0; r < options.resamples; ++r) {
    const auto draws = ls::bootstrap_draws(options, index, r, series.t.size());
    std::vector<double> y, dy;
    for (const std::size_t d : draws) {
      y.push_back(series.y[d]);
      if (!series.dy.empty()) dy.push_back(series.dy[d]);
    }
    const auto power = reference::astropy_lombscargle(series.t, y, dy, grid.values, true, true, "standard");
    maxima.push_back(*std::max_element(power.begin(), power.end()));
  }
  std::sort(maxima.begin(), maxima.end());
  return maxima;
}

TEST(Bootstrap, DrawsAreUniformReproducibleAndDifferBySeriesAndSeed) {
  ls::BootstrapOptions options;
  options.resamples = 400;
  const std::size_t n = 7;
  std::vector<double> counts(n, 0.0);
  for (std::size_t r = 0; r < options.resamples; ++r) {
    const auto draws = ls::bootstrap_draws(options, 3, r, n);
    ASSERT_EQ(draws.size(), n);
    EXPECT_EQ(draws, ls::bootstrap_draws(options, 3, r, n));
    for (const std::size_t d : draws) {
      ASSERT_LT(d, n);
      counts[d] += 1;
    }
  }
  // Chi-square with 6 degrees of freedom: above 30 once in 25000 runs.
  const double expected = static_cast<double>(options.resamples);
  double chi2 = 0;
  for (const double c : counts) chi2 += (c - expected) * (c - expected) / expected;
  EXPECT_LT(chi2, 30.0);
  EXPECT_NE(ls::bootstrap_draws(options, 3, 0, 50), ls::bootstrap_draws(options, 4, 0, 50));
  ls::BootstrapOptions other = options;
  other.seed = 1;
  EXPECT_NE(ls::bootstrap_draws(options, 3, 0, 50), ls::bootstrap_draws(other, 3, 0, 50));
  EXPECT_THROW(ls::bootstrap_draws(options, 3, options.resamples, n), portasolve::OptionError);
}

TEST(Bootstrap, MaximaMatchTheHostPeriodogramsOfTheSameResamples) {
  const std::vector<ls::Series> batch{noisy_series(40, 1, true), noisy_series(55, 2, false)};
  const ls::FrequencyGrid grid = ls::uniform_grid(0.02, 3.0, 150, false);
  ls::BootstrapOptions options;
  options.resamples = 25;
  options.seed = 12345;
  const ls::Options periodogram;  // generalized, standard
  const std::size_t first = 10;
  const auto maxima = ls::bootstrap_maxima<double>(batch, grid, periodogram, options, first);
  const auto maxima_float = ls::bootstrap_maxima<float>(batch, grid, periodogram, options, first);
  ASSERT_EQ(maxima.size(), batch.size());
  for (std::size_t s = 0; s < batch.size(); ++s) {
    const auto expected = reference_maxima(batch[s], first + s, options, grid);
    ASSERT_EQ(maxima[s].size(), options.resamples);
    for (std::size_t r = 0; r < options.resamples; ++r) {
      EXPECT_NEAR(maxima[s][r], expected[r], 1e-10) << s << " " << r;
      EXPECT_NEAR(maxima_float[s][r], expected[r], 2e-4) << s << " " << r;
    }
  }
}

TEST(Bootstrap, LaunchSizeAndChunkingDoNotChangeTheMaxima) {
  const std::vector<ls::Series> batch{noisy_series(30, 3, true), noisy_series(31, 4, true), noisy_series(29, 5, true)};
  const ls::FrequencyGrid grid = ls::uniform_grid(0.05, 2.0, 300, false);
  ls::BootstrapOptions options;
  options.resamples = 11;
  const ls::Options periodogram;
  const auto whole = ls::bootstrap_maxima<double>(batch, grid, periodogram, options, 100);
  options.periodograms_per_launch = 4;  // launches straddle series
  EXPECT_EQ(ls::bootstrap_maxima<double>(batch, grid, periodogram, options, 100), whole);
  for (std::size_t s = 0; s < batch.size(); ++s) {  // series by series, as chunks of one
    const auto alone = ls::bootstrap_maxima<double>({batch[s]}, grid, periodogram, options, 100 + s, 103);
    EXPECT_EQ(alone[0], whole[s]) << s;
  }
}

TEST(Bootstrap, ProbabilityIsTheFractionOfMaximaAtOrAbove) {
  const std::vector<double> maxima{0.1, 0.2, 0.2, 0.4};
  EXPECT_DOUBLE_EQ(ls::fap_bootstrap(0.05, maxima), 1.0);
  EXPECT_DOUBLE_EQ(ls::fap_bootstrap(0.2, maxima), 0.75);  // ties count as at or above
  EXPECT_DOUBLE_EQ(ls::fap_bootstrap(0.3, maxima), 0.25);
  EXPECT_DOUBLE_EQ(ls::fap_bootstrap(0.5, maxima), 0.0);
  EXPECT_THROW(ls::fap_bootstrap(0.5, {}), portasolve::OptionError);
}

TEST(Bootstrap, PureNoiseProbabilitiesAreCalibrated) {
  // For noise, a resampled periodogram's maximum is drawn from (nearly) the
  // distribution of the original's: over many noise series the bootstrap
  // probability of each series' own maximum is near uniform on [0, 1].
  const ls::FrequencyGrid grid = ls::uniform_grid(0.02, 2.0, 200, false);
  std::vector<ls::Series> batch;
  std::mt19937 generator(77);
  std::normal_distribution<double> noise(0.0, 1.0);
  for (int s = 0; s < 40; ++s) {
    ls::Series series = noisy_series(40, 100 + s, false);
    for (double& y : series.y) y = noise(generator);
    batch.push_back(series);
  }
  ls::BootstrapOptions options;
  options.resamples = 150;
  const ls::Options periodogram;
  const auto maxima = ls::bootstrap_maxima<double>(batch, grid, periodogram, options);
  const auto power = ls::periodogram<double>(batch, grid, periodogram);
  const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), power);
  double mean = 0;
  int below_tenth = 0;
  for (std::size_t s = 0; s < batch.size(); ++s) {
    double best = 0;
    for (std::size_t k = 0; k < grid.size(); ++k) best = std::max(best, static_cast<double>(host(s, k)));
    const double fap = ls::fap_bootstrap(best, maxima[s]);
    mean += fap / static_cast<double>(batch.size());
    below_tenth += fap < 0.1 ? 1 : 0;
  }
  // Uniform: mean 0.5 (standard error 0.046 over 40 series), 4 of 40 below 0.1.
  EXPECT_NEAR(mean, 0.5, 0.15);
  EXPECT_LE(below_tenth, 12);
}

TEST(Bootstrap, RefusesWhatAstropyDoesNotDefineAndNamesBadSeries) {
  const std::vector<ls::Series> batch{noisy_series(20, 6, false)};
  const ls::FrequencyGrid grid = ls::uniform_grid(0.1, 1.0, 20, false);
  ls::BootstrapOptions options;
  options.resamples = 3;
  ls::Options classic;
  classic.form = ls::Form::classic;
  EXPECT_THROW(ls::bootstrap_maxima<double>(batch, grid, classic, options), portasolve::OptionError);
  ls::Options multiterm;
  multiterm.nterms = 2;
  EXPECT_THROW(ls::bootstrap_maxima<double>(batch, grid, multiterm, options), portasolve::OptionError);
  ls::BootstrapOptions none;
  none.resamples = 0;
  EXPECT_THROW(ls::bootstrap_maxima<double>(batch, grid, ls::Options{}, none), portasolve::OptionError);
  std::vector<ls::Series> bad{batch[0], batch[0]};
  bad[1].y[4] = NAN;
  try {
    ls::bootstrap_maxima<double>(bad, grid, ls::Options{}, options, 7, 20);
    FAIL() << "NaN accepted";
  } catch (const portasolve::InputError& error) {
    EXPECT_NE(std::string(error.what()).find("series 8"), std::string::npos) << error.what();
  }
}

}  // namespace
