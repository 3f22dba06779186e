#pragma once
// Plain host references for the smoothing tests, written from the definitions
// (SciPy ndimage's border modes, a weighted mean over the window) and
// independent of the solver's code.
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/spaces.hpp"
#include "solvers/smoothing/options.hpp"

namespace portasolve::smoothing::testing {

struct HostImage {
  int rows = 0, cols = 0;
  std::vector<double> values;
  double operator()(int i, int j) const { return values[static_cast<std::size_t>(i) * cols + j]; }
  double& operator()(int i, int j) { return values[static_cast<std::size_t>(i) * cols + j]; }
};

inline HostImage random_image(int rows, int cols, double low, double high, unsigned seed, bool integers) {
  HostImage image{rows, cols, std::vector<double>(static_cast<std::size_t>(rows) * cols)};
  std::mt19937 generator(seed);
  std::uniform_real_distribution<double> uniform(low, high);
  for (double& v : image.values) v = integers ? std::floor(uniform(generator)) : uniform(generator);
  return image;
}

// Index of the pixel the extended image shows at i, by repeated reflection.
inline int extended_index(int i, int n, BorderMode mode) {
  switch (mode) {
    case BorderMode::nearest:
      return i < 0 ? 0 : (i >= n ? n - 1 : i);
    case BorderMode::wrap:
      return ((i % n) + n) % n;
    case BorderMode::reflect:
      while (i < 0 || i >= n) i = i < 0 ? -i - 1 : 2 * n - 1 - i;
      return i;
    case BorderMode::mirror:
      if (n == 1) return 0;
      while (i < 0 || i >= n) i = i < 0 ? -i : 2 * n - 2 - i;
      return i;
    default:
      return i;
  }
}

inline double extended(const HostImage& image, int i, int j, BorderMode mode, double constant) {
  if (mode == BorderMode::constant && (i < 0 || i >= image.rows || j < 0 || j >= image.cols)) return constant;
  return image(extended_index(i, image.rows, mode), extended_index(j, image.cols, mode));
}

// One pass: sum w p / sum w over the window (weights (2r+1)^2 row-major);
// keep copies pixels whose window leaves the image.
inline HostImage reference_pass(const HostImage& image, const std::vector<double>& weights, BorderMode mode,
                                double constant = 0) {
  const int side = static_cast<int>(std::lround(std::sqrt(static_cast<double>(weights.size()))));
  const int r = side / 2;
  double total = 0;
  for (double w : weights) total += w;
  HostImage result = image;
  for (int i = 0; i < image.rows; ++i)
    for (int j = 0; j < image.cols; ++j) {
      if (mode == BorderMode::keep && (i < r || i >= image.rows - r || j < r || j >= image.cols - r)) continue;
      long double sum = 0;
      for (int a = -r; a <= r; ++a)
        for (int b = -r; b <= r; ++b)
          sum +=
              static_cast<long double>(weights[(a + r) * side + b + r]) * extended(image, i + a, j + b, mode, constant);
      result(i, j) = static_cast<double>(sum / total);
    }
  return result;
}

// Integer pixels and integer weights: the exact quotient, floored (Python's
// //) or rounded to nearest with halves up, clamped to [lowest, highest].
inline HostImage reference_integer_pass(const HostImage& image, const std::vector<double>& weights, BorderMode mode,
                                        double constant, Rounding rounding, double lowest, double highest) {
  const int side = static_cast<int>(std::lround(std::sqrt(static_cast<double>(weights.size()))));
  const int r = side / 2;
  std::int64_t total = 0;
  for (double w : weights) total += static_cast<std::int64_t>(w);
  HostImage result = image;
  for (int i = 0; i < image.rows; ++i)
    for (int j = 0; j < image.cols; ++j) {
      if (mode == BorderMode::keep && (i < r || i >= image.rows - r || j < r || j >= image.cols - r)) continue;
      std::int64_t sum = 0;
      for (int a = -r; a <= r; ++a)
        for (int b = -r; b <= r; ++b)
          sum += static_cast<std::int64_t>(weights[(a + r) * side + b + r]) *
                 static_cast<std::int64_t>(extended(image, i + a, j + b, mode, constant));
      const long double exact = static_cast<long double>(sum) / total;
      long double value = rounding == Rounding::floor ? std::floor(exact) : std::floor(exact + 0.5L);
      value = std::fmin(std::fmax(value, static_cast<long double>(lowest)), static_cast<long double>(highest));
      result(i, j) = static_cast<double>(value);
    }
  return result;
}

inline std::vector<double> box_weights(int radius) {
  return std::vector<double>(static_cast<std::size_t>((2 * radius + 1) * (2 * radius + 1)), 1.0);
}

// exp(-(a^2 + b^2) / (2 sigma^2)) over |a|, |b| <= radius.
inline std::vector<double> gaussian_weights(double sigma, int radius) {
  const int side = 2 * radius + 1;
  std::vector<double> weights(static_cast<std::size_t>(side * side));
  for (int a = -radius; a <= radius; ++a)
    for (int b = -radius; b <= radius; ++b)
      weights[(a + radius) * side + b + radius] = std::exp(-(a * a + b * b) / (2 * sigma * sigma));
  return weights;
}

template <class Pixel>
View2D<const Pixel> to_device(const HostImage& image) {
  View2D<Pixel> view("image", image.rows, image.cols);
  auto host = Kokkos::create_mirror_view(view);
  for (int i = 0; i < image.rows; ++i)
    for (int j = 0; j < image.cols; ++j) host(i, j) = static_cast<Pixel>(image(i, j));
  Kokkos::deep_copy(view, host);
  return view;
}

template <class Pixel>
HostImage to_host(const View2D<Pixel>& view) {
  HostImage image{static_cast<int>(view.extent(0)), static_cast<int>(view.extent(1)), {}};
  image.values.resize(view.size());
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), view);
  for (int i = 0; i < image.rows; ++i)
    for (int j = 0; j < image.cols; ++j) image(i, j) = static_cast<double>(host(i, j));
  return image;
}

inline double max_abs_difference(const HostImage& a, const HostImage& b) {
  double worst = 0;
  for (std::size_t k = 0; k < a.values.size(); ++k) {
    const double d = std::fabs(a.values[k] - b.values[k]);
    worst = std::isnan(d) ? INFINITY : std::max(worst, d);
  }
  return worst;
}

inline const std::vector<BorderMode>& all_border_modes() {
  static const std::vector<BorderMode> modes{BorderMode::keep,   BorderMode::nearest, BorderMode::reflect,
                                             BorderMode::mirror, BorderMode::wrap,    BorderMode::constant};
  return modes;
}

}  // namespace portasolve::smoothing::testing
