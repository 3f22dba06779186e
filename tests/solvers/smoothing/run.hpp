#pragma once
// Runs the solver on a host image (output poisoned first, so unwritten pixels show).
#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "core/errors.hpp"
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

// Running `options` on `image` in Pixel is refused with an OptionError naming
// `option` (the field) and saying `words` (if any).
template <class Pixel>
void expect_refused_on(const HostImage& image, const SmoothingOptions& options, const std::string& option,
                       const std::string& words = "") {
  try {
    run<Pixel>(image, options);
    ADD_FAILURE() << "accepted; expected an error about '" << words << "'";
  } catch (const OptionError& error) {
    EXPECT_EQ(error.option(), option) << error.what();
    EXPECT_NE(std::string(error.what()).find(words), std::string::npos) << error.what();
  }
}

// One pass a launch of a `kernel` window with the `border` mode.
inline SmoothingOptions kernel_options(KernelKind kernel, BorderMode border) {
  SmoothingOptions options;
  options.kernel = kernel;
  options.border = border;
  options.passes_per_launch = 1;
  return options;
}

inline SmoothingOptions box(int radius, BorderMode border, std::int64_t passes = 1) {
  SmoothingOptions options = kernel_options(KernelKind::box, border);
  options.radius = radius;
  options.passes = passes;
  return options;
}

inline SmoothingOptions weighted(const std::vector<double>& weights, BorderMode border) {
  SmoothingOptions options = kernel_options(KernelKind::weighted, border);
  options.weights = weights;
  options.weights_size = static_cast<int>(std::lround(std::sqrt(static_cast<double>(weights.size()))));
  return options;
}

inline SmoothingOptions gaussian(double sigma, double truncate, BorderMode border) {
  SmoothingOptions options = kernel_options(KernelKind::gaussian, border);
  options.sigma = sigma;
  options.truncate = truncate;
  return options;
}

}  // namespace portasolve::smoothing::testing
