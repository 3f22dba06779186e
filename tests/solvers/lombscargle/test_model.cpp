// The best-fit sinusoid (fit_sinusoid) against a plain weighted least-squares
// solve written here (Gram-Schmidt QR of the weighted design matrix, not the
// normal equations), exact recovery of a noiseless sinusoid, and the
// periodogram's meaning: standard power = 1 - chi2(model) / chi2(mean).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "solvers/lombscargle/model.hpp"
#include "solvers/lombscargle/periodogram.hpp"

namespace {

namespace ls = portasolve::lombscargle;

ls::Series sinusoid(std::size_t n, double frequency, double amplitude, double phase, double offset, double noise,
                    unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> when(0.0, 25.0), spread(0.2, 0.8), weight(0.1, 3.0);
  std::normal_distribution<double> gaussian(0.0, 1.0);
  ls::Series series;
  for (std::size_t j = 0; j < n; ++j) {
    series.t.push_back(when(rng));
    series.dy.push_back(spread(rng));
    series.weights.push_back(weight(rng));
  }
  for (std::size_t j = 0; j < n; ++j)
    series.y.push_back(offset + amplitude * std::sin(2 * M_PI * frequency * series.t[j] + phase) +
                       noise * series.dy[j] * gaussian(rng));
  return series;
}

// Weighted least squares of y ~ columns by modified Gram-Schmidt on the rows
// scaled by sqrt(w): the coefficients.
std::vector<double> least_squares(const std::vector<std::vector<double>>& columns, const std::vector<double>& y,
                                  const std::vector<double>& w) {
  const std::size_t n = y.size(), p = columns.size();
  std::vector<std::vector<double>> q(p, std::vector<double>(n));
  std::vector<std::vector<double>> r(p, std::vector<double>(p, 0.0));
  for (std::size_t c = 0; c < p; ++c)
    for (std::size_t j = 0; j < n; ++j) q[c][j] = std::sqrt(w[j]) * columns[c][j];
  for (std::size_t c = 0; c < p; ++c) {
    for (std::size_t k = 0; k < c; ++k) {
      double dot = 0;
      for (std::size_t j = 0; j < n; ++j) dot += q[k][j] * q[c][j];
      r[k][c] = dot;
      for (std::size_t j = 0; j < n; ++j) q[c][j] -= dot * q[k][j];
    }
    double norm = 0;
    for (std::size_t j = 0; j < n; ++j) norm += q[c][j] * q[c][j];
    r[c][c] = std::sqrt(norm);
    for (std::size_t j = 0; j < n; ++j) q[c][j] /= r[c][c];
  }
  std::vector<double> qty(p, 0.0), x(p, 0.0);
  for (std::size_t c = 0; c < p; ++c)
    for (std::size_t j = 0; j < n; ++j) qty[c] += q[c][j] * std::sqrt(w[j]) * y[j];
  for (std::size_t c = p; c-- > 0;) {
    double sum = qty[c];
    for (std::size_t k = c + 1; k < p; ++k) sum -= r[c][k] * x[k];
    x[c] = sum / r[c][c];
  }
  return x;
}

// The reference fit: weights and mean as model.hpp states them, then the
// plain least squares of y - mean on sin, cos (and 1).
ls::SinusoidFit reference_fit(const ls::Series& series, double frequency, bool generalized, bool weighted,
                              bool remove_mean, bool fit_offset) {
  const std::size_t n = series.t.size();
  std::vector<double> w(n, 1.0);
  if (weighted)
    for (std::size_t j = 0; j < n; ++j) w[j] = generalized ? 1 / (series.dy[j] * series.dy[j]) : series.weights[j];
  double mean = 0;
  if (remove_mean) {
    double w_sum = 0;
    for (std::size_t j = 0; j < n; ++j) {
      const double wj = generalized ? w[j] : 1.0;  // classic precenter: the plain mean
      mean += wj * series.y[j];
      w_sum += wj;
    }
    mean /= w_sum;
  }
  std::vector<std::vector<double>> columns(fit_offset ? 3 : 2, std::vector<double>(n, 1.0));
  std::vector<double> centred(n);
  for (std::size_t j = 0; j < n; ++j) {
    columns[0][j] = std::sin(2 * M_PI * frequency * series.t[j]);
    columns[1][j] = std::cos(2 * M_PI * frequency * series.t[j]);
    centred[j] = series.y[j] - mean;
  }
  const std::vector<double> x = least_squares(columns, centred, w);
  return ls::SinusoidFit{std::hypot(x[0], x[1]), std::atan2(x[1], x[0]), mean + (fit_offset ? x[2] : 0.0)};
}

void expect_fit_near(const ls::SinusoidFit& fit, const ls::SinusoidFit& ref, double tolerance,
                     const std::string& what) {
  EXPECT_NEAR(fit.amplitude, ref.amplitude, tolerance * std::fabs(ref.amplitude)) << what;
  EXPECT_NEAR(std::remainder(fit.phase - ref.phase, 2 * M_PI), 0.0, tolerance) << what;
  EXPECT_NEAR(fit.offset, ref.offset, tolerance * (1 + std::fabs(ref.offset))) << what;
}

TEST(LombScargleModel, NoiselessSinusoidIsRecoveredExactly) {
  const ls::Series series = sinusoid(80, 0.37, 2.0, 0.7, 3.0, 0.0, 1);
  ls::Options generalized;
  expect_fit_near(ls::fit_sinusoid(series, 0.37, generalized), ls::SinusoidFit{2.0, 0.7, 3.0}, 1e-12, "generalized");
  ls::Options classic;
  classic.form = ls::Form::classic;
  classic.floating_mean = true;
  expect_fit_near(ls::fit_sinusoid(series, 0.37, classic), ls::SinusoidFit{2.0, 0.7, 3.0}, 1e-12, "classic");
  ls::Series negative = sinusoid(80, 0.37, 2.0, -2.5, -1.0, 0.0, 2);
  expect_fit_near(ls::fit_sinusoid(negative, 0.37, generalized), ls::SinusoidFit{2.0, -2.5, -1.0}, 1e-12,
                  "negative phase");
}

TEST(LombScargleModel, MatchesAPlainWeightedLeastSquares) {
  const ls::Series series = sinusoid(150, 0.8, 1.2, 1.1, 5.0, 1.0, 3);
  ls::Series no_dy = series;
  no_dy.dy.clear();
  ls::Series no_weights = series;
  no_weights.weights.clear();
  for (const double frequency : {0.8, 0.31, 2.9}) {
    for (bool fit_mean : {false, true}) {
      for (bool center_data : {false, true}) {
        for (bool with_dy : {false, true}) {
          ls::Options options;
          options.fit_mean = fit_mean;
          options.center_data = center_data;
          const ls::Series& input = with_dy ? series : no_dy;
          expect_fit_near(ls::fit_sinusoid(input, frequency, options),
                          reference_fit(input, frequency, true, with_dy, fit_mean || center_data, fit_mean), 1e-9,
                          "generalized f=" + std::to_string(frequency) + " fit_mean=" + std::to_string(fit_mean) +
                              " center=" + std::to_string(center_data) + " dy=" + std::to_string(with_dy));
        }
      }
    }
    for (bool floating_mean : {false, true}) {
      for (bool precenter : {false, true}) {
        for (bool with_weights : {false, true}) {
          ls::Options options;
          options.form = ls::Form::classic;
          options.floating_mean = floating_mean;
          options.precenter = precenter;
          const ls::Series& input = with_weights ? series : no_weights;
          expect_fit_near(ls::fit_sinusoid(input, frequency, options),
                          reference_fit(input, frequency, false, with_weights, precenter, floating_mean), 1e-9,
                          "classic f=" + std::to_string(frequency) + " floating=" + std::to_string(floating_mean) +
                              " precenter=" + std::to_string(precenter) + " w=" + std::to_string(with_weights));
        }
      }
    }
  }
}

TEST(LombScargleModel, StandardPowerIsTheFitsShareOfChiSquared) {
  const ls::Series series = sinusoid(120, 0.55, 0.9, 0.2, 2.0, 1.0, 4);
  ls::Options options;  // generalized, fit_mean, center_data, standard
  ls::Series input = series;
  input.weights.clear();
  for (const double frequency : {0.55, 0.9, 1.7}) {
    const auto power = Kokkos::create_mirror_view_and_copy(
        Kokkos::HostSpace(), ls::periodogram<double>({input}, ls::explicit_grid({frequency}, false), options));
    const ls::SinusoidFit fit = ls::fit_sinusoid(input, frequency, options);
    double w_sum = 0, mean = 0;
    for (std::size_t j = 0; j < input.t.size(); ++j) {
      const double w = 1 / (input.dy[j] * input.dy[j]);
      w_sum += w;
      mean += w * input.y[j];
    }
    mean /= w_sum;
    double chi2_model = 0, chi2_mean = 0;
    for (std::size_t j = 0; j < input.t.size(); ++j) {
      const double w = 1 / (input.dy[j] * input.dy[j]);
      const double model = fit.offset + fit.amplitude * std::sin(2 * M_PI * frequency * input.t[j] + fit.phase);
      chi2_model += w * (input.y[j] - model) * (input.y[j] - model);
      chi2_mean += w * (input.y[j] - mean) * (input.y[j] - mean);
    }
    EXPECT_NEAR(power(0, 0), 1 - chi2_model / chi2_mean, 1e-10) << frequency;
  }
}

}  // namespace
