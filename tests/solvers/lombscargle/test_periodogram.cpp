// The periodogram against the float64 references, analytic cases, identities,
// batch == loop, and every bad-input error.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <random>
#include <utility>

#include "core/errors.hpp"
#include "solvers/lombscargle/baseline_fast_math.hpp"
#include "solvers/lombscargle/periodogram.hpp"
#include "tests/solvers/lombscargle/helpers.hpp"
#include "tests/solvers/lombscargle/reference.hpp"

namespace {

namespace ls = portasolve::lombscargle;
using portasolve::InputError;
using namespace ls::testing;

TEST(LombScargle, ClassicMatchesScipy) {
  const ls::Series series = noisy_sinusoid(300, 10.0, 1.3, 1, false);
  const double w_min = 0.05, w_max = 30.0;
  const std::size_t count = 997;
  const ls::FrequencyGrid grid = ls::uniform_grid(w_min, w_max, count, /*angular=*/true);
  std::vector<double> angular(count);
  for (std::size_t k = 0; k < count; ++k) angular[k] = w_min + (w_max - w_min) * static_cast<double>(k) / (count - 1);
  for (bool precenter : {false, true}) {
    for (bool normalize : {false, true}) {
      const auto ref = reference::scipy_lombscargle(series.t, series.y, angular, precenter, normalize);
      for (const auto algorithm : every_algorithm) {
        ls::Options options;
        options.form = ls::Form::classic;
        options.precenter = precenter;
        options.normalize = normalize;
        options.algorithm = algorithm;
        const std::string what = "precenter=" + std::to_string(precenter) + " normalize=" + std::to_string(normalize) +
                                 " " + ls::name_of(algorithm);
        EXPECT_LT(peak_relative_error(run<double>({series}, grid, options)[0], ref), 1e-11) << what;
        // float: the phase w t formed in float limits direct and tiled.
        const double float_tolerance = phases_in_double(algorithm) ? 1e-5 : 2e-4;
        EXPECT_LT(peak_relative_error(run<float>({series}, grid, options)[0], ref), float_tolerance) << what;
      }
    }
  }
}

TEST(LombScargle, GeneralizedMatchesAstropy) {
  const std::vector<std::string> normalizations{"standard", "model", "log", "psd"};
  for (bool with_dy : {false, true}) {
    const ls::Series series = noisy_sinusoid(257, 20.0, 0.7, 2, with_dy);
    const ls::FrequencyGrid grid = ls::uniform_grid(0.01, 5.0, 1501, /*angular=*/false);
    for (bool fit_mean : {false, true}) {
      for (bool center_data : {false, true}) {
        for (std::size_t n = 0; n < normalizations.size(); ++n) {
          const auto ref = reference::astropy_lombscargle(series.t, series.y, series.dy, grid.values, fit_mean,
                                                          center_data, normalizations[n]);
          for (const auto algorithm : every_algorithm) {
            ls::Options options;
            options.fit_mean = fit_mean;
            options.center_data = center_data;
            options.normalization = ls::normalization_from_name(normalizations[n]);
            options.algorithm = algorithm;
            const std::string what = normalizations[n] + " fit_mean=" + std::to_string(fit_mean) +
                                     " center_data=" + std::to_string(center_data) + " dy=" + std::to_string(with_dy) +
                                     " " + ls::name_of(algorithm);
            EXPECT_LT(peak_relative_error(run<double>({series}, grid, options)[0], ref), 1e-10) << what;
            EXPECT_LT(peak_relative_error(run<float>({series}, grid, options)[0], ref),
                      phases_in_double(algorithm) ? 1e-4 : 1e-3)
                << what;
          }
        }
      }
    }
  }
}

TEST(LombScargle, PureSinusoidPeaksAtItsFrequencyWithUnitStandardPower) {
  // A noise-free sinusoid plus offset is fitted exactly by the floating-mean
  // model at its own frequency: standard power 1 there.
  const double f0 = 0.8125;
  const ls::Series series =
      exact_series(200, 40.0, 3, [f0](double t) { return 3.0 + 1.7 * std::cos(2 * M_PI * f0 * t - 1.1); });
  const ls::FrequencyGrid grid = ls::uniform_grid(0.5, 1.125, 101, false);  // step 1/160, f0 on the grid
  for (const auto algorithm : every_algorithm) {
    ls::Options options;
    options.algorithm = algorithm;
    const auto power = run<double>({series}, grid, options)[0];
    const auto peak = std::max_element(power.begin(), power.end()) - power.begin();
    EXPECT_NEAR(grid.values[peak], f0, 1e-12) << ls::name_of(algorithm);
    EXPECT_NEAR(power[peak], 1.0, 1e-10) << ls::name_of(algorithm);
  }
}

TEST(LombScargle, ClassicPeakHeightApproachesAmplitudeSquaredNOverFour) {
  // SciPy: A^2 N / 4 for a harmonic signal "for sufficiently large N"; random
  // sampling moves it by about 1/sqrt(N).
  const double f0 = 0.37, amplitude = 1.7;
  const std::size_t n = 20000;
  const ls::Series series =
      exact_series(n, 5000.0, 12, [=](double t) { return amplitude * std::cos(2 * M_PI * f0 * t - 1.1); });
  ls::Options classic;
  classic.form = ls::Form::classic;
  const auto power = run<double>({series}, ls::explicit_grid({2 * M_PI * f0}, true), classic)[0];
  const double expected = amplitude * amplitude * n / 4;
  EXPECT_NEAR(power[0], expected, 0.03 * expected);
}

TEST(LombScargle, AstropyStandardIsScaledScipy) {
  // astropy's own scipy wrapper: without fit_mean, standard power equals
  // SciPy's with precenter times 2 / (N mean(y_c^2)).
  const ls::Series series = noisy_sinusoid(150, 10.0, 2.1, 4, false);
  const ls::FrequencyGrid grid = ls::uniform_grid(0.1, 4.0, 333, false);
  ls::Options generalized;
  generalized.fit_mean = false;
  ls::Options classic;
  classic.form = ls::Form::classic;
  classic.precenter = true;
  const auto standard = run<double>({series}, grid, generalized)[0];
  const auto scipy = run<double>({series}, grid, classic)[0];
  double mean = 0, centred_square = 0;
  for (double y : series.y) mean += y / series.y.size();
  for (double y : series.y) centred_square += (y - mean) * (y - mean);
  for (std::size_t k = 0; k < grid.size(); ++k)
    EXPECT_NEAR(standard[k], scipy[k] * 2 / centred_square, 1e-12 * (1 + standard[k])) << k;
}

TEST(LombScargle, BatchEqualsLoopOverSeries) {
  const std::vector<ls::Series> batch{noisy_sinusoid(64, 5.0, 1.0, 5, true), noisy_sinusoid(301, 9.0, 2.0, 6, true),
                                      noisy_sinusoid(3, 2.0, 0.5, 7, true)};
  const ls::FrequencyGrid grid = ls::uniform_grid(0.05, 6.0, 1000, false);
  for (const auto algorithm : every_algorithm) {
    ls::Options options;
    options.algorithm = algorithm;
    const auto power =
        Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ls::periodogram<double>(batch, grid, options));
    for (std::size_t s = 0; s < batch.size(); ++s) {
      const auto single = run<double>({batch[s]}, grid, options)[0];
      for (std::size_t k = 0; k < grid.size(); ++k)
        ASSERT_EQ(power(s, k), single[k]) << "series " << s << " frequency " << k << " " << ls::name_of(algorithm);
    }
  }
}

// Batches after batches of other sizes (the setup keeps its host arrays from
// one batch to the next) and a batch the caller checked already
// (checked_batch skips only the check) give the same bits as a first batch.
TEST(LombScargle, KeptSetupArraysAndCheckedBatchesGiveTheSameBits) {
  const std::vector<ls::Series> small{noisy_sinusoid(40, 5.0, 1.0, 8, true)};
  const std::vector<ls::Series> large{noisy_sinusoid(500, 9.0, 2.0, 9, true), noisy_sinusoid(77, 3.0, 0.7, 10, true),
                                      noisy_sinusoid(300, 6.0, 1.5, 11, true)};
  const ls::FrequencyGrid grid = ls::uniform_grid(0.05, 6.0, 700, false);
  const ls::Options options;
  const auto power_of = [&](const std::vector<ls::Series>& batch, bool checked) {
    std::unique_ptr<ls::Periodogram<float>> p =
        checked ? std::make_unique<ls::Periodogram<float>>(batch, grid, options, ls::checked_batch)
                : std::make_unique<ls::Periodogram<float>>(batch, grid, options);
    p->compute();
    return Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p->power());
  };
  const auto small_first = power_of(small, false);
  const auto large_first = power_of(large, false);
  for (const bool checked : {false, true}) {
    const auto small_again = power_of(small, checked), large_again = power_of(large, checked);
    for (std::size_t k = 0; k < grid.size(); ++k) {
      ASSERT_EQ(small_again(0, k), small_first(0, k)) << "frequency " << k << (checked ? " (checked)" : "");
      for (std::size_t s = 0; s < large.size(); ++s)
        ASSERT_EQ(large_again(s, k), large_first(s, k)) << "series " << s << " frequency " << k;
    }
  }
}

TEST(LombScargle, UpdateGivesANewPeriodogramsBits) {
  // A periodogram updated with new series (other lengths, other weights)
  // equals one made for them, for every algorithm and both forms; the grid
  // and power array stay.
  const ls::FrequencyGrid grid = ls::uniform_grid(0.05, 6.0, 700, false);
  for (const bool classic : {false, true}) {
    ls::Options options;
    if (classic) {
      options.form = ls::Form::classic;
      options.floating_mean = true;
    }
    const std::vector<ls::Series> first{noisy_sinusoid(120, 5.0, 1.0, 21, !classic),
                                        noisy_sinusoid(61, 4.0, 0.6, 22, !classic)};
    std::vector<ls::Series> second{noisy_sinusoid(333, 9.0, 2.0, 23, !classic),
                                   noisy_sinusoid(45, 3.0, 0.7, 24, !classic)};
    if (classic) second[1].weights.assign(second[1].t.size(), 0.5);
    for (const ls::Algorithm algorithm : every_algorithm) {
      options.algorithm = algorithm;
      ls::Periodogram<double> updated(first, grid, options);
      updated.compute();
      // A copy (on host backends a mirror view would be the power array itself).
      const auto before = Kokkos::create_mirror(Kokkos::HostSpace(), updated.power());
      Kokkos::deep_copy(before, updated.power());
      updated.update(second);
      updated.compute();
      ls::Periodogram<double> fresh(second, grid, options);
      fresh.compute();
      const auto got = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), updated.power());
      const auto want = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), fresh.power());
      bool changed = false;
      for (std::size_t s = 0; s < second.size(); ++s)
        for (std::size_t k = 0; k < grid.size(); ++k) {
          ASSERT_EQ(got(s, k), want(s, k)) << ls::name_of(algorithm) << (classic ? " classic" : " generalized")
                                           << " series " << s << " frequency " << k;
          changed = changed || got(s, k) != before(s, k);
        }
      EXPECT_TRUE(changed) << ls::name_of(algorithm);
    }
  }
  ls::Periodogram<double> one({noisy_sinusoid(50, 5.0, 1.0, 25, true)}, grid, ls::Options{});
  EXPECT_THROW(one.update({noisy_sinusoid(50, 5.0, 1.0, 26, true), noisy_sinusoid(50, 5.0, 1.0, 27, true)}),
               InputError);
  ls::Series bad = noisy_sinusoid(50, 5.0, 1.0, 28, true);
  bad.y[7] = std::nan("");
  EXPECT_THROW(one.update({bad}), InputError);
}

TEST(LombScargle, UpdateWithSeriesOfTheSameLengthsSortsTheNufftSamplesAgain) {
  // Periodogram::update keeps a NUFFT plan (grids, FFT plan, correction) for
  // series of the lengths it was made for and sorts the new samples into it:
  // the same bits as a new periodogram, for one- and multi-term models; new
  // lengths make a new plan. 150000 frequencies: grids past the host path's
  // per-series limit, so hosts take the sorted (device) path too.
  const ls::FrequencyGrid grid = ls::uniform_grid(0.02, 40.0, 150000, false);
  const auto batch = [](std::size_t a, std::size_t b, unsigned seed, bool with_dy) {
    return std::vector<ls::Series>{noisy_sinusoid(a, 5.0 + seed % 3, 1.0, seed, with_dy),
                                   noisy_sinusoid(b, 3.0, 0.6, seed + 1, with_dy)};
  };
  for (const int nterms : {1, 2}) {
    for (const bool classic : {false, true}) {
      if (classic && nterms > 1) continue;
      ls::Options options;
      options.algorithm = ls::Algorithm::nufft;
      options.nterms = nterms;
      if (classic) options.form = ls::Form::classic;
      // Then the same total in other lengths, and another total.
      const std::vector<std::vector<ls::Series>> batches{batch(140, 75, 31, !classic), batch(140, 75, 41, !classic),
                                                         batch(140, 75, 51, !classic), batch(75, 140, 71, !classic),
                                                         batch(90, 75, 61, !classic)};
      ls::Periodogram<double> updated(batches[0], grid, options);
      updated.compute();
      for (std::size_t b = 1; b < batches.size(); ++b) {
        const auto before = Kokkos::create_mirror(Kokkos::HostSpace(), updated.power());
        Kokkos::deep_copy(before, updated.power());
        updated.update(batches[b]);
        updated.compute();
        ls::Periodogram<double> fresh(batches[b], grid, options);
        fresh.compute();
        const auto got = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), updated.power());
        const auto want = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), fresh.power());
        std::size_t changed = 0;
        for (std::size_t s = 0; s < 2; ++s)
          for (std::size_t k = 0; k < grid.size(); ++k) {
            ASSERT_EQ(got(s, k), want(s, k)) << "nterms " << nterms << (classic ? " classic" : " generalized")
                                             << " batch " << b << " series " << s << " frequency " << k;
            changed += got(s, k) != before(s, k);
          }
        EXPECT_GT(changed, grid.size()) << "nterms " << nterms << " batch " << b;
      }
    }
  }
}

TEST(LombScargle, NufftSortsOnTheDeviceAsOnTheHost) {
  // Series of up to 2048 samples are sorted by a team each (in scratch), a
  // batch with a longer one on the host: a short series' power must be the
  // same bits in both, ties in position (repeated times) included. 150000
  // frequencies: grids past the host path's limit, so hosts sort too.
  const ls::FrequencyGrid grid = ls::uniform_grid(0.02, 40.0, 150000, false);
  ls::Series short_series = noisy_sinusoid(300, 5.0, 1.0, 81, true);
  for (std::size_t j = 0; j < 40; ++j) short_series.t[2 * j + 1] = short_series.t[2 * j];  // ties
  for (std::size_t j = 1; j < short_series.t.size(); ++j)                                  // times need not be sorted
    if (j % 7 == 0) std::swap(short_series.t[j], short_series.t[j - 1]);
  const ls::Series long_series = noisy_sinusoid(2500, 6.0, 0.8, 82, true);
  for (const int nterms : {1, 2}) {
    ls::Options options;
    options.algorithm = ls::Algorithm::nufft;
    options.nterms = nterms;
    const auto alone = run<double>({short_series}, grid, options);
    const auto with_long = run<double>({short_series, long_series}, grid, options);
    ASSERT_EQ(alone[0].size(), with_long[0].size());
    for (std::size_t k = 0; k < grid.size(); ++k)
      ASSERT_EQ(alone[0][k], with_long[0][k]) << "nterms " << nterms << " frequency " << k;
    const auto alone_float = run<float>({short_series}, grid, options);
    const auto with_long_float = run<float>({short_series, long_series}, grid, options);
    for (std::size_t k = 0; k < grid.size(); ++k)
      ASSERT_EQ(alone_float[0][k], with_long_float[0][k]) << "float, nterms " << nterms << " frequency " << k;
  }
}

TEST(LombScargle, AlgorithmsAgreeOnExplicitGrids) {
  const ls::Series series = noisy_sinusoid(500, 30.0, 0.4, 8, true);
  std::vector<double> frequencies;
  std::mt19937 rng(9);
  std::uniform_real_distribution<double> pick(0.01, 3.0);
  for (int k = 0; k < 700; ++k) frequencies.push_back(pick(rng));
  const ls::FrequencyGrid grid = ls::explicit_grid(frequencies, false);
  const auto ref = reference::astropy_lombscargle(series.t, series.y, series.dy, grid.values, true, true, "standard");
  ls::Options options;
  for (const auto algorithm : {ls::Algorithm::automatic, ls::Algorithm::direct, ls::Algorithm::tiled}) {
    options.algorithm = algorithm;
    EXPECT_LT(peak_relative_error(run<double>({series}, grid, options)[0], ref), 1e-10) << ls::name_of(algorithm);
  }
  EXPECT_EQ(ls::resolve_algorithm(ls::Algorithm::automatic, grid), ls::Algorithm::tiled);
  EXPECT_EQ(ls::resolve_algorithm(ls::Algorithm::automatic, ls::uniform_grid(1, 2, 3, false)),
            ls::Algorithm::recurrence);
  EXPECT_EQ(
      ls::resolve_algorithm(ls::Algorithm::automatic, ls::uniform_grid(1, 2, ls::nufft_minimum_frequencies, false)),
      ls::Algorithm::nufft);
}

TEST(LombScargle, Grids) {
  const auto angular = ls::uniform_grid(2 * M_PI, 4 * M_PI, 3, true);
  EXPECT_NEAR(angular.values[0], 1.0, 1e-15);
  EXPECT_NEAR(angular.values[2], 2.0, 1e-15);
  EXPECT_TRUE(angular.uniform);
  EXPECT_FALSE(ls::explicit_grid({1.0, 3.0}, false).uniform);

  // astropy's autofrequency, written out.
  const std::vector<double> t{0.3, 2.0, 7.5, 10.3, 4.4};
  const double baseline = 10.0, samples_per_peak = 5, nyquist_factor = 5;
  const double df = 1 / baseline / samples_per_peak;
  const double f_max = nyquist_factor * 0.5 * t.size() / baseline;
  const auto automatic = ls::automatic_grid(t, samples_per_peak, nyquist_factor);
  ASSERT_EQ(automatic.size(), static_cast<std::size_t>(1 + std::llround((f_max - 0.5 * df) / df)));
  EXPECT_DOUBLE_EQ(automatic.values.front(), 0.5 * df);
  EXPECT_NEAR(automatic.values.back(), f_max, df / 2);
}

TEST(LombScargle, GridChecksTakeUniformGridsByTheirEnds) {
  // A uniform grid is checked by its first value, step and ends; an explicit
  // one value by value, so a bad value in its middle is found.
  const ls::FrequencyGrid good = ls::uniform_grid(0.5, 3.0, 1001, false);
  EXPECT_NO_THROW(ls::check_grid(good));
  ls::FrequencyGrid bad_step = good;
  bad_step.step = std::nan("");
  EXPECT_THROW(ls::check_grid(bad_step), InputError);
  ls::FrequencyGrid bad_end = good;
  bad_end.values.back() = -1.0;
  EXPECT_THROW(ls::check_grid(bad_end), InputError);
  ls::FrequencyGrid listed = ls::explicit_grid({0.5, 1.0, 2.0}, false);
  listed.values[1] = std::nan("");
  EXPECT_THROW(ls::check_grid(listed), InputError);
  EXPECT_THROW(ls::check_grid(ls::FrequencyGrid{}), InputError);
  // The constructor checks the grid so.
  EXPECT_THROW(ls::Periodogram<double>({noisy_sinusoid(64, 10.0, 1.3, 5, false)}, listed, ls::Options{}), InputError);
}

TEST(LombScargle, FastMathBaselineComputesTheSamePeriodogramOrRefuses) {
  const ls::Series series = noisy_sinusoid(256, 10.0, 1.3, 13, false);
  const ls::FrequencyGrid grid = ls::uniform_grid(0.1, 3.0, 500, false);
  ls::Options options;
  options.form = ls::Form::classic;
  const auto ref = reference::scipy_lombscargle(
      series.t, series.y,
      [&] {
        std::vector<double> w;
        for (double f : grid.values) w.push_back(2 * M_PI * f);
        return w;
      }(),
      false, false);
  ls::Periodogram<float> periodogram({series}, grid, options);
#if defined(KOKKOS_ENABLE_CUDA)
  ls::baselines::compute_direct_fast_math(periodogram);
  const auto power = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), periodogram.power());
  std::vector<double> values(grid.size());
  for (std::size_t k = 0; k < grid.size(); ++k) values[k] = power(0, k);
  EXPECT_LT(peak_relative_error(values, ref), 1e-2);  // approximate sin/cos of phases up to ~200 rad
#else
  EXPECT_THROW(ls::baselines::compute_direct_fast_math(periodogram), InputError);
#endif
}

TEST(LombScargle, BadInputIsAnError) {
  const ls::FrequencyGrid grid = ls::uniform_grid(0.1, 1.0, 10, false);
  const ls::Series good = noisy_sinusoid(10, 5.0, 0.5, 10, true);
  ls::Options generalized;
  ls::Options classic;
  classic.form = ls::Form::classic;
  const auto compute = [&](ls::Series series, const ls::Options& options) {
    return [series, &grid, options] { ls::periodogram<double>({series}, grid, options); };
  };
  ls::Series bad = good;
  bad.t[3] = NAN;
  expect_input_error(compute(bad, generalized), "t[3] is nan");
  bad = good;
  bad.y[0] = INFINITY;
  expect_input_error(compute(bad, generalized), "y[0] is inf");
  bad = good;
  bad.dy[5] = NAN;
  expect_input_error(compute(bad, generalized), "dy[5] is nan");
  bad = good;
  bad.dy[2] = 0;
  expect_input_error(compute(bad, generalized), "dy[2] is 0.000000 (uncertainties must be > 0)");
  bad = good;
  bad.y.pop_back();
  expect_input_error(compute(bad, generalized), "t has 10 samples but y has 9");
  bad = good;
  bad.dy.pop_back();
  expect_input_error(compute(bad, generalized), "t has 10 samples but dy has 9");
  ls::Series two{{0.0, 1.0}, {1.0, 2.0}, {}, {}};
  expect_input_error(compute(two, generalized), "needs at least 3 samples with fit_mean, got 2");
  EXPECT_NO_THROW(compute(two, classic)());
  ls::Series one{{0.0}, {1.0}, {}, {}};
  expect_input_error(compute(one, classic), "needs at least 2 samples, got 1");
  expect_input_error(compute(good, classic), "classic form takes no uncertainties");
  expect_input_error([&] { ls::periodogram<double>({good, bad}, grid, generalized); }, "series 1: ");
  expect_input_error([&] { ls::periodogram<double>({}, grid, generalized); }, "no time series");

  expect_input_error([] { ls::uniform_grid(0.1, 1.0, 0, false); }, "empty");
  expect_input_error([] { ls::uniform_grid(0.0, 1.0, 5, false); }, "minimum must be positive");
  expect_input_error([] { ls::uniform_grid(1.0, NAN, 5, false); }, "maximum must be positive and finite");
  expect_input_error([] { ls::uniform_grid(2.0, 1.0, 5, false); }, "below minimum");
  expect_input_error([] { ls::explicit_grid({}, false); }, "empty list");
  expect_input_error([] { ls::explicit_grid({1.0, -2.0}, false); }, "frequency 1 is -2");
  expect_input_error([] { ls::explicit_grid({INFINITY}, false); }, "frequency 0 is inf");
  for (const auto& [algorithm, message] :
       {std::pair{ls::Algorithm::recurrence, "needs a uniform frequency grid"},
        std::pair{ls::Algorithm::nufft, "the nufft algorithm needs a uniform frequency grid"}}) {
    ls::Options options;
    options.algorithm = algorithm;
    expect_input_error(
        [&] {
          ls::periodogram<double>({good}, ls::explicit_grid({1.0, 2.0}, false), options);
        },
        message);
  }
  ls::Options nufft;
  nufft.algorithm = ls::Algorithm::nufft;
  for (double tolerance : {-1e-6, 1.0, double(NAN)}) {
    nufft.nufft_tolerance = tolerance;
    expect_input_error(compute(good, nufft), "nufft_tolerance must be in (0, 1)");
  }
  nufft.nufft_tolerance = 0;
  for (long long limit : {-64LL, 32LL, 1000LL}) {
    nufft.nufft_grid_limit = limit;
    expect_input_error(compute(good, nufft), "nufft_grid_limit must be a power of two >= 64");
  }
  expect_input_error([] { ls::automatic_grid({1.0, 1.0, 1.0}, 5, 5); }, "all sample times are equal");
}

}  // namespace
