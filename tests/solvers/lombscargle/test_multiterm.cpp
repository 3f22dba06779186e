// Multi-term models (nterms) against a float64 host reference written the way
// astropy's method="chi2" defines them: the design matrix X built column by
// column, X^T X beta = X^T y solved by Gaussian elimination, p = X^T y . beta.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "core/errors.hpp"
#include "solvers/lombscargle/baseline_fast_math.hpp"
#include "solvers/lombscargle/periodogram.hpp"
#include "tests/solvers/lombscargle/helpers.hpp"
#include "tests/solvers/lombscargle/reference.hpp"

namespace {

namespace ls = portasolve::lombscargle;
using portasolve::InputError;
using portasolve::OptionError;
using namespace ls::testing;

const std::vector<std::string> normalizations{"standard", "model", "log", "psd"};

// A two-harmonic signal with an offset and noise: nterms 2 and 3 see more
// than nterms 1 does.
ls::Series two_harmonics(std::size_t n, double span, double frequency, unsigned seed, bool with_dy) {
  return noisy_series(n, span, seed, with_dy, [frequency](double t) {
    return 1.5 + 2.0 * std::sin(2 * M_PI * frequency * t + 0.3) + 1.2 * std::cos(4 * M_PI * frequency * t - 0.7);
  });
}

// Solves a x = b (a square, row-major) by Gaussian elimination with partial
// pivoting: a different route from the solver's Cholesky.
std::vector<double> solve(std::vector<std::vector<double>> a, std::vector<double> b) {
  const std::size_t n = b.size();
  for (std::size_t col = 0; col < n; ++col) {
    std::size_t pivot = col;
    for (std::size_t row = col + 1; row < n; ++row)
      if (std::fabs(a[row][col]) > std::fabs(a[pivot][col])) pivot = row;
    std::swap(a[col], a[pivot]);
    std::swap(b[col], b[pivot]);
    for (std::size_t row = col + 1; row < n; ++row) {
      const double factor = a[row][col] / a[col][col];
      for (std::size_t k = col; k < n; ++k) a[row][k] -= factor * a[col][k];
      b[row] -= factor * b[col];
    }
  }
  std::vector<double> x(n);
  for (std::size_t i = n; i-- > 0;) {
    double v = b[i];
    for (std::size_t k = i + 1; k < n; ++k) v -= a[i][k] * x[k];
    x[i] = v / a[i][i];
  }
  return x;
}

// astropy's lombscargle_chi2 (5.2), line by line: w = dy^-2 / sum, yw = (y -
// w.y) / dy when centring, X = design_matrix(t, f, dy, bias=fit_mean, nterms),
// p = X^T yw . (X^T X)^-1 X^T yw, then the normalization against yw . yw.
std::vector<double> chi2_reference(const ls::Series& series, const std::vector<double>& frequency, int nterms,
                                   bool fit_mean, bool center_data, const std::string& normalization) {
  const std::size_t n = series.t.size();
  const std::vector<double> dy = series.dy.empty() ? std::vector<double>(n, 1.0) : series.dy;
  double w_sum = 0, mean = 0;
  for (std::size_t j = 0; j < n; ++j) w_sum += 1 / (dy[j] * dy[j]);
  for (std::size_t j = 0; j < n; ++j) mean += series.y[j] / (dy[j] * dy[j]) / w_sum;
  std::vector<double> yw(n);
  double chi2_ref = 0;
  for (std::size_t j = 0; j < n; ++j) {
    yw[j] = (center_data || fit_mean ? series.y[j] - mean : series.y[j]) / dy[j];
    chi2_ref += yw[j] * yw[j];
  }
  std::vector<double> power;
  for (double f : frequency) {
    std::vector<std::vector<double>> columns;
    if (fit_mean) columns.emplace_back(n, 1.0);
    for (int k = 1; k <= nterms; ++k) {
      std::vector<double> sine(n), cosine(n);
      for (std::size_t j = 0; j < n; ++j) {
        sine[j] = std::sin(2 * M_PI * k * f * series.t[j]);
        cosine[j] = std::cos(2 * M_PI * k * f * series.t[j]);
      }
      columns.push_back(sine);
      columns.push_back(cosine);
    }
    for (auto& column : columns)
      for (std::size_t j = 0; j < n; ++j) column[j] /= dy[j];
    const std::size_t size = columns.size();
    std::vector<std::vector<double>> xtx(size, std::vector<double>(size, 0.0));
    std::vector<double> xty(size, 0.0);
    for (std::size_t a = 0; a < size; ++a) {
      for (std::size_t j = 0; j < n; ++j) xty[a] += columns[a][j] * yw[j];
      for (std::size_t b = 0; b < size; ++b)
        for (std::size_t j = 0; j < n; ++j) xtx[a][b] += columns[a][j] * columns[b][j];
    }
    const std::vector<double> beta = solve(xtx, xty);
    double p = 0;
    for (std::size_t a = 0; a < size; ++a) p += xty[a] * beta[a];
    if (normalization == "psd")
      p *= 0.5;
    else if (normalization == "model")
      p /= chi2_ref - p;
    else if (normalization == "log")
      p = -std::log(1 - p / chi2_ref);
    else
      p /= chi2_ref;
    power.push_back(p);
  }
  return power;
}

TEST(LombScargleMultiterm, MatchesChi2ReferenceEveryNormalizationBatched) {
  for (bool with_dy : {false, true}) {
    // Different lengths and spans in one batch (ragged storage).
    const std::vector<ls::Series> batch{two_harmonics(157, 20.0, 0.7, 11, with_dy),
                                        two_harmonics(64, 12.0, 1.3, 12, with_dy),
                                        two_harmonics(211, 30.0, 0.45, 13, with_dy)};
    const ls::FrequencyGrid grid = ls::uniform_grid(0.05, 3.0, 301, /*angular=*/false);
    for (int nterms = 1; nterms <= 3; ++nterms) {
      for (bool fit_mean : {false, true}) {
        for (bool center_data : {false, true}) {
          for (const std::string& normalization : normalizations) {
            ls::Options options;
            options.nterms = nterms;
            options.fit_mean = fit_mean;
            options.center_data = center_data;
            options.normalization = ls::normalization_from_name(normalization);
            options.algorithm = ls::Algorithm::direct;  // auto: the NUFFT's sums on this grid (below)
            const auto power_double = run<double>(batch, grid, options);
            const auto power_float = run<float>(batch, grid, options);
            for (std::size_t s = 0; s < batch.size(); ++s) {
              const auto ref = chi2_reference(batch[s], grid.values, nterms, fit_mean, center_data, normalization);
              const std::string what = normalization + " nterms=" + std::to_string(nterms) +
                                       " fit_mean=" + std::to_string(fit_mean) +
                                       " center_data=" + std::to_string(center_data) +
                                       " dy=" + std::to_string(with_dy) + " series " + std::to_string(s);
              EXPECT_LT(peak_relative_error(power_double[s], ref), 1e-10) << what;
              EXPECT_LT(peak_relative_error(power_float[s], ref), 1e-4) << what;
            }
          }
        }
      }
    }
  }
}

// The NUFFT's multi-term sums (harmonic k of f0 + m df as a NUFFT on k f0 +
// m k df, nufft.hpp) against the direct multi-term sums on the same data,
// relative to the peak as the one-term NUFFT tests hold it: every
// normalization, fit_mean and center_data, with and without dy, a ragged
// batch, float and double, whole and segmented grids (nufft_grid_limit 64:
// 38 segments). The grid starts far below 1 / baseline, where the NUFFT sums
// the ill-conditioned frequencies directly.
TEST(LombScargleMultiterm, NufftMatchesDirectEveryNormalizationBatched) {
  for (bool with_dy : {false, true}) {
    const std::vector<ls::Series> batch{two_harmonics(157, 20.0, 0.7, 31, with_dy),
                                        two_harmonics(64, 12.0, 1.3, 32, with_dy),
                                        two_harmonics(211, 30.0, 0.45, 33, with_dy)};
    const ls::FrequencyGrid grid = ls::uniform_grid(0.005, 3.0, 1201, /*angular=*/false);
    for (int nterms = 2; nterms <= 3; ++nterms) {
      for (bool fit_mean : {false, true}) {
        for (bool center_data : {false, true}) {
          for (const std::string& normalization : normalizations) {
            for (long long limit : {0LL, 64LL}) {
              ls::Options options;
              options.nterms = nterms;
              options.fit_mean = fit_mean;
              options.center_data = center_data;
              options.normalization = ls::normalization_from_name(normalization);
              options.nufft_grid_limit = limit;
              options.algorithm = ls::Algorithm::direct;
              const auto direct_double = run<double>(batch, grid, options);
              const auto direct_float = run<float>(batch, grid, options);
              options.algorithm = ls::Algorithm::nufft;
              const auto nufft_double = run<double>(batch, grid, options);
              const auto nufft_float = run<float>(batch, grid, options);
              for (std::size_t s = 0; s < batch.size(); ++s) {
                const std::string what =
                    normalization + " nterms=" + std::to_string(nterms) + " fit_mean=" + std::to_string(fit_mean) +
                    " center_data=" + std::to_string(center_data) + " dy=" + std::to_string(with_dy) +
                    " limit=" + std::to_string(limit) + " series " + std::to_string(s);
                EXPECT_LT(peak_relative_error(nufft_double[s], direct_double[s]), 1e-10) << what;
                EXPECT_LT(peak_relative_error(nufft_float[s], direct_float[s]), 1e-4) << what;
              }
            }
          }
        }
      }
    }
  }
}

TEST(LombScargleMultiterm, NufftBatchEqualsSeriesAlone) {
  // Each series' grids, transform and solve are its own: bit for bit alone
  // and in a batch (the streaming driver's chunks rely on it).
  const std::vector<ls::Series> batch{two_harmonics(64, 5.0, 1.0, 5, true), two_harmonics(301, 9.0, 2.0, 6, true),
                                      two_harmonics(17, 2.0, 0.5, 7, true), two_harmonics(90, 7.0, 1.5, 8, true)};
  const ls::FrequencyGrid grid = ls::uniform_grid(0.05, 3.0, 500, false);
  ls::Options options;
  options.nterms = 3;
  options.algorithm = ls::Algorithm::nufft;
  const auto power = run<float>(batch, grid, options);
  for (std::size_t s = 0; s < batch.size(); ++s) {
    const auto single = run<float>({batch[s]}, grid, options)[0];
    for (std::size_t k = 0; k < grid.size(); ++k) ASSERT_EQ(power[s][k], single[k]) << "series " << s << " " << k;
  }
}

TEST(LombScargleMultiterm, NufftOnLongGridsMatchesDirect) {
  // 80000 frequencies: 3 nterms sums of 1.5 x 80000 points are more than the
  // host path's 8 MiB a series, so host backends take the chunked path
  // (samples sorted per harmonic, gather spreading, one transform over the
  // chunk's rows), the path GPUs take.
  const std::vector<ls::Series> batch{two_harmonics(120, 50.0, 0.7, 41, true), two_harmonics(75, 40.0, 3.1, 42, true)};
  const ls::FrequencyGrid grid = ls::uniform_grid(0.01, 40.0, 80000, false);
  for (int nterms = 2; nterms <= 3; ++nterms) {
    for (bool fit_mean : {false, true}) {
      ls::Options options;
      options.nterms = nterms;
      options.fit_mean = fit_mean;
      options.algorithm = ls::Algorithm::direct;
      const auto direct_double = run<double>(batch, grid, options);
      const auto direct_float = run<float>(batch, grid, options);
      options.algorithm = ls::Algorithm::nufft;
      const auto nufft_double = run<double>(batch, grid, options);
      const auto nufft_float = run<float>(batch, grid, options);
      for (std::size_t s = 0; s < batch.size(); ++s) {
        const std::string what = "nterms=" + std::to_string(nterms) + " fit_mean=" + std::to_string(fit_mean) +
                                 " series " + std::to_string(s);
        EXPECT_LT(peak_relative_error(nufft_double[s], direct_double[s]), 1e-10) << what;
        EXPECT_LT(peak_relative_error(nufft_float[s], direct_float[s]), 1e-4) << what;
      }
    }
  }
}

TEST(LombScargleMultiterm, NtermsOneKernelEqualsTheGeneralizedPeriodogram) {
  // The normal equations with nterms = 1 are the generalized (floating mean)
  // periodogram's closed form; both against astropy's nterms=1 reference.
  for (bool with_dy : {false, true}) {
    const ls::Series series = two_harmonics(257, 20.0, 0.7, 21, with_dy);
    const ls::FrequencyGrid grid = ls::uniform_grid(0.01, 5.0, 1001, false);
    for (bool fit_mean : {false, true}) {
      for (const std::string& normalization : normalizations) {
        ls::Options options;
        options.fit_mean = fit_mean;
        options.normalization = ls::normalization_from_name(normalization);
        options.algorithm = ls::Algorithm::direct;
        ls::Periodogram<double> periodogram({series}, grid, options);
        periodogram.compute();
        const auto closed_form = rows_of<double>(periodogram.power())[0];
        periodogram.compute_multiterm();
        const auto normal_equations = rows_of<double>(periodogram.power())[0];
        const auto ref =
            reference::astropy_lombscargle(series.t, series.y, series.dy, grid.values, fit_mean, true, normalization);
        const std::string what =
            normalization + " fit_mean=" + std::to_string(fit_mean) + " dy=" + std::to_string(with_dy);
        EXPECT_LT(peak_relative_error(normal_equations, closed_form), 1e-10) << what;
        EXPECT_LT(peak_relative_error(normal_equations, ref), 1e-10) << what;
      }
    }
  }
}

TEST(LombScargleMultiterm, ExactTwoHarmonicSignalHasUnitStandardPowerOnlyWithTwoTerms) {
  // Noise-free offset + harmonics 1 and 2 at f0 is fitted exactly by nterms
  // >= 2 there (standard power 1); nterms 1 misses the second harmonic.
  const double f0 = 0.8125;
  const ls::Series series = exact_series(200, 40.0, 3, [f0](double t) {
    return 3.0 + 1.7 * std::cos(2 * M_PI * f0 * t - 1.1) + 0.9 * std::sin(4 * M_PI * f0 * t + 0.4);
  });
  const ls::FrequencyGrid grid = ls::uniform_grid(0.5, 1.125, 101, false);  // step 1/160, f0 on the grid
  const std::size_t at_f0 = 50;
  ASSERT_NEAR(grid.values[at_f0], f0, 1e-12);
  for (const auto algorithm : {ls::Algorithm::direct, ls::Algorithm::nufft}) {
    for (int nterms = 1; nterms <= 3; ++nterms) {
      ls::Options options;
      options.nterms = nterms;
      options.algorithm = algorithm;
      const auto power = run<double>({series}, grid, options)[0];
      const auto peak = std::max_element(power.begin(), power.end()) - power.begin();
      EXPECT_EQ(static_cast<std::size_t>(peak), at_f0) << nterms;
      if (nterms == 1)
        EXPECT_LT(power[at_f0], 0.95);
      else
        EXPECT_NEAR(power[at_f0], 1.0, 1e-10) << nterms << " " << ls::name_of(algorithm);
    }
  }
}

TEST(LombScargleMultiterm, BatchEqualsLoopOverSeriesOnExplicitGrids) {
  const std::vector<ls::Series> batch{two_harmonics(64, 5.0, 1.0, 5, true), two_harmonics(301, 9.0, 2.0, 6, true),
                                      two_harmonics(7, 2.0, 0.5, 7, true)};
  std::vector<double> frequencies;
  std::mt19937 rng(9);
  std::uniform_real_distribution<double> pick(0.05, 3.0);
  for (int k = 0; k < 300; ++k) frequencies.push_back(pick(rng));
  const ls::FrequencyGrid grid = ls::explicit_grid(frequencies, false);
  ls::Options options;
  options.nterms = 3;
  ls::Periodogram<double> periodogram(batch, grid, options);
  EXPECT_EQ(periodogram.algorithm(), ls::Algorithm::direct);
  periodogram.compute();
  const auto power = rows_of<double>(periodogram.power());
  for (std::size_t s = 0; s < batch.size(); ++s) {
    const auto single = run<double>({batch[s]}, grid, options)[0];
    for (std::size_t k = 0; k < grid.size(); ++k) ASSERT_EQ(power[s][k], single[k]) << "series " << s << " " << k;
  }
}

TEST(LombScargleMultiterm, DependentColumnsGiveTheFitOnTheRest) {
  // Integer times and frequency 1/2: every sin(k pi t) is 0, cos(k pi t) is
  // (-1)^t for odd k and 1 (the offset again) for even k. The reduction is
  // that of the fit on the independent columns, offset and a = (-1)^t, not
  // 0 / 0: with sum a = 0 over an even count, standard power
  // (sum w y a)^2 / (sum w y^2) for centred y and w = 1 / n.
  ls::Series series;
  std::mt19937 rng(4);
  std::normal_distribution<double> noise(0.0, 1.0);
  const int n = 40;
  for (int j = 0; j < n; ++j) {
    series.t.push_back(j);
    series.y.push_back(noise(rng));
  }
  double mean = 0, ya = 0, yy = 0;
  for (double y : series.y) mean += y / n;
  for (int j = 0; j < n; ++j) {
    const double centred = series.y[j] - mean;
    ya += centred * (j % 2 == 0 ? 1.0 : -1.0) / n;
    yy += centred * centred / n;
  }
  const ls::FrequencyGrid grid = ls::explicit_grid({0.5}, false);
  for (int nterms = 2; nterms <= 3; ++nterms) {
    ls::Options options;
    options.nterms = nterms;
    const double p = run<double>({series}, grid, options)[0][0];
    EXPECT_NEAR(p, ya * ya / yy, 1e-12) << nterms;
    // The NUFFT on a uniform grid through 1/2: its pivots there fall below the
    // guard, so it sums that frequency directly, as the direct path does.
    const ls::FrequencyGrid uniform = ls::uniform_grid(0.25, 0.75, 101, false);
    ASSERT_NEAR(uniform.values[50], 0.5, 1e-15);
    options.algorithm = ls::Algorithm::direct;
    const auto direct = run<double>({series}, uniform, options)[0];
    options.algorithm = ls::Algorithm::nufft;
    const auto nufft = run<double>({series}, uniform, options)[0];
    EXPECT_NEAR(nufft[50], ya * ya / yy, 1e-12) << nterms;
    EXPECT_LT(peak_relative_error(nufft, direct), 1e-10) << nterms;
  }
}

TEST(LombScargleMultiterm, RefusesWhatItCannotCompute) {
  const ls::Series series = two_harmonics(50, 10.0, 1.0, 8, false);
  const ls::FrequencyGrid grid = ls::uniform_grid(0.1, 2.0, 300, false);
  const auto make = [&](const ls::Options& options) { ls::Periodogram<double> periodogram({series}, grid, options); };
  const auto expect_option_error = [&](const ls::Options& options, const std::string& option,
                                       const std::string& fragment) {
    try {
      make(options);
      ADD_FAILURE() << "no OptionError for " << option;
    } catch (const OptionError& error) {
      EXPECT_EQ(error.option(), option);
      EXPECT_NE(std::string(error.what()).find(fragment), std::string::npos) << error.what();
    }
  };
  for (int nterms : {0, -1, ls::max_nterms + 1}) {
    ls::Options options;
    options.nterms = nterms;
    expect_option_error(options, "nterms", "allowed: 1 to " + std::to_string(ls::max_nterms));
  }
  ls::Options classic;
  classic.form = ls::Form::classic;
  classic.nterms = 2;
  expect_option_error(classic, "nterms", "generalized form");
  for (const auto algorithm : {ls::Algorithm::tiled, ls::Algorithm::recurrence}) {
    ls::Options options;
    options.nterms = 2;
    options.algorithm = algorithm;
    expect_option_error(options, "algorithm", "nterms > 1 runs direct or nufft");
  }
  // auto: on hosts the NUFFT where nterms 1 would take it (uniform grids
  // from nufft_minimum_frequencies on), else direct; on GPUs direct.
  ls::Options automatic;
  automatic.nterms = ls::max_nterms;
  EXPECT_EQ(ls::Periodogram<float>({series}, grid, automatic).algorithm(),
            ls::host_multiterm_nufft ? ls::Algorithm::nufft : ls::Algorithm::direct);
  EXPECT_EQ(ls::Periodogram<float>({series}, ls::uniform_grid(0.1, 2.0, 31, false), automatic).algorithm(),
            ls::Algorithm::direct);
  const ls::FrequencyGrid listed = ls::explicit_grid({0.3, 0.5, 0.6}, false);
  EXPECT_EQ(ls::Periodogram<float>({series}, listed, automatic).algorithm(), ls::Algorithm::direct);
  // The NUFFT's sums need a uniform grid.
  ls::Options nufft;
  nufft.nterms = 2;
  nufft.algorithm = ls::Algorithm::nufft;
  expect_input_error([&] { ls::Periodogram<double> periodogram({series}, listed, nufft); },
                     "the nufft algorithm needs a uniform frequency grid (use direct)");
  // Too few samples for the model's 1 + 2 nterms parameters.
  ls::Series short_series = two_harmonics(6, 10.0, 1.0, 9, false);
  ls::Options three;
  three.nterms = 3;
  try {
    ls::Periodogram<double> periodogram({short_series}, grid, three);
    ADD_FAILURE() << "no InputError";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find("needs at least 7 samples with fit_mean and nterms 3, got 6"),
              std::string::npos)
        << error.what();
  }
  ls::Options classic_one;
  classic_one.form = ls::Form::classic;
  ls::Periodogram<double> classic_periodogram({series}, grid, classic_one);
  EXPECT_THROW(classic_periodogram.compute_multiterm(), OptionError);
  ls::Options two;
  two.nterms = 2;
  ls::Periodogram<double> multiterm({series}, grid, two);
  EXPECT_THROW(ls::baselines::compute_direct_fast_math(multiterm), OptionError);  // a one-term kernel
}

}  // namespace
