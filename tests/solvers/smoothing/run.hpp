#pragma once
// Runs the solver on a host image (output poisoned first, so unwritten pixels show).
#include <limits>

#include "solvers/smoothing/smooth.hpp"
#include "tests/solvers/smoothing/reference.hpp"

namespace portasolve::smoothing::testing {

template <class Pixel>
HostImage run(const HostImage& image, const SmoothingOptions& options, SmoothReport* report = nullptr) {
  const View2D<const Pixel> input = to_device<Pixel>(image);
  View2D<Pixel> output("output", image.rows, image.cols);
  const Pixel poison = std::numeric_limits<Pixel>::has_quiet_NaN ? std::numeric_limits<Pixel>::quiet_NaN() : Pixel(77);
  Kokkos::deep_copy(output, poison);
  const SmoothReport r = smooth<Pixel>(input, output, options);
  if (report) *report = r;
  return to_host(output);
}

inline SmoothingOptions box(int radius, BorderMode border, std::int64_t passes = 1) {
  SmoothingOptions options;
  options.kernel = KernelKind::box;
  options.radius = radius;
  options.border = border;
  options.passes = passes;
  options.passes_per_launch = 1;
  return options;
}

inline SmoothingOptions weighted(const std::vector<double>& weights, BorderMode border) {
  SmoothingOptions options;
  options.kernel = KernelKind::weighted;
  options.weights = weights;
  options.weights_size = static_cast<int>(std::lround(std::sqrt(static_cast<double>(weights.size()))));
  options.border = border;
  options.passes_per_launch = 1;
  return options;
}

inline SmoothingOptions gaussian(double sigma, double truncate, BorderMode border) {
  SmoothingOptions options;
  options.kernel = KernelKind::gaussian;
  options.sigma = sigma;
  options.truncate = truncate;
  options.border = border;
  options.passes_per_launch = 1;
  return options;
}

}  // namespace portasolve::smoothing::testing
