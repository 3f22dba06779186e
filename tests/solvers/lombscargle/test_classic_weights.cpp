// The classic form with SciPy 1.15's per-sample weights and floating mean,
// against a float64 reference written as SciPy 1.15 writes it (Debian's SciPy
// is 1.10, which has neither), on every algorithm, float and double, batches.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>

#include "core/errors.hpp"
#include "solvers/lombscargle/periodogram.hpp"
#include "tests/solvers/lombscargle/helpers.hpp"
#include "tests/solvers/lombscargle/reference.hpp"

namespace {

namespace ls = portasolve::lombscargle;
using portasolve::InputError;
using portasolve::OptionError;
using namespace ls::testing;

// An offset sinusoid (so the floating mean matters) with random weights in
// [0, 2), every seventh weight 0 (SciPy allows zeros).
ls::Series weighted_series(std::size_t n, double span, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> weight(0.0, 2.0);
  ls::Series series = random_series(rng, n, span, 0.3, [](double t) { return 1.5 + 2.0 * std::sin(1.3 * t + 0.3); });
  for (std::size_t j = 0; j < n; ++j) series.weights.push_back(j % 7 == 3 ? 0.0 : weight(rng));
  return series;
}

ls::Options classic(bool precenter, bool normalize, bool floating_mean, ls::Algorithm algorithm) {
  ls::Options options;
  options.form = ls::Form::classic;
  options.precenter = precenter;
  options.normalize = normalize;
  options.floating_mean = floating_mean;
  options.algorithm = algorithm;
  return options;
}

struct AngularGrid {
  ls::FrequencyGrid grid;
  std::vector<double> angular;
};

AngularGrid angular_grid(double w_min, double w_max, std::size_t count) {
  AngularGrid g{ls::uniform_grid(w_min, w_max, count, /*angular=*/true), std::vector<double>(count)};
  for (std::size_t k = 0; k < count; ++k)
    g.angular[k] = w_min + (w_max - w_min) * static_cast<double>(k) / static_cast<double>(count - 1);
  return g;
}

TEST(LombScargleClassicWeights, MatchesScipy115OnEveryAlgorithm) {
  const ls::Series series = weighted_series(300, 10.0, 3);
  ls::Series unweighted = series;
  unweighted.weights.clear();
  const AngularGrid g = angular_grid(0.05, 30.0, 997);
  for (bool with_weights : {false, true}) {
    for (bool floating_mean : {false, true}) {
      if (!with_weights && !floating_mean) continue;  // SciPy 1.10's form: ClassicMatchesScipy
      const ls::Series& input = with_weights ? series : unweighted;
      for (bool precenter : {false, true}) {
        for (bool normalize : {false, true}) {
          const auto ref = reference::scipy115_lombscargle(input.t, input.y, g.angular, precenter, normalize,
                                                           input.weights, floating_mean);
          for (const auto algorithm : every_algorithm) {
            const ls::Options options = classic(precenter, normalize, floating_mean, algorithm);
            const std::string what = "weights=" + std::to_string(with_weights) +
                                     " floating_mean=" + std::to_string(floating_mean) +
                                     " precenter=" + std::to_string(precenter) +
                                     " normalize=" + std::to_string(normalize) + " " + ls::name_of(algorithm);
            EXPECT_LT(peak_relative_error(run<double>({input}, g.grid, options)[0], ref), 1e-11) << what;
            // float: the phase w t formed in float limits direct and tiled;
            // the floating mean below 1 / span (w < 0.6 here) takes
            // differences of nearly equal sums (CC - C^2), which amplify
            // float's rounding whatever the algorithm.
            const double float_tolerance = floating_mean ? 5e-4 : phases_in_double(algorithm) ? 2e-5 : 3e-4;
            EXPECT_LT(peak_relative_error(run<float>({input}, g.grid, options)[0], ref), float_tolerance) << what;
          }
        }
      }
    }
  }
}

// The classic periodogram of `series` is that of `expected` within
// `tolerance` (peak_relative_error), with and without normalize, on every
// algorithm, in double.
void expect_same_periodograms(const ls::Series& series, const ls::Series& expected, const ls::FrequencyGrid& grid,
                              bool floating_mean, double tolerance) {
  for (bool normalize : {false, true}) {
    for (const auto algorithm : every_algorithm) {
      const ls::Options options = classic(false, normalize, floating_mean, algorithm);
      EXPECT_LT(peak_relative_error(run<double>({series}, grid, options)[0], run<double>({expected}, grid, options)[0]),
                tolerance)
          << normalize << " " << ls::name_of(algorithm);
    }
  }
}

TEST(LombScargleClassicWeights, EqualWeightsGiveTheUnweightedPeriodogram) {
  // SciPy 1.15 with equal weights is SciPy 1.10 (except precenter with
  // normalize, where 1.15 divides by the centred y's sum of squares).
  ls::Series series = weighted_series(200, 20.0, 5);
  ls::Series unweighted = series;
  unweighted.weights.clear();
  series.weights.assign(series.t.size(), 2.5);
  expect_same_periodograms(series, unweighted, angular_grid(0.1, 12.0, 500).grid, false, 1e-12);
}

TEST(LombScargleClassicWeights, FloatingMeanIgnoresAConstantAddedToY) {
  const ls::Series series = weighted_series(250, 15.0, 8);
  ls::Series shifted = series;
  for (double& v : shifted.y) v += 40.0;
  expect_same_periodograms(shifted, series, angular_grid(0.05, 10.0, 400).grid, true, 1e-9);
}

TEST(LombScargleClassicWeights, BatchEqualsEachSeriesAlone) {
  // One series without weights in a weighted batch takes equal weights.
  std::vector<ls::Series> batch{weighted_series(120, 8.0, 11), weighted_series(90, 12.0, 12),
                                weighted_series(150, 6.0, 13)};
  batch[1].weights.clear();
  const AngularGrid g = angular_grid(0.2, 25.0, 640);
  for (bool floating_mean : {false, true}) {
    for (const auto algorithm : every_algorithm) {
      const ls::Options options = classic(true, true, floating_mean, algorithm);
      const auto together = run<double>(batch, g.grid, options);
      const auto together_float = run<float>(batch, g.grid, options);
      for (std::size_t s = 0; s < batch.size(); ++s) {
        const auto ref = reference::scipy115_lombscargle(batch[s].t, batch[s].y, g.angular, true, true,
                                                         batch[s].weights, floating_mean);
        EXPECT_LT(peak_relative_error(together[s], ref), 1e-10) << s << " " << ls::name_of(algorithm);
        EXPECT_LT(peak_relative_error(together_float[s], ref), 5e-4) << s << " " << ls::name_of(algorithm);
        if (s == 1) continue;  // alone, without weights or floating mean, it is SciPy 1.10's
        EXPECT_LT(peak_relative_error(together[s], run<double>({batch[s]}, g.grid, options)[0]), 1e-13)
            << s << " " << ls::name_of(algorithm);
      }
    }
  }
}

TEST(LombScargleClassicWeights, BadWeightsAreErrors) {
  const ls::FrequencyGrid grid = ls::uniform_grid(0.1, 1.0, 10, false);
  const ls::Series good = weighted_series(10, 5.0, 10);
  const ls::Options options = classic(false, false, true, ls::Algorithm::automatic);
  const auto compute = [&](ls::Series series, const ls::Options& with) {
    return [series, &grid, with] { ls::periodogram<double>({series}, grid, with); };
  };
  ls::Series bad = good;
  bad.weights[4] = -0.5;
  expect_input_error(compute(bad, options), "weights[4] is -0.500000 (weights must be >= 0, with a positive sum)");
  bad = good;
  bad.weights.assign(good.t.size(), 0.0);
  expect_input_error(compute(bad, options), "the weights sum to 0");
  bad = good;
  bad.weights.pop_back();
  expect_input_error(compute(bad, options), "t has 10 samples but weights has 9");
  bad = good;
  bad.weights[2] = NAN;
  expect_input_error(compute(bad, options), "weights[2] is nan");
  expect_input_error([&] { ls::periodogram<double>({good, bad}, grid, options); }, "series 1: weights[2]");
  ls::Options generalized;
  expect_input_error(compute(good, generalized), "weights belong to the classic form");
  generalized.floating_mean = true;
  try {
    ls::Series plain = good;
    plain.weights.clear();
    ls::periodogram<double>({plain}, grid, generalized);
    ADD_FAILURE() << "no error for floating_mean with the generalized form";
  } catch (const OptionError& error) {
    EXPECT_EQ(error.option(), "floating_mean");
    EXPECT_NE(std::string(error.what()).find("classic form"), std::string::npos) << error.what();
  }
}

}  // namespace
