// False-alarm probabilities: limits, ordering, and calibration on pure noise.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/errors.hpp"
#include "solvers/lombscargle/fap.hpp"
#include "solvers/lombscargle/periodogram.hpp"

namespace {

namespace ls = portasolve::lombscargle;

ls::FapContext example_context() {
  std::vector<double> t;
  for (int j = 0; j < 100; ++j) t.push_back(0.37 * j + 0.1 * std::sin(j));
  return ls::fap_context(t, {}, 5.0);
}

TEST(FalseAlarm, SingleFrequencyIsTheBetaTail) {
  // Standard power of noise at one frequency: (1 - z)^((N - 3) / 2).
  EXPECT_DOUBLE_EQ(ls::fap_single(0.0, 50), 1.0);
  EXPECT_NEAR(ls::fap_single(0.1, 23), std::pow(0.9, 10), 1e-15);
  EXPECT_EQ(ls::fap_single(1.0, 50), 0.0);
}

TEST(FalseAlarm, ZeroPowerIsCertainAndProbabilityFallsWithPower) {
  const auto context = example_context();
  for (const auto method : {ls::FapMethod::baluev, ls::FapMethod::naive}) {
    EXPECT_NEAR(ls::false_alarm_probability(0.0, context, method), 1.0, 1e-15);
    double previous = 1.0;
    for (double z = 0.02; z < 1.0; z += 0.02) {
      const double fap = ls::false_alarm_probability(z, context, method);
      EXPECT_LE(fap, previous) << z;
      EXPECT_GE(fap, ls::fap_single(z, context.samples)) << z;  // many frequencies: never below one
      previous = fap;
    }
    EXPECT_LT(previous, 1e-30);
  }
}

TEST(FalseAlarm, NaiveIsIndependentTrials) {
  const auto context = example_context();
  const double z = 0.4, single = ls::fap_single(z, context.samples);
  const double trials = context.maximum_frequency * context.baseline;
  EXPECT_NEAR(ls::false_alarm_probability(z, context, ls::FapMethod::naive), 1 - std::pow(1 - single, trials), 1e-12);
}

TEST(FalseAlarm, TimeVarianceIsWeighted) {
  const auto plain = ls::fap_context({0, 1, 2, 3}, {}, 1.0);
  EXPECT_DOUBLE_EQ(plain.time_variance, 1.25);
  EXPECT_DOUBLE_EQ(plain.baseline, 3.0);
  // dy = 1 for t in {0, 1} and huge elsewhere: variance of {0, 1}.
  const auto weighted = ls::fap_context({0, 1, 2, 3}, {1, 1, 1e6, 1e6}, 1.0);
  EXPECT_NEAR(weighted.time_variance, 0.25, 1e-9);
}

TEST(FalseAlarm, BaluevIsCalibratedOnPureNoise) {
  // 400 series of Gaussian noise; the p-value of each one's highest peak
  // should fall below alpha about alpha of the time (Baluev's is an upper
  // bound, tight for well-sampled data).
  const int series_count = 400, n = 60;
  std::mt19937 rng(2026);
  std::uniform_real_distribution<double> when(0.0, 10.0);
  std::normal_distribution<double> noise(0.0, 1.0);
  std::vector<ls::Series> batch(series_count);
  for (auto& series : batch) {
    for (int j = 0; j < n; ++j) series.t.push_back(when(rng)), series.y.push_back(noise(rng));
  }
  const double f_max = 3.0;
  const auto grid = ls::uniform_grid(0.02, f_max, 150, false);
  const auto power = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ls::periodogram<double>(batch, grid, {}));
  int below_10 = 0, below_50 = 0;
  for (int s = 0; s < series_count; ++s) {
    double peak = 0;
    for (std::size_t k = 0; k < grid.size(); ++k) peak = std::max(peak, power(s, k));
    const double p = ls::false_alarm_probability(peak, ls::fap_context(batch[s].t, {}, f_max), ls::FapMethod::baluev);
    below_10 += p <= 0.1;
    below_50 += p <= 0.5;
  }
  EXPECT_NEAR(below_10 / double(series_count), 0.1, 0.06);
  EXPECT_NEAR(below_50 / double(series_count), 0.5, 0.12);
}

TEST(FalseAlarm, BadArguments) {
  EXPECT_THROW(ls::false_alarm_probability(1.5, example_context(), ls::FapMethod::baluev), portasolve::InputError);
  EXPECT_THROW(ls::fap_context({0, 1, 2}, {}, 1.0), portasolve::InputError);
}

TEST(FalseAlarm, DaviesIsTheBoundBaluevTightens) {
  // Davies: single + tau; Baluev: 1 - (1 - single) e^-tau, from the same tau.
  const auto context = example_context();
  for (const double z : {0.05, 0.1, 0.2, 0.3, 0.5}) {
    const double single = ls::fap_single(z, context.samples);
    const double davies = ls::false_alarm_probability(z, context, ls::FapMethod::davies);
    const double baluev = ls::false_alarm_probability(z, context, ls::FapMethod::baluev);
    const double tau = davies - single;
    EXPECT_GT(tau, 0) << z;
    EXPECT_NEAR(baluev, 1 - (1 - single) * std::exp(-tau), 1e-14) << z;
    EXPECT_GE(davies, baluev) << z;
  }
  EXPECT_EQ(ls::fap_method_from_name("davies"), ls::FapMethod::davies);
}

TEST(FalseAlarm, BootstrapHasNoFormula) {
  EXPECT_EQ(ls::fap_method_from_name("bootstrap"), ls::FapMethod::bootstrap);
  EXPECT_THROW(ls::false_alarm_probability(0.5, example_context(), ls::FapMethod::bootstrap), portasolve::OptionError);
}

}  // namespace
