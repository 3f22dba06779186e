// The Lomb-Scargle entry points on an execution space instance of the test's
// own (CUDA: a Kokkos::Cuda on a new non-blocking stream,
// tests/instance.hpp) against the overloads without one,
// bit for bit: Periodogram(exec, ...) for every algorithm (direct, tiled,
// recurrence, nufft: on host backends both its per-series host path and, on
// a long grid, the chunked path with the library's FFT), the classic form
// plain, with weights and with the floating mean, the generalized form with
// and without fit_mean in each normalization, nterms 2 and 3, the multi-term
// kernel at nterms 1, float and double, on a batch of 3 series of odd
// lengths; a second compute() on the same object; periodogram(exec, ...);
// find_peaks(exec, ...); bootstrap_maxima(exec, ...); fit_sinusoid(exec,
// ...); two instances at once. The instance's runs queue the power's poison
// (NaN), the computation and the read back on the instance and wait by
// fencing it alone (read_on), so a kernel or copy the solver left on another
// stream would race with the poison or the read. Double results of the
// generalized form are also checked against the float64 host reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "core/errors.hpp"
#include "solvers/lombscargle/baseline_fast_math.hpp"
#include "solvers/lombscargle/bootstrap.hpp"
#include "solvers/lombscargle/model.hpp"
#include "solvers/lombscargle/peaks.hpp"
#include "solvers/lombscargle/periodogram.hpp"
#include "tests/instance.hpp"
#include "tests/solvers/lombscargle/helpers.hpp"
#include "tests/solvers/lombscargle/reference.hpp"

namespace portasolve::lombscargle {
namespace {

using instance_tests::expect_same_bits;
using instance_tests::OwnInstance;
using instance_tests::poison;
using instance_tests::read_on;
using testing::noisy_sinusoid;
using testing::uniform_values;

// Which grid a case runs on.
enum class GridKind {
  uniform,       // 211 frequencies
  listed,        // 97 frequencies in no order
  long_uniform,  // 120001 (double), 240001 (float): with a fitted mean (3 sums) the NUFFT's host path would
                 // hold > 8 MiB of grids per series, so host backends take the chunked path (coefficients,
                 // spreading, the library's FFT)
};

// What a case computes: compute() with its options, or compute_multiterm().
struct Case {
  std::string label;
  Options options;
  GridKind grid = GridKind::uniform;
  bool weights = false;  // classic form: per-sample weights
  bool multiterm_kernel = false;
};

template <class T>
FrequencyGrid grid_of(GridKind kind) {
  if (kind == GridKind::long_uniform)
    return uniform_grid(0.01, 40.0, std::is_same<T, float>::value ? 240001 : 120001, false);
  if (kind == GridKind::uniform) return uniform_grid(0.02, 4.0, 211, false);
  std::mt19937 rng(17);
  return explicit_grid(uniform_values(rng, 97, 0.02, 4.0), false);
}

// Three series of odd lengths; the generalized form's with dy on the first
// and last; the classic form's with weights (one of them 0) if asked.
std::vector<Series> batch_for(const Case& c) {
  const bool generalized = c.options.form == Form::generalized;
  std::vector<Series> batch{noisy_sinusoid(37, 40.0, 0.13, 1, generalized), noisy_sinusoid(53, 25.0, 0.7, 2, false),
                            noisy_sinusoid(29, 60.0, 1.9, 3, generalized)};
  if (c.weights) {
    std::mt19937 rng(4);
    for (Series& series : batch) {
      series.weights = uniform_values(rng, series.t.size(), 0.2, 2.0);
      series.weights[series.t.size() / 2] = 0.0;
    }
  }
  return batch;
}

Options generalized(Algorithm algorithm, bool fit_mean, Normalization normalization) {
  Options options;
  options.algorithm = algorithm;
  options.fit_mean = fit_mean;
  options.normalization = normalization;
  return options;
}

Options classic(Algorithm algorithm, bool floating_mean) {
  Options options;
  options.form = Form::classic;
  options.precenter = true;
  options.normalize = true;
  options.floating_mean = floating_mean;
  options.algorithm = algorithm;
  return options;
}

std::vector<Case> cases() {
  std::vector<Case> all;
  const Algorithm algorithms[] = {Algorithm::direct, Algorithm::tiled, Algorithm::recurrence, Algorithm::nufft};
  for (const Algorithm algorithm : algorithms) {
    all.push_back({"generalized fit_mean standard, " + name_of(algorithm),
                   generalized(algorithm, true, Normalization::standard)});
    all.push_back(
        {"generalized no fit_mean psd, " + name_of(algorithm), generalized(algorithm, false, Normalization::psd)});
    all.push_back({"classic, " + name_of(algorithm), classic(algorithm, false)});
    all.push_back({"classic weights, " + name_of(algorithm), classic(algorithm, false), GridKind::uniform, true});
    all.push_back({"classic floating mean, " + name_of(algorithm), classic(algorithm, true), GridKind::uniform, true});
  }
  Options segmented = generalized(Algorithm::nufft, true, Normalization::model);
  segmented.nufft_grid_limit = 64;
  all.push_back({"generalized model, nufft in segments of 32 modes", segmented});
  all.push_back({"generalized log, listed frequencies, automatic (tiled)",
                 generalized(Algorithm::automatic, true, Normalization::log), GridKind::listed});
  all.push_back({"generalized standard, listed frequencies, direct",
                 generalized(Algorithm::direct, false, Normalization::standard), GridKind::listed});
  all.push_back({"generalized fit_mean, nufft on a long grid",
                 generalized(Algorithm::nufft, true, Normalization::standard), GridKind::long_uniform});
  all.push_back(
      {"classic floating mean, nufft on a long grid", classic(Algorithm::nufft, true), GridKind::long_uniform, true});
  Options two_terms = generalized(Algorithm::automatic, true, Normalization::standard);
  two_terms.nterms = 2;
  all.push_back({"nterms 2 fit_mean", two_terms});
  Options three_terms = generalized(Algorithm::direct, false, Normalization::psd);
  three_terms.nterms = 3;
  all.push_back({"nterms 3 no fit_mean psd", three_terms, GridKind::listed});
  all.push_back({"multi-term kernel at nterms 1", generalized(Algorithm::automatic, true, Normalization::standard),
                 GridKind::uniform, false, true});
  return all;
}

template <class HostView>
std::vector<typename HostView::non_const_value_type> flatten(const HostView& host) {
  return std::vector<typename HostView::non_const_value_type>(host.data(), host.data() + host.span());
}

void expect_same_table(const PeakTable& a, const PeakTable& b, const std::string& label) {
  EXPECT_EQ(a.count, b.count) << label;
  EXPECT_EQ(a.best, b.best) << label;
  EXPECT_EQ(a.peaks, b.peaks) << label;
  expect_same_bits(a.best_power, b.best_power, label + " (best power)");
  expect_same_bits(a.peak_power, b.peak_power, label + " (peak power)");
}

template <class T>
struct Result {
  std::vector<T> power, again;  // after the first compute and after a second one
  PeakTable peaks;              // of the second
};

template <class T>
void launch(Periodogram<T>& periodogram, const Case& c) {
  if (c.multiterm_kernel)
    periodogram.compute_multiterm();
  else
    periodogram.compute();
}

constexpr std::size_t peak_count = 3;

// The overloads without an instance, read back with Kokkos' global fences.
template <class T>
Result<T> run_default(const std::vector<Series>& batch, const FrequencyGrid& grid, const Case& c) {
  Periodogram<T> periodogram(batch, grid, c.options);
  Result<T> result;
  Kokkos::deep_copy(periodogram.power(), poison<T>());
  launch(periodogram, c);
  result.power = flatten(Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), periodogram.power()));
  Kokkos::deep_copy(periodogram.power(), poison<T>());
  launch(periodogram, c);
  result.again = flatten(Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), periodogram.power()));
  result.peaks = find_peaks(periodogram.power(), peak_count);
  return result;
}

// Everything on exec, nothing fenced but exec: the poison, each compute()
// and the peaks queued after one another with no wait in between.
template <class T>
Result<T> run_on(const ExecSpace& exec, const std::vector<Series>& batch, const FrequencyGrid& grid, const Case& c) {
  Periodogram<T> periodogram(exec, batch, grid, c.options);
#if defined(KOKKOS_ENABLE_CUDA)
  EXPECT_EQ(periodogram.execution_space().cuda_stream(), exec.cuda_stream()) << c.label;
#endif
  Result<T> result;
  Kokkos::deep_copy(exec, periodogram.power(), poison<T>());
  launch(periodogram, c);
  result.power = flatten(read_on(exec, periodogram.power()));
  Kokkos::deep_copy(exec, periodogram.power(), poison<T>());
  launch(periodogram, c);
  result.peaks = find_peaks(exec, periodogram.power(), peak_count);
  result.again = flatten(read_on(exec, periodogram.power()));
  return result;
}

std::string normalization_name(Normalization normalization) {
  switch (normalization) {
    case Normalization::standard:
      return "standard";
    case Normalization::model:
      return "model";
    case Normalization::log:
      return "log";
    default:
      return "psd";
  }
}

// max |power - reference| / max |reference| over the batch (the generalized
// form, nterms 1, against astropy's float64 definition).
double error_against_reference(const std::vector<double>& power, const std::vector<Series>& batch,
                               const FrequencyGrid& grid, const Options& options) {
  double worst = 0, peak = 0;
  for (std::size_t s = 0; s < batch.size(); ++s) {
    const std::vector<double> expected =
        reference::astropy_lombscargle(batch[s].t, batch[s].y, batch[s].dy, grid.values, options.fit_mean,
                                       options.center_data, normalization_name(options.normalization));
    for (std::size_t k = 0; k < grid.size(); ++k) {
      const double value = power[s * grid.size() + k];
      if (!std::isfinite(value)) return INFINITY;
      worst = std::max(worst, std::fabs(value - expected[k]));
      peak = std::max(peak, std::fabs(expected[k]));
    }
  }
  return worst / peak;
}

template <class T>
void check_every_case() {
  const OwnInstance own;
  for (const Case& c : cases()) {
    const std::string label = c.label + (std::is_same<T, float>::value ? " (float)" : " (double)");
    const std::vector<Series> batch = batch_for(c);
    const FrequencyGrid grid = grid_of<T>(c.grid);
    const Result<T> on_instance = run_on<T>(own.exec(), batch, grid, c);
    const Result<T> on_default = run_default<T>(batch, grid, c);
    ASSERT_EQ(on_instance.power.size(), batch.size() * grid.size()) << label;
    expect_same_bits(on_instance.power, on_default.power, label);
    expect_same_bits(on_instance.again, on_default.power, label + ", second compute()");
    expect_same_bits(on_default.again, on_default.power, label + ", second compute() on the default instance");
    expect_same_table(on_instance.peaks, on_default.peaks, label + ", peaks");
    // Real powers: every one written and finite, some of them large.
    std::size_t finite = 0;
    T highest = 0;
    for (const T p : on_instance.power) {
      finite += std::isfinite(p) ? 1 : 0;
      if (std::isfinite(p)) highest = std::max(highest, p);
    }
    EXPECT_EQ(finite, on_instance.power.size()) << label;
    EXPECT_GT(highest, T(0)) << label;
    ASSERT_EQ(on_instance.peaks.best.size(), batch.size()) << label;
    for (std::size_t s = 0; s < batch.size(); ++s) {
      const std::int64_t best = on_instance.peaks.best[s];
      ASSERT_GE(best, 0) << label;
      EXPECT_EQ(on_instance.peaks.best_power[s], double(on_instance.again[s * grid.size() + best])) << label;
    }
    if (!c.multiterm_kernel) {  // the one call, with the options' algorithm
      const std::vector<T> one_call = flatten(read_on(own.exec(), periodogram<T>(own.exec(), batch, grid, c.options)));
      expect_same_bits(one_call, on_default.power, label + ", periodogram(exec, ...)");
    }
    if (std::is_same<T, double>::value && c.options.form == Form::generalized && c.options.nterms == 1) {
      std::vector<double> power(on_instance.power.begin(), on_instance.power.end());
      EXPECT_LT(error_against_reference(power, batch, grid, c.options), 1e-9) << label;
    }
  }
}

TEST(LombScargleInstance, EveryAlgorithmOnAnInstanceGivesTheDefaultBitsDouble) { check_every_case<double>(); }

TEST(LombScargleInstance, EveryAlgorithmOnAnInstanceGivesTheDefaultBitsFloat) { check_every_case<float>(); }

// Two periodograms on two instances, launched in turn with no wait between
// them (on CUDA they run at once): each keeps its own result.
TEST(LombScargleInstance, TwoInstancesAtOnceKeepTheirOwnResults) {
  const OwnInstance one, two;
  const Case nufft{"generalized nufft", generalized(Algorithm::nufft, true, Normalization::standard)};
  const Case recurrence{"classic weights recurrence", classic(Algorithm::recurrence, true), GridKind::uniform, true};
  const std::vector<Series> first_batch = batch_for(nufft), second_batch = batch_for(recurrence);
  const FrequencyGrid grid = grid_of<double>(GridKind::uniform);
  Periodogram<double> first(one.exec(), first_batch, grid, nufft.options);
  Periodogram<float> second(two.exec(), second_batch, grid, recurrence.options);
  Kokkos::deep_copy(one.exec(), first.power(), poison<double>());
  Kokkos::deep_copy(two.exec(), second.power(), poison<float>());
  for (int round = 0; round < 3; ++round) {
    first.compute();
    second.compute();
  }
  const PeakTable second_peaks = find_peaks(two.exec(), second.power(), peak_count);
  const std::vector<float> second_power = flatten(read_on(two.exec(), second.power()));
  const std::vector<double> first_power = flatten(read_on(one.exec(), first.power()));
  const Result<double> first_default = run_default<double>(first_batch, grid, nufft);
  const Result<float> second_default = run_default<float>(second_batch, grid, recurrence);
  expect_same_bits(first_power, first_default.power, nufft.label);
  expect_same_bits(second_power, second_default.power, recurrence.label);
  expect_same_table(second_peaks, second_default.peaks, recurrence.label + ", peaks");
  EXPECT_LT(error_against_reference(first_power, first_batch, grid, nufft.options), 1e-9);
  // The two differ (a swapped result would not pass).
  EXPECT_NE(first_power[0], static_cast<double>(second_power[0]));
}

template <class T>
void check_bootstrap(Algorithm algorithm) {
  const OwnInstance own;
  const std::vector<Series> batch{noisy_sinusoid(31, 30.0, 0.4, 7, true), noisy_sinusoid(44, 20.0, 1.1, 8, false)};
  const FrequencyGrid grid = uniform_grid(0.05, 3.0, 97, false);
  Options options;
  options.algorithm = algorithm;
  BootstrapOptions bootstrap;
  bootstrap.resamples = 9;
  bootstrap.seed = 5;
  bootstrap.periodograms_per_launch = 4;  // 5 launches, the last one of 2
  const std::string label = name_of(algorithm) + (std::is_same<T, float>::value ? " (float)" : " (double)");
  for (const std::size_t first : {std::size_t(0), std::size_t(3)}) {
    const std::size_t total = first == 0 ? 0 : 10;
    const auto on_instance = bootstrap_maxima<T>(own.exec(), batch, grid, options, bootstrap, first, total);
    const auto on_default = bootstrap_maxima<T>(batch, grid, options, bootstrap, first, total);
    ASSERT_EQ(on_instance.size(), batch.size()) << label;
    ASSERT_EQ(on_default.size(), batch.size()) << label;
    for (std::size_t s = 0; s < batch.size(); ++s) {
      expect_same_bits(on_instance[s], on_default[s], label + ", series " + std::to_string(s));
      ASSERT_EQ(on_instance[s].size(), bootstrap.resamples) << label;
      EXPECT_TRUE(std::is_sorted(on_instance[s].begin(), on_instance[s].end())) << label;
      EXPECT_GT(on_instance[s].front(), 0.0) << label;  // standard power of a resampled sinusoid
      EXPECT_LE(on_instance[s].back(), 1.0 + 1e-6) << label;
    }
  }
}

TEST(LombScargleInstance, BootstrapMaximaOnAnInstanceGiveTheDefaultBits) {
  for (const Algorithm algorithm : {Algorithm::automatic, Algorithm::direct, Algorithm::recurrence}) {
    check_bootstrap<double>(algorithm);
    check_bootstrap<float>(algorithm);
  }
}

TEST(LombScargleInstance, FitSinusoidOnAnInstanceIsTheDefaultFit) {
  const OwnInstance own;
  // Noise-free: 1.5 + 2 sin(2 pi 0.7 t + 0.3).
  const Series exact =
      testing::exact_series(41, 30.0, 9, [](double t) { return 1.5 + 2.0 * std::sin(2 * M_PI * 0.7 * t + 0.3); });
  const SinusoidFit fit = fit_sinusoid(own.exec(), exact, 0.7, Options{});
  EXPECT_NEAR(fit.amplitude, 2.0, 1e-9);
  EXPECT_NEAR(fit.phase, 0.3, 1e-9);
  EXPECT_NEAR(fit.offset, 1.5, 1e-9);
  Series weighted = noisy_sinusoid(53, 25.0, 0.7, 2, false);
  std::mt19937 rng(4);
  weighted.weights = uniform_values(rng, weighted.t.size(), 0.2, 2.0);
  const struct {
    Series series;
    Options options;
  } fits[] = {{exact, Options{}},
              {noisy_sinusoid(37, 40.0, 0.7, 1, true), generalized(Algorithm::automatic, false, Normalization::psd)},
              {weighted, classic(Algorithm::automatic, true)},
              {weighted, classic(Algorithm::automatic, false)}};
  for (const auto& f : fits) {
    const SinusoidFit a = fit_sinusoid(own.exec(), f.series, 0.7, f.options);
    const SinusoidFit b = fit_sinusoid(f.series, 0.7, f.options);
    expect_same_bits(std::vector<double>{a.amplitude, a.phase, a.offset},
                     std::vector<double>{b.amplitude, b.phase, b.offset}, "fit_sinusoid");
    EXPECT_TRUE(std::isfinite(a.amplitude) && a.amplitude > 0.5);
  }
}

// CUDA builds: the fast-math baseline on the instance gives the default
// instance's bits; elsewhere it is refused on an instance as without one.
TEST(LombScargleInstance, FastMathBaselineOnAnInstance) {
  const OwnInstance own;
  const Case c{"generalized", generalized(Algorithm::direct, true, Normalization::standard)};
  const std::vector<Series> batch = batch_for(c);
  const FrequencyGrid grid = grid_of<double>(GridKind::uniform);
  Periodogram<float> on_instance(own.exec(), batch, grid, c.options);
#if defined(KOKKOS_ENABLE_CUDA)
  Periodogram<float> on_default(batch, grid, c.options);
  Kokkos::deep_copy(own.exec(), on_instance.power(), poison<float>());
  Kokkos::deep_copy(on_default.power(), poison<float>());
  baselines::compute_direct_fast_math(on_instance);
  baselines::compute_direct_fast_math(on_default);
  const std::vector<float> a = flatten(read_on(own.exec(), on_instance.power()));
  const std::vector<float> b = flatten(Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), on_default.power()));
  expect_same_bits(a, b, "fast math");
  for (const float p : a) EXPECT_TRUE(std::isfinite(p));
#else
  EXPECT_THROW(baselines::compute_direct_fast_math(on_instance), InputError);
#endif
}

// The instance overloads refuse what the others refuse.
TEST(LombScargleInstance, RefusalsAreTheDefaultOnes) {
  const OwnInstance own;
  const FrequencyGrid grid = grid_of<double>(GridKind::uniform);
  std::vector<Series> batch{noisy_sinusoid(37, 40.0, 0.13, 1, true)};
  batch[0].y[5] = NAN;
  testing::expect_input_error([&] { Periodogram<double>(own.exec(), batch, grid, Options{}); }, "y[5]");
  testing::expect_input_error([&] { periodogram<float>(own.exec(), {}, grid, Options{}); }, "no time series");
  Options tiled_terms = generalized(Algorithm::tiled, true, Normalization::standard);
  tiled_terms.nterms = 2;
  EXPECT_THROW(Periodogram<double>(own.exec(), {noisy_sinusoid(37, 40.0, 0.13, 1, true)}, grid, tiled_terms),
               OptionError);
  EXPECT_THROW(bootstrap_maxima<double>(own.exec(), {noisy_sinusoid(37, 40.0, 0.13, 1, true)}, grid,
                                        classic(Algorithm::direct, false), BootstrapOptions{}),
               OptionError);
  testing::expect_input_error(
      [&] {
        Periodogram<double>(own.exec(), {noisy_sinusoid(37, 40.0, 0.13, 1, true)}, grid_of<double>(GridKind::listed),
                            generalized(Algorithm::recurrence, true, Normalization::standard));
      },
      "uniform frequency grid");
}

}  // namespace
}  // namespace portasolve::lombscargle
