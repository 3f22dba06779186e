#include "solvers/lombscargle/grid.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/errors.hpp"
#include "core/math.hpp"

namespace portasolve::lombscargle {

namespace {

void check_frequency(double value, const char* what) {
  if (!std::isfinite(value) || value <= 0)
    throw InputError(std::string("frequency grid: ") + what + " must be positive and finite, got " +
                     std::to_string(value));
}

}  // namespace

FrequencyGrid uniform_grid(double minimum, double maximum, std::size_t count, bool angular) {
  if (count == 0) throw InputError("frequency grid: empty (count must be at least 1)");
  const double scale = angular ? 1.0 / math::two_pi<double>() : 1.0;
  check_frequency(minimum, "minimum");
  check_frequency(maximum, "maximum");
  if (maximum < minimum)
    throw InputError("frequency grid: maximum " + std::to_string(maximum) + " is below minimum " +
                     std::to_string(minimum));
  FrequencyGrid grid;
  grid.uniform = true;
  grid.first = minimum * scale;
  grid.step = count > 1 ? (maximum - minimum) * scale / static_cast<double>(count - 1) : 0.0;
  grid.values.resize(count);
  for (std::size_t k = 0; k < count; ++k) grid.values[k] = grid.first + static_cast<double>(k) * grid.step;
  return grid;
}

void check_frequencies(const std::vector<double>& values) {
  if (values.empty()) throw InputError("frequency grid: empty list of frequencies");
  for (std::size_t k = 0; k < values.size(); ++k)
    if (!std::isfinite(values[k]) || values[k] <= 0)
      throw InputError("frequency grid: frequency " + std::to_string(k) + " is " + std::to_string(values[k]) +
                       " (must be positive and finite)");
}

void check_grid(const FrequencyGrid& grid) {
  if (!grid.uniform || grid.values.empty()) {
    check_frequencies(grid.values);
    return;
  }
  check_frequency(grid.first, "first");
  if (!std::isfinite(grid.step) || grid.step < 0)
    throw InputError("frequency grid: step must be finite and >= 0, got " + std::to_string(grid.step));
  check_frequency(grid.values.front(), "first value");
  check_frequency(grid.values.back(), "last value");
}

FrequencyGrid frequency_range(const FrequencyGrid& grid, std::size_t first, std::size_t count) {
  if (count == 0 || first > grid.size() || count > grid.size() - first)
    throw InputError("frequency range " + std::to_string(first) + " + " + std::to_string(count) +
                     " is not inside a grid of " + std::to_string(grid.size()) + " frequencies");
  FrequencyGrid range;
  range.uniform = grid.uniform;
  range.first = grid.first;
  range.step = grid.step;
  range.offset = grid.offset + static_cast<std::int64_t>(first);
  range.values.assign(grid.values.begin() + static_cast<std::ptrdiff_t>(first),
                      grid.values.begin() + static_cast<std::ptrdiff_t>(first + count));
  return range;
}

FrequencyGrid explicit_grid(std::vector<double> values, bool angular) {
  check_frequencies(values);
  const double scale = angular ? 1.0 / math::two_pi<double>() : 1.0;
  for (double& value : values) value *= scale;
  FrequencyGrid grid;
  grid.values = std::move(values);
  return grid;
}

namespace {

struct AutomaticBounds {
  double first, last, df;
};

AutomaticBounds automatic_bounds(const std::vector<double>& t, double samples_per_peak, double nyquist_factor,
                                 double minimum, double maximum) {
  if (t.size() < 2) throw InputError("automatic frequency grid: needs at least 2 samples");
  for (const double time : t)
    if (!std::isfinite(time))
      throw InputError("automatic frequency grid: a sample time is " + std::to_string(time) +
                       "; sample times must be finite");
  if (!(samples_per_peak > 0) || !(nyquist_factor > 0))
    throw InputError("automatic frequency grid: samples_per_peak and nyquist_factor must be positive");
  const auto [lo, hi] = std::minmax_element(t.begin(), t.end());
  const double baseline = *hi - *lo;
  if (!(baseline > 0)) throw InputError("automatic frequency grid: all sample times are equal");
  const double df = 1.0 / baseline / samples_per_peak;
  const double first = minimum > 0 ? minimum : 0.5 * df;
  const double last = maximum > 0 ? maximum : nyquist_factor * 0.5 * static_cast<double>(t.size()) / baseline;
  if (last < first) throw InputError("automatic frequency grid: maximum below minimum");
  return AutomaticBounds{first, last, df};
}

}  // namespace

double automatic_grid_size(const std::vector<double>& t, double samples_per_peak, double nyquist_factor, double minimum,
                           double maximum) {
  const AutomaticBounds b = automatic_bounds(t, samples_per_peak, nyquist_factor, minimum, maximum);
  return 1 + std::round((b.last - b.first) / b.df);
}

FrequencyGrid automatic_grid(const std::vector<double>& t, double samples_per_peak, double nyquist_factor,
                             double minimum, double maximum) {
  const AutomaticBounds b = automatic_bounds(t, samples_per_peak, nyquist_factor, minimum, maximum);
  const double size = 1 + std::round((b.last - b.first) / b.df);
  // 2^40 frequencies are 8 TiB of float64 values: far past any memory, and
  // well inside the exactly representable integers.
  if (!(size <= 1099511627776.0))
    throw InputError("automatic frequency grid: " + std::to_string(size) + " frequencies from " +
                     std::to_string(b.first) + " to " + std::to_string(b.last) + " in steps of " +
                     std::to_string(b.df) + " is too many (lower the maximum or samples_per_peak)");
  const auto count = static_cast<std::size_t>(size);
  FrequencyGrid grid;
  grid.uniform = true;
  grid.first = b.first;
  grid.step = b.df;
  grid.values.resize(count);
  for (std::size_t k = 0; k < count; ++k) grid.values[k] = b.first + static_cast<double>(k) * b.df;
  return grid;
}

}  // namespace portasolve::lombscargle
