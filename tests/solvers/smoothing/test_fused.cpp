// Fused passes (temporal blocking in team scratch) equal single passes bit for
// bit; box equals separable box.
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>

#include "tests/solvers/smoothing/reference.hpp"
#include "tests/solvers/smoothing/run.hpp"

namespace portasolve::smoothing {
namespace {

using namespace testing;

std::vector<SmoothingOptions> fused_cases() {
  std::vector<double> wide(25);  // 5x5, the general-radius 2-D path
  for (int k = 0; k < 25; ++k) wide[k] = 1 + (k * 7) % 5;
  return {box(1, BorderMode::keep), weighted({1, 2, 0.5, 2, 4, 3, 1, 2, 1}, BorderMode::keep),
          weighted(wide, BorderMode::keep), gaussian(0.8, 2.5, BorderMode::keep), box(3, BorderMode::keep)};
}

// Small tiles on a non-square image: many tiles, partial tiles at the right
// and bottom, and regions reaching past every edge.
template <class Pixel>
void check_fused_equals_single(double low, double high) {
  const HostImage image = random_image(41, 37, low, high, 11, std::numeric_limits<Pixel>::is_integer);
  for (SmoothingOptions options : fused_cases())
    for (const BorderMode mode : all_border_modes()) {
      options.border = mode;
      options.constant_value = (low + high) / 3;
      options.passes = 7;
      options.passes_per_launch = 1;
      const HostImage single = run<Pixel>(image, options);
      for (const auto& [k, tile_rows, tile_cols] : {std::tuple{3, 9, 13}, std::tuple{4, 16, 7}, std::tuple{7, 0, 0}}) {
        options.passes_per_launch = k;
        options.tile_rows = tile_rows;
        options.tile_cols = tile_cols;
        SmoothReport report;
        const HostImage fused = run<Pixel>(image, options, &report);
        ASSERT_EQ(report.passes_per_launch, k);
        EXPECT_EQ(report.launches, (7 + k - 1) / k);
        EXPECT_EQ(max_abs_difference(fused, single), 0)
            << name_of(options.kernel) << " r " << report.radius << ", " << name_of(mode) << ", k " << k << ", tile "
            << report.tile_rows << "x" << report.tile_cols;
      }
    }
}

TEST(SmoothingFused, EqualsSinglePassesBitForBit) {
  check_fused_equals_single<std::uint8_t>(0, 256);
  check_fused_equals_single<std::int32_t>(-1e6, 1e6);
  check_fused_equals_single<float>(0, 1);
  check_fused_equals_single<double>(-1, 1);
}

TEST(SmoothingFused, AutomaticChoiceStillMatchesReference) {
  const HostImage image = random_image(50, 45, 0, 1, 12, false);
  SmoothingOptions options = box(1, BorderMode::mirror, 9);
  options.passes_per_launch = 0;
  HostImage expected = image;
  for (int s = 0; s < 9; ++s) expected = reference_pass(expected, box_weights(1), BorderMode::mirror);
  EXPECT_LT(max_abs_difference(run<double>(image, options), expected), 1e-13);
}

TEST(SmoothingFused, TileBeyondTeamScratchIsAClearError) {
  const HostImage image = random_image(20, 20, 0, 1, 13, false);
  SmoothingOptions options = box(1, BorderMode::reflect, 4);
  options.passes_per_launch = 4;
  options.tile_rows = options.tile_cols = 4000;
  try {
    run<double>(image, options);
    FAIL() << "no error";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("team scratch"), std::string::npos) << error.what();
  }
}

template <class Pixel>
double box_vs_separable(const HostImage& image, int radius, BorderMode mode, Rounding rounding) {
  SmoothingOptions direct = box(radius, mode, 2), separable = direct;
  direct.separable = Separable::no;
  separable.separable = Separable::yes;
  direct.rounding = separable.rounding = rounding;
  direct.constant_value = separable.constant_value = 17;
  SmoothReport a, b;
  const double difference = max_abs_difference(run<Pixel>(image, direct, &a), run<Pixel>(image, separable, &b));
  EXPECT_FALSE(a.separable);
  EXPECT_TRUE(b.separable);
  return difference;
}

TEST(SmoothingBox, EqualsSeparableBox) {
  const HostImage image = random_image(21, 18, 0, 256, 14, true);
  for (const int radius : {1, 2, 4})
    for (const BorderMode mode : all_border_modes()) {
      for (const Rounding rounding : {Rounding::floor, Rounding::nearest}) {
        EXPECT_EQ(box_vs_separable<std::uint8_t>(image, radius, mode, rounding), 0) << name_of(mode);
        EXPECT_EQ(box_vs_separable<std::int32_t>(image, radius, mode, rounding), 0) << name_of(mode);
      }
      EXPECT_LT(box_vs_separable<double>(image, radius, mode, Rounding::nearest), 1e-12) << name_of(mode);
      EXPECT_LT(box_vs_separable<float>(image, radius, mode, Rounding::nearest), 1e-4) << name_of(mode);
    }
}

}  // namespace
}  // namespace portasolve::smoothing
