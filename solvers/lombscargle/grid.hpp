#pragma once
// Frequency grids, always in cycles per unit time internally (angular
// frequencies are divided by 2 pi on the way in).
#include <cstddef>
#include <vector>

namespace portasolve::lombscargle {

struct FrequencyGrid {
  // Uniform grids keep (first, step) so the recurrence can use them exactly;
  // explicit lists keep their values.
  bool uniform = false;
  double first = 0;
  double step = 0;
  std::vector<double> values;  // cycles per unit time, one per frequency

  std::size_t size() const noexcept { return values.size(); }
};

// InputError unless `values` is non-empty and all positive and finite.
void check_frequencies(const std::vector<double>& values);
// The same for a grid: a uniform one (first + k step, as uniform_grid and
// automatic_grid make it) by its first and last values, first and step in
// O(1), so a call on 2^20 frequencies does not walk them; others value by
// value.
void check_grid(const FrequencyGrid& grid);

// `count` frequencies from `minimum` to `maximum` inclusive (count 1: just
// minimum). `angular`: the bounds are in radians per unit time.
FrequencyGrid uniform_grid(double minimum, double maximum, std::size_t count, bool angular);
// Any positive finite values, in the given order.
FrequencyGrid explicit_grid(std::vector<double> values, bool angular);
// astropy's LombScargle.autofrequency: df = 1 / (baseline * samples_per_peak),
// from df/2 to nyquist_factor * N / (2 baseline), both optional bounds
// overridable (a negative value means "automatic").
// InputError when that grid would not be a countable size (e.g. maximum 1e300).
FrequencyGrid automatic_grid(const std::vector<double>& t, double samples_per_peak, double nyquist_factor,
                             double minimum = -1, double maximum = -1);
// The number of frequencies automatic_grid() would make, as a double (no
// allocation; infinite or huge for absurd bounds), so callers can check it
// against memory first. Throws what automatic_grid() throws for bad input.
double automatic_grid_size(const std::vector<double>& t, double samples_per_peak, double nyquist_factor,
                           double minimum = -1, double maximum = -1);

}  // namespace portasolve::lombscargle
