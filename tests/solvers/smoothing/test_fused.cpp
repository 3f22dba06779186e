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
      const bool window3x3 = options.kernel != KernelKind::gaussian && kernel_radius(options) == 1;
      for (const auto& [k, tile_rows, tile_cols] : {std::tuple{3, 9, 13}, std::tuple{4, 16, 7}, std::tuple{7, 0, 0}})
        for (const FusedKernel kind :
             {FusedKernel::automatic, FusedKernel::tiles, FusedKernel::streamed, FusedKernel::registers}) {
          const bool registers_apply = window3x3 && mode != BorderMode::wrap && tile_cols == 0;
          if ((kind == FusedKernel::streamed && !window3x3) || (kind == FusedKernel::registers && !registers_apply))
            continue;
          options.passes_per_launch = k;
          options.tile_rows = tile_rows;
          options.tile_cols = tile_cols;
          options.fused_kernel = kind;
          SmoothReport report;
          const HostImage fused = run<Pixel>(image, options, &report);
          ASSERT_EQ(report.passes_per_launch, k);
          // auto: register bands for 3x3 windows unless the border wraps or
          // a band width is asked for, then streamed bands (the rows near the
          // top and bottom edges go to tiles); tiles for other windows.
          const FusedKernel expected = kind != FusedKernel::automatic ? kind
                                       : registers_apply              ? FusedKernel::registers
                                       : window3x3                    ? FusedKernel::streamed
                                                                      : FusedKernel::tiles;
          EXPECT_EQ(report.fused_kernel, expected);
          EXPECT_EQ(report.launches, (7 + k - 1) / k);
          EXPECT_EQ(max_abs_difference(fused, single), 0)
              << name_of(options.kernel) << " r " << report.radius << ", " << name_of(mode) << ", k " << k << ", "
              << name_of(report.fused_kernel) << " " << report.tile_rows << "x" << report.tile_cols;
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

// Several strips and bands (GPUs: 3 register bands, hosts: 7), halos of 8
// rows and columns, every level of a full launch, and a last launch with
// fewer passes.
TEST(SmoothingFused, BandsOnALargerImage) {
  const HostImage image = random_image(150, 300, 0, 1, 15, false);
  for (const BorderMode mode : {BorderMode::reflect, BorderMode::wrap, BorderMode::keep, BorderMode::mirror,
                                BorderMode::constant, BorderMode::nearest})
    for (const bool unit : {false, true})
      for (const FusedKernel kind : {FusedKernel::streamed, FusedKernel::registers}) {
        if (kind == FusedKernel::registers && mode == BorderMode::wrap) continue;
        SmoothingOptions options = unit ? box(1, mode) : weighted({1, 2, 1, 2, 4, 2, 1, 2, 1}, mode);
        options.constant_value = 0.3;
        options.passes = 13;
        options.passes_per_launch = 1;
        const HostImage single = run<float>(image, options);
        options.passes_per_launch = 8;
        options.tile_rows = 40;
        options.tile_cols = kind == FusedKernel::streamed ? 30 : 0;
        options.fused_kernel = kind;
        SmoothReport report;
        EXPECT_EQ(max_abs_difference(run<float>(image, options, &report), single), 0)
            << name_of(mode) << ", " << name_of(kind) << (unit ? ", box" : ", weighted");
        EXPECT_EQ(report.fused_kernel, kind);
        EXPECT_EQ(report.launches, 2);
      }
}

TEST(SmoothingFused, StreamedWhereItCannotBeIsAClearError) {
  const HostImage image = random_image(30, 30, 0, 1, 16, false);
  SmoothingOptions options = box(2, BorderMode::reflect, 4);  // 5x5
  options.passes_per_launch = 4;
  options.fused_kernel = FusedKernel::streamed;
  EXPECT_THROW(run<float>(image, options), std::invalid_argument);
  options = box(1, BorderMode::reflect, 8);
  options.passes_per_launch = 8;  // 30 rows > 2 x 8: streams
  options.fused_kernel = FusedKernel::streamed;
  EXPECT_NO_THROW(run<float>(image, options));
  options.passes = options.passes_per_launch = 16;  // more levels than a band carries
  try {
    run<float>(image, options);
    FAIL() << "no error";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("fused_kernel streamed"), std::string::npos) << error.what();
  }
}

TEST(SmoothingFused, RegistersWhereTheyCannotBeIsAClearError) {
  const HostImage image = random_image(30, 30, 0, 1, 16, false);
  SmoothingOptions options = box(1, BorderMode::reflect, 8);
  options.passes_per_launch = 8;
  options.fused_kernel = FusedKernel::registers;
  EXPECT_NO_THROW(run<float>(image, options));
  const auto refused = [&](const SmoothingOptions& bad) {
    try {
      run<float>(image, bad);
      ADD_FAILURE() << "no error";
    } catch (const std::invalid_argument& error) {
      EXPECT_NE(std::string(error.what()).find("fused_kernel registers"), std::string::npos) << error.what();
    }
  };
  SmoothingOptions bad = options;
  bad.border = BorderMode::wrap;
  refused(bad);
  bad = options;
  bad.tile_cols = 20;
  refused(bad);
  bad = options;
  bad.passes = bad.passes_per_launch = 9;
  refused(bad);
  bad = box(2, BorderMode::reflect, 4);
  bad.passes_per_launch = 4;
  bad.fused_kernel = FusedKernel::registers;
  refused(bad);
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
