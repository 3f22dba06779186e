#pragma once
// Frequency grids, always in cycles per unit time internally (angular
// frequencies are divided by 2 pi on the way in).
#include <cstddef>
#include <cstdint>
#include <vector>

namespace portasolve::lombscargle {

struct FrequencyGrid {
  // Uniform grids keep (first, step) so the recurrence can use them exactly;
  // explicit lists keep their values.
  bool uniform = false;
  double first = 0;
  double step = 0;
  std::vector<double> values;  // cycles per unit time, one per frequency
  // A range of a larger grid (frequency_range): values[k] is that grid's
  // frequency offset + k; for a uniform one first + (offset + k) step, with
  // first and step the larger grid's. The recurrence seeds its blocks where
  // the larger grid's are (multiples of recurrence_steps from its first), so
  // a range's power has the bits of the whole grid's power there. 0: the
  // grid itself.
  std::int64_t offset = 0;

  std::size_t size() const noexcept { return values.size(); }
};

// Frequencies [first, first + count) of `grid` (InputError unless inside
// it, count > 0) as a grid of their own: the values, and for a uniform grid
// its first and step with offset marking where the range starts. The direct,
// tiled, multi-term and recurrence algorithms give a range the bits the
// whole grid gets at those frequencies (each frequency is computed on its
// own, the recurrence from the whole grid's seeds); the NUFFT does not (its
// transform's size and points depend on the whole range).
FrequencyGrid frequency_range(const FrequencyGrid& grid, std::size_t first, std::size_t count);

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
