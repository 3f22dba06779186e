// Separable windows in one launch (separable_tiles.hpp) equal the two-launch
// path bit for bit and the plain float64 host reference within rounding, for
// radii 0..12, every border mode, thin and odd-sized images and small tiles
// (many tiles, partial tiles at the right and bottom edges).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "core/errors.hpp"
#include "core/grid_range.hpp"
#include "solvers/smoothing/detail/separable_tiles.hpp"
#include "tests/solvers/smoothing/reference.hpp"
#include "tests/solvers/smoothing/run.hpp"

namespace portasolve::smoothing {
namespace {

using namespace detail;  // the internals under test

using namespace testing;

// A Gaussian whose radius round(4 sigma) is r.
SmoothingOptions gaussian_of_radius(int r, BorderMode mode) {
  SmoothingOptions options = gaussian(r > 0 ? r / 4.0 : 0.1, 4, mode);
  options.separable = Separable::yes;
  return options;
}

// Image shapes for a (2r+1)-wide window: as thin as the window allows, both
// ways, short and wide, and odd-sized.
std::vector<std::pair<int, int>> shapes(int r) {
  const int side = 2 * r + 1;
  std::vector<std::pair<int, int>> result{{side, 37}, {37, side}, {std::max(13, side), 200}};
  if (side <= 29) result.push_back({41, 29});
  return result;
}

std::string describe(const SmoothingOptions& options, const HostImage& image, const SmoothReport& report) {
  return name_of(options.kernel) + " r " + std::to_string(report.radius) + ", " + name_of(options.border) + ", " +
         std::to_string(image.rows) + "x" + std::to_string(image.cols) + ", tile " + std::to_string(report.tile_rows) +
         "x" + std::to_string(report.tile_cols);
}

// tiles and columns against two_launches, bit for bit, for automatic and
// small tiles and strips (columns: strips of 64 rows and teams as wide as
// the backend allows, 128 on GPUs; strips of 7 rows and teams of 1 column).
template <class Pixel>
void check_tiles_equal_two_launches(SmoothingOptions options, const HostImage& image) {
  options.separable_kernel = SeparableKernel::two_launches;
  SmoothReport two;
  const HostImage expected = run<Pixel>(image, options, &two);
  ASSERT_EQ(two.separable_kernel, SeparableKernel::two_launches);
  struct Layout {
    SeparableKernel kernel;
    int tile_rows, tile_cols, strip_rows;  // tile_cols: the team's columns with `columns`
    const char* label;
  };
  for (const Layout& layout :
       {Layout{SeparableKernel::tiles, 0, 0, 0, ""}, Layout{SeparableKernel::tiles, 5, 7, 0, ""},
        Layout{SeparableKernel::tiles, 16, 13, 0, ""}, Layout{SeparableKernel::columns, 0, 0, 0, "columns: "},
        Layout{SeparableKernel::columns, 0, 1, 7, "columns: "}}) {
    options.separable_kernel = layout.kernel;
    options.tile_rows = layout.tile_rows;
    options.tile_cols = layout.tile_cols;
    options.strip_rows = layout.strip_rows;
    SmoothReport report;
    const HostImage result = run<Pixel>(image, options, &report);
    ASSERT_EQ(report.separable_kernel, layout.kernel);
    EXPECT_EQ(max_abs_difference(result, expected), 0) << layout.label << describe(options, image, report);
  }
}

TEST(SmoothingSeparableTiles, EqualTwoLaunchesBitForBit) {
  for (int r = 0; r <= 12; ++r)
    for (const auto& [rows, cols] : shapes(r)) {
      const HostImage real = random_image(rows, cols, -3, 100, 30 + r, false);
      const HostImage bytes = random_image(rows, cols, 0, 256, 31 + r, true);
      const HostImage words = random_image(rows, cols, 0, 65536, 32 + r, true);
      for (const BorderMode mode : all_border_modes()) {
        SmoothingOptions options = gaussian_of_radius(r, mode);
        options.constant_value = 41.5;
        check_tiles_equal_two_launches<float>(options, real);
        check_tiles_equal_two_launches<double>(options, real);
        check_tiles_equal_two_launches<std::uint8_t>(options, bytes);
        check_tiles_equal_two_launches<std::uint16_t>(options, words);
        if (r % 4 == 1) {  // boxes (unit weights) and int32 on a few radii
          SmoothingOptions boxes = box(r, mode);
          boxes.separable = Separable::yes;
          boxes.constant_value = 7;
          for (const Rounding rounding : {Rounding::floor, Rounding::nearest}) {
            boxes.rounding = options.rounding = rounding;
            check_tiles_equal_two_launches<std::uint8_t>(boxes, bytes);
            check_tiles_equal_two_launches<std::int32_t>(boxes, random_image(rows, cols, -2e9, 2e9, 33 + r, true));
            check_tiles_equal_two_launches<std::int32_t>(options, random_image(rows, cols, -2e9, 2e9, 34 + r, true));
          }
          check_tiles_equal_two_launches<float>(boxes, real);
        }
      }
    }
}

// Against the float64 host reference (the 2-D window of the axis weights'
// products): float and double within their rounding, integer boxes exactly,
// integer Gaussians (weights quantised) within one level.
TEST(SmoothingSeparableTiles, MatchHostReference) {
  for (int r = 0; r <= 12; r += (r < 4 ? 1 : 4))
    for (const auto& [rows, cols] : shapes(r))
      for (const BorderMode mode : all_border_modes()) {
        const HostImage image = random_image(rows, cols, 0, 256, 40 + r, true);
        SmoothingOptions options = gaussian_of_radius(r, mode);
        options.separable_kernel = SeparableKernel::tiles;
        options.tile_rows = 6;
        options.tile_cols = 11;
        options.constant_value = 99;
        const double sigma = options.sigma;
        const HostImage expected = reference_pass(image, gaussian_weights(sigma, r), mode, 99);
        SmoothReport report;
        const HostImage d = run<double>(image, options, &report);
        EXPECT_LT(max_abs_difference(d, expected), 1e-11) << describe(options, image, report);
        EXPECT_LT(max_abs_difference(run<float>(image, options), expected), 1e-3) << describe(options, image, report);
        HostImage rounded = expected;
        for (double& v : rounded.values) v = std::floor(v + 0.5);
        EXPECT_LE(max_abs_difference(run<std::uint8_t>(image, options), rounded), 1)
            << describe(options, image, report);
        EXPECT_LE(max_abs_difference(run<std::uint16_t>(image, options), rounded), 1)
            << describe(options, image, report);

        SmoothingOptions boxes = box(r, mode);
        boxes.separable = Separable::yes;
        boxes.separable_kernel = SeparableKernel::tiles;
        boxes.tile_rows = 9;
        boxes.tile_cols = 5;
        boxes.constant_value = 99;
        for (const Rounding rounding : {Rounding::floor, Rounding::nearest}) {
          boxes.rounding = rounding;
          EXPECT_EQ(max_abs_difference(run<std::uint8_t>(image, boxes),
                                       reference_integer_pass(image, box_weights(r), mode, 99, rounding, 0, 255)),
                    0)
              << describe(boxes, image, report) << ", " << name_of(rounding);
        }
      }
}

// Repeated passes, one launch each, through the tiles.
TEST(SmoothingSeparableTiles, RepeatedPasses) {
  const HostImage image = random_image(45, 38, 0, 1, 50, false);
  for (const BorderMode mode : all_border_modes()) {
    SmoothingOptions options = gaussian_of_radius(3, mode);
    options.passes = 4;
    options.passes_per_launch = 1;
    options.constant_value = 0.25;
    check_tiles_equal_two_launches<float>(options, image);
    options.separable_kernel = SeparableKernel::tiles;
    HostImage expected = image;
    for (int s = 0; s < 4; ++s) expected = reference_pass(expected, gaussian_weights(0.75, 3), mode, 0.25);
    SmoothReport report;
    EXPECT_LT(max_abs_difference(run<double>(image, options, &report), expected), 1e-12) << name_of(mode);
    EXPECT_EQ(report.launches, 4);
  }
}

// auto: tiles where a tile of 8 rows fits (every backend), else two
// launches (double, radius 12 on a host's 32 KB of team scratch); windows that
// are not separable, or fused passes, report neither.
TEST(SmoothingSeparableTiles, AutomaticChoice) {
  // GPUs: columns up to radius 12; hosts: tiles where 8 rows fit.
  const HostImage image = random_image(40, 50, 0, 1, 51, false);
  SmoothReport report;
  run<float>(image, gaussian_of_radius(4, BorderMode::reflect), &report);
  EXPECT_EQ(report.separable_kernel, host_execution ? SeparableKernel::tiles : SeparableKernel::columns);
  EXPECT_GE(report.tile_rows, 8);
  run<double>(random_image(60, 60, 0, 1, 54, false), gaussian_of_radius(12, BorderMode::reflect), &report);
  const bool fits = SeparableTileLauncher<double>::automatic_geometry(12, 60, 60).tile_rows >= 8;
  EXPECT_EQ(report.separable_kernel, !host_execution ? SeparableKernel::columns
                                     : fits          ? SeparableKernel::tiles
                                                     : SeparableKernel::two_launches);
  SmoothingOptions wide = gaussian(13 / 4.0, 4, BorderMode::reflect);  // radius 13: beyond columns
  wide.separable = Separable::yes;
  run<float>(random_image(60, 60, 0, 1, 55, false), wide, &report);
  EXPECT_EQ(report.radius, 13);
  EXPECT_NE(report.separable_kernel, SeparableKernel::columns);
  run<float>(image, box(1, BorderMode::reflect), &report);
  EXPECT_EQ(report.separable_kernel, SeparableKernel::automatic);
  SmoothingOptions fused = gaussian_of_radius(2, BorderMode::reflect);
  fused.passes = fused.passes_per_launch = 2;
  run<float>(image, fused, &report);
  EXPECT_EQ(report.separable_kernel, SeparableKernel::automatic);
  EXPECT_EQ(report.passes_per_launch, 2);
}

TEST(SmoothingSeparableTiles, ErrorsAreClear) {
  // A window wider than the image is refused before any kernel runs.
  SmoothingOptions options = gaussian_of_radius(1, BorderMode::reflect);
  options.separable_kernel = SeparableKernel::tiles;
  expect_refused_on<float>(random_image(1, 37, 0, 1, 52, false), options, "sigma");
  // A tile beyond the team scratch names the tile.
  options.tile_rows = options.tile_cols = 4000;
  expect_refused_on<double>(random_image(30, 30, 0, 1, 53, false), options, "tile_rows", "team scratch");
  // columns: radius above 12, or more columns than a team has threads.
  SmoothingOptions columns = gaussian(13 / 4.0, 4, BorderMode::reflect);
  columns.separable = Separable::yes;
  columns.separable_kernel = SeparableKernel::columns;
  expect_refused_on<float>(random_image(60, 60, 0, 1, 56, false), columns, "separable_kernel", "above 12");
  columns = gaussian_of_radius(4, BorderMode::reflect);
  columns.separable_kernel = SeparableKernel::columns;
  columns.tile_cols = 100000;
  expect_refused_on<float>(random_image(60, 60, 0, 1, 57, false), columns, "tile_cols");
}

}  // namespace
}  // namespace portasolve::smoothing
