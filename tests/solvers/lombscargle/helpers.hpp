#pragma once
// What the periodogram tests share: random series, the solver's power on the
// host, the error against a reference, and the check of an input error.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "solvers/lombscargle/periodogram.hpp"

namespace portasolve::lombscargle::testing {

inline const Algorithm every_algorithm[] = {Algorithm::direct, Algorithm::tiled, Algorithm::recurrence,
                                            Algorithm::nufft};

// Phases formed in double (recurrence, nufft) keep float near its rounding.
inline bool phases_in_double(Algorithm algorithm) {
  return algorithm == Algorithm::recurrence || algorithm == Algorithm::nufft;
}

// n values drawn uniformly from [low, high) by `rng`.
inline std::vector<double> uniform_values(std::mt19937& rng, std::size_t n, double low, double high) {
  std::uniform_real_distribution<double> value(low, high);
  std::vector<double> values;
  for (std::size_t j = 0; j < n; ++j) values.push_back(value(rng));
  return values;
}

// n times drawn uniformly from [0, span) by `rng` (then sorted, unless
// `sorted` is false), and y = signal(t) plus normal noise of deviation sigma,
// drawn in the order of the times.
template <class Signal>
Series random_series(std::mt19937& rng, std::size_t n, double span, double sigma, Signal signal, bool sorted = true) {
  std::normal_distribution<double> noise(0.0, sigma);
  Series series;
  series.t = uniform_values(rng, n, 0.0, span);
  if (sorted) std::sort(series.t.begin(), series.t.end());
  for (double t : series.t) series.y.push_back(signal(t) + noise(rng));
  return series;
}

// A noise-free series: n times drawn uniformly from [0, span) (unsorted),
// y = signal(t).
template <class Signal>
Series exact_series(std::size_t n, double span, unsigned seed, Signal signal) {
  std::mt19937 rng(seed);
  Series series;
  series.t = uniform_values(rng, n, 0.0, span);
  for (double t : series.t) series.y.push_back(signal(t));
  return series;
}

// A sorted random series with noise of deviation 0.3 and, if `with_dy`,
// uncertainties in [0.2, 0.6).
template <class Signal>
Series noisy_series(std::size_t n, double span, unsigned seed, bool with_dy, Signal signal) {
  std::mt19937 rng(seed);
  Series series = random_series(rng, n, span, 0.3, signal);
  if (with_dy) series.dy = uniform_values(rng, n, 0.2, 0.6);
  return series;
}

// An offset sinusoid of `frequency` cycles per unit time.
inline Series noisy_sinusoid(std::size_t n, double span, double frequency, unsigned seed, bool with_dy) {
  return noisy_series(n, span, seed, with_dy,
                      [frequency](double t) { return 1.5 + 2.0 * std::sin(2 * M_PI * frequency * t + 0.3); });
}

// The power of a device result, a row a series, in double on the host.
template <class T>
std::vector<std::vector<double>> rows_of(const View2D<T>& power) {
  const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), power);
  std::vector<std::vector<double>> rows(host.extent(0), std::vector<double>(host.extent(1)));
  for (std::size_t s = 0; s < host.extent(0); ++s)
    for (std::size_t k = 0; k < host.extent(1); ++k) rows[s][k] = static_cast<double>(host(s, k));
  return rows;
}

template <class T>
std::vector<std::vector<double>> run(const std::vector<Series>& batch, const FrequencyGrid& grid,
                                     const Options& options) {
  return rows_of<T>(periodogram<T>(batch, grid, options));
}

// max |a - b| / max |reference|: error relative to the peak; infinite where a
// value is not finite.
inline double peak_relative_error(const std::vector<double>& value, const std::vector<double>& ref) {
  double worst = 0, peak = 0;
  for (std::size_t k = 0; k < ref.size(); ++k) {
    if (!std::isfinite(value[k])) return INFINITY;
    worst = std::max(worst, std::fabs(value[k] - ref[k]));
    peak = std::max(peak, std::fabs(ref[k]));
  }
  return worst / peak;
}

// `call` throws an InputError whose text contains `message`.
inline void expect_input_error(const std::function<void()>& call, const std::string& message) {
  try {
    call();
    ADD_FAILURE() << "no error; expected: " << message;
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find(message), std::string::npos) << error.what();
  }
}

}  // namespace portasolve::lombscargle::testing
