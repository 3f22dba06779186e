// Bad options are clear errors, before any kernel runs.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>

#include "core/errors.hpp"
#include "tests/solvers/smoothing/run.hpp"

namespace portasolve::smoothing {
namespace {

using namespace testing;

// Refused with an OptionError naming `option` (the field) and saying `words`.
void expect_refused(SmoothingOptions options, const std::string& option, const std::string& words, int rows = 20,
                    int cols = 30) {
  expect_refused_on<float>(random_image(rows, cols, 0, 1, 21, false), options, option, words);
}

TEST(SmoothingOptions, BadKernelsAreRefused) {
  expect_refused(weighted({1, 1, 1, 1}, BorderMode::reflect), "weights", "odd side");
  expect_refused(weighted({1, 1, 1, 1, 1, 1}, BorderMode::reflect), "weights", "odd side");
  expect_refused(box(-1, BorderMode::reflect), "radius", "radius must be >= 0");
  expect_refused(gaussian(0, 4, BorderMode::reflect), "sigma", "sigma must be > 0");
  expect_refused(gaussian(-1, 4, BorderMode::reflect), "sigma", "sigma must be > 0");
  expect_refused(gaussian(NAN, 4, BorderMode::reflect), "sigma", "sigma must be > 0");
  expect_refused(gaussian(1, 0, BorderMode::reflect), "truncate", "truncate must be > 0");
  expect_refused(weighted({1, -1, 0, 0, 0, 0, 0, 0, 0}, BorderMode::reflect), "weights", "positive sum");
  expect_refused(weighted({1, 1, 1, 1, NAN, 1, 1, 1, 1}, BorderMode::reflect), "weights", "finite");
  SmoothingOptions forced = weighted({1, 2, 1, 2, 4, 2, 1, 2, 1}, BorderMode::reflect);
  forced.separable = Separable::yes;
  expect_refused(forced, "separable", "separable");
}

TEST(SmoothingOptions, KernelLargerThanTheImageIsRefused) {
  expect_refused(box(10, BorderMode::reflect), "radius", "larger than the 20x30 (rows x cols)", 20,
                 30);  // 21 > 20 rows
  expect_refused(gaussian(3, 4, BorderMode::wrap), "sigma", "25x25 kernel is larger", 20, 30);
  SmoothingOptions fits = box(9, BorderMode::reflect);  // 19x19 in 20x30: fine
  const HostImage image = random_image(20, 30, 0, 1, 22, false);
  EXPECT_NO_THROW(run<float>(image, fits));
}

TEST(SmoothingOptions, BadPassesAndExtentsAreRefused) {
  SmoothingOptions options = box(1, BorderMode::reflect);
  options.passes = -1;
  expect_refused(options, "passes", "passes must be >= 0");
  const View2D<const float> input = View2D<float>("in", 8, 9);
  const View2D<float> wrong("out", 9, 8);
  EXPECT_THROW(smooth<float>(input, wrong, box(1, BorderMode::reflect)), std::invalid_argument);
  const View2D<float> same("same", 8, 8);
  EXPECT_THROW(smooth<float>(same, same, box(1, BorderMode::reflect)), std::invalid_argument);
}

TEST(SmoothingOptions, NamesRoundTrip) {
  for (const auto& name : border_names()) EXPECT_EQ(name_of(border_from_name(name)), name);
  for (const auto& name : kernel_names()) EXPECT_EQ(name_of(kernel_from_name(name)), name);
  for (const auto& name : separable_kernel_names()) EXPECT_EQ(name_of(separable_kernel_from_name(name)), name);
  EXPECT_THROW(border_from_name("periodic"), std::invalid_argument);
  EXPECT_THROW(separable_kernel_from_name("one_launch"), std::invalid_argument);
}

}  // namespace
}  // namespace portasolve::smoothing
