// Every kernel, border mode and pixel type against the host reference.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "tests/solvers/smoothing/reference.hpp"
#include "tests/solvers/smoothing/run.hpp"

namespace portasolve::smoothing {
namespace {

using namespace testing;

// An asymmetric 3x3 kernel with a negative entry: catches transposed or
// flipped windows and sign handling.
const std::vector<double> asymmetric{0.5, 1.25, 0.1, 2.0, 3.0, -0.3, 0.7, 1.1, 0.4};

TEST(SmoothingBox, EveryBorderModeMatchesHostReference) {
  const HostImage image = random_image(37, 17, -5, 5, 1, false);  // tall enough for interior column strips
  for (const int radius : {1, 2, 3})
    for (const BorderMode mode : all_border_modes()) {
      SmoothingOptions options = box(radius, mode);
      options.constant_value = 3.5;
      const HostImage expected = reference_pass(image, box_weights(radius), mode, 3.5);
      EXPECT_LT(max_abs_difference(run<double>(image, options), expected), 1e-13)
          << "r " << radius << ", " << name_of(mode);
      EXPECT_LT(max_abs_difference(run<float>(image, options), expected), 5e-6)
          << "r " << radius << ", " << name_of(mode);
    }
}

TEST(SmoothingWeighted, AsymmetricKernelEveryBorderMode) {
  const HostImage image = random_image(9, 14, 0, 10, 2, false);
  for (const BorderMode mode : all_border_modes()) {
    SmoothingOptions options = weighted(asymmetric, mode);
    options.constant_value = -2;
    const HostImage expected = reference_pass(image, asymmetric, mode, -2);
    EXPECT_LT(max_abs_difference(run<double>(image, options), expected), 1e-13) << name_of(mode);
    EXPECT_LT(max_abs_difference(run<float>(image, options), expected), 2e-5) << name_of(mode);
  }
  // A 5x5 matrix (the general-radius path).
  std::vector<double> wide(25);
  for (int k = 0; k < 25; ++k) wide[k] = 1 + (k * 7) % 5 + 0.25 * (k % 3);
  for (const BorderMode mode : all_border_modes())
    EXPECT_LT(max_abs_difference(run<double>(image, weighted(wide, mode)), reference_pass(image, wide, mode)), 1e-13)
        << name_of(mode);
}

TEST(SmoothingGaussian, SeparableAndTwoDimensionalMatchReference) {
  const HostImage image = random_image(23, 29, 0, 100, 3, false);
  const double sigma = 1.3;  // truncate 3: radius round(3.9) = 4
  for (const BorderMode mode : all_border_modes())
    for (const Separable separable : {Separable::automatic, Separable::no}) {
      SmoothingOptions options = gaussian(sigma, 3, mode);
      options.separable = separable;
      options.constant_value = 50;
      SmoothReport report;
      const HostImage result = run<double>(image, options, &report);
      EXPECT_EQ(report.radius, 4);
      EXPECT_EQ(report.separable, separable == Separable::automatic);
      EXPECT_LT(max_abs_difference(result, reference_pass(image, gaussian_weights(sigma, 4), mode, 50)), 1e-12)
          << name_of(mode);
    }
}

// The Numba example (3x3 sum // 9, borders kept) and every other mode, exact,
// for each integer type; int32 with negative pixels checks floor division.
template <class Pixel>
void check_integer_box(double low, double high) {
  const double lowest = std::numeric_limits<Pixel>::lowest(), highest = std::numeric_limits<Pixel>::max();
  const HostImage image = random_image(13, 10, low, high, 4, true);
  for (const int radius : {1, 2})
    for (const BorderMode mode : all_border_modes())
      for (const Rounding rounding : {Rounding::floor, Rounding::nearest}) {
        SmoothingOptions options = box(radius, mode);
        options.rounding = rounding;
        options.constant_value = high - 1;
        const HostImage expected =
            reference_integer_pass(image, box_weights(radius), mode, high - 1, rounding, lowest, highest);
        EXPECT_EQ(max_abs_difference(run<Pixel>(image, options), expected), 0)
            << "r " << radius << ", " << name_of(mode) << ", " << name_of(rounding);
      }
}

TEST(SmoothingInteger, BoxIsExactForEveryIntegerType) {
  check_integer_box<std::uint8_t>(0, 256);
  check_integer_box<std::uint16_t>(0, 65536);
  check_integer_box<std::int32_t>(-2e9, 2e9);
}

TEST(SmoothingInteger, IntegerWeightsAreExactAndClampToTheType) {
  const std::vector<double> binomial{1, 2, 1, 2, 4, 2, 1, 2, 1};
  const HostImage image = random_image(12, 15, 0, 256, 5, true);
  for (const BorderMode mode : all_border_modes()) {
    SmoothingOptions options = weighted(binomial, mode);
    options.constant_value = 200;
    EXPECT_EQ(max_abs_difference(run<std::uint8_t>(image, options),
                                 reference_integer_pass(image, binomial, mode, 200, Rounding::nearest, 0, 255)),
              0)
        << name_of(mode);
  }
  // A sharpening kernel overshoots: results clamp to 0..255.
  const std::vector<double> sharpen{0, -1, 0, -1, 5, -1, 0, -1, 0};
  const HostImage clamped = run<std::uint8_t>(image, weighted(sharpen, BorderMode::reflect));
  EXPECT_EQ(max_abs_difference(
                clamped, reference_integer_pass(image, sharpen, BorderMode::reflect, 0, Rounding::nearest, 0, 255)),
            0);
}

// Real weights on integer pixels are quantised (2^-14 per axis): within one
// level of the exact mean rounded.
TEST(SmoothingInteger, GaussianWithinOneLevelOfExactMean) {
  const HostImage image = random_image(31, 26, 0, 65536, 6, true);
  for (const BorderMode mode : {BorderMode::reflect, BorderMode::wrap, BorderMode::keep}) {
    HostImage expected = reference_pass(image, gaussian_weights(2.0, 6), mode);
    for (double& v : expected.values) v = std::floor(v + 0.5);
    EXPECT_LE(max_abs_difference(run<std::uint16_t>(image, gaussian(2.0, 3, mode)), expected), 1) << name_of(mode);
    EXPECT_LT(max_abs_difference(run<double>(image, gaussian(2.0, 3, mode)),
                                 reference_pass(image, gaussian_weights(2.0, 6), mode)),
              1e-9);
  }
}

template <class Pixel>
void check_constant_stays_constant(double level) {
  const HostImage image{19, 21, std::vector<double>(19 * 21, level)};
  std::vector<SmoothingOptions> kernels{box(2, BorderMode::keep), weighted(asymmetric, BorderMode::keep),
                                        gaussian(1.7, 4, BorderMode::keep)};
  for (SmoothingOptions options : kernels)
    for (const BorderMode mode : all_border_modes())
      for (const Rounding rounding : {Rounding::floor, Rounding::nearest}) {
        options.border = mode;
        options.constant_value = level;
        options.rounding = rounding;
        options.passes = 3;
        const HostImage result = run<Pixel>(image, options);
        const double tolerance =
            std::numeric_limits<Pixel>::is_integer ? 0 : 32 * std::fabs(level) * std::numeric_limits<Pixel>::epsilon();
        for (double v : result.values)
          ASSERT_LE(std::fabs(v - level), tolerance)
              << name_of(options.kernel) << ", " << name_of(mode) << ", " << name_of(rounding);
      }
}

TEST(SmoothingAnyType, ConstantImageStaysConstant) {
  check_constant_stays_constant<std::uint8_t>(201);
  check_constant_stays_constant<std::uint16_t>(40000);
  check_constant_stays_constant<std::int32_t>(-123456789);
  check_constant_stays_constant<float>(0.3);
  check_constant_stays_constant<double>(0.3);
}

TEST(SmoothingPasses, RepeatedPassesMatchRepeatedReference) {
  const HostImage image = random_image(16, 12, 0, 1, 7, false);
  for (const BorderMode mode : all_border_modes()) {
    HostImage expected = image;
    for (int s = 0; s < 5; ++s) expected = reference_pass(expected, box_weights(1), mode);
    EXPECT_LT(max_abs_difference(run<double>(image, box(1, mode, 5)), expected), 1e-13) << name_of(mode);
  }
  EXPECT_EQ(max_abs_difference(run<double>(image, box(1, BorderMode::reflect, 0)), image), 0);
}

}  // namespace
}  // namespace portasolve::smoothing
