// Integer 3x3 passes a pack of pixels a thread (packed_strips.hpp) against
// the exact integer reference (reference_integer_pass: long double quotient,
// floored or rounded, clamped), for every border mode, box and weighted
// windows, both roundings, pixels over each type's whole range, strips of
// several heights and images whose left and right packs, top and bottom
// strips take the pixel-by-pixel path. GPU builds launch this kernel for
// aligned integer images; here it runs on whatever backend the tests do.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "core/grid_range.hpp"
#include "solvers/smoothing/detail/packed_strips.hpp"
#include "tests/solvers/smoothing/reference.hpp"
#include "tests/solvers/smoothing/run.hpp"

namespace portasolve::smoothing {
namespace {

using namespace detail;  // the internals under test
using namespace testing;

template <class Pixel>
void check_packed_equals_reference(const SmoothingOptions& options, const std::vector<double>& weights, int rows,
                                   int cols, int strip, unsigned seed) {
  const KernelPlan plan = kernel_plan(options);
  ASSERT_EQ(plan.radius, 1);
  const double lowest = std::numeric_limits<Pixel>::lowest(), highest = std::numeric_limits<Pixel>::max();
  const HostImage image = random_image(rows, cols, lowest, highest + 1.0, seed, true);
  const View2D<const Pixel> in = to_device<Pixel>(image);
  const View2D<Pixel> out("packed_out", rows, cols);
  Kokkos::deep_copy(out, Pixel(77));
  ASSERT_TRUE(rows_pack_aligned<const Pixel>(in) && rows_pack_aligned<Pixel>(out));

  using Packed = Smooth2DPackedStrips<Pixel, 1>;
  const Border<Pixel> border{options.border, static_cast<Pixel>(options.constant_value)};
  const Smooth2D<Pixel, 1> pass{in, out, device_taps<Pixel>(plan, options.rounding), border};
  const GridRectangle packs{0, 0, (rows + strip - 1) / strip, cols / Packed::lanes};
  for_rectangle(ExecSpace(), "test_packed_strips", packs, Packed{pass, strip});

  const HostImage expected =
      reference_integer_pass(image, weights, options.border, options.constant_value, options.rounding, lowest, highest);
  EXPECT_EQ(max_abs_difference(to_host(out), expected), 0.0)
      << name_of(options.border) << ", " << rows << "x" << cols << ", strips of " << strip
      << (options.kernel == KernelKind::box ? ", box" : ", weighted");
}

template <class Pixel>
void check_every_case() {
  const std::vector<double> box3 = box_weights(1);
  const std::vector<double> binomial{1, 2, 1, 2, 4, 2, 1, 2, 1};
  struct Shape {
    int rows, cols, strip;
  };
  // One pack across (all edge packs), the narrowest image with an interior
  // pack, strips of one row, strips longer than the image, uneven last strips.
  const std::vector<Shape> shapes{{3, 4, 1}, {5, 12, 2}, {17, 36, 16}, {40, 64, 7}, {9, 8, 64}};
  unsigned seed = 11;
  for (const BorderMode mode : all_border_modes())
    for (const Rounding rounding : {Rounding::floor, Rounding::nearest})
      for (const Shape& s : shapes) {
        SmoothingOptions boxed = box(1, mode);
        boxed.rounding = rounding;
        boxed.constant_value = 3;
        check_packed_equals_reference<Pixel>(boxed, box3, s.rows, s.cols, s.strip, ++seed);
        SmoothingOptions weighted_options = weighted(binomial, mode);
        weighted_options.rounding = rounding;
        weighted_options.constant_value = 5;
        check_packed_equals_reference<Pixel>(weighted_options, binomial, s.rows, s.cols, s.strip, ++seed);
      }
}

TEST(SmoothingPackedStrips, Int32EqualsTheExactReference) { check_every_case<std::int32_t>(); }
TEST(SmoothingPackedStrips, Uint16EqualsTheExactReference) { check_every_case<std::uint16_t>(); }
TEST(SmoothingPackedStrips, Uint8EqualsTheExactReference) { check_every_case<std::uint8_t>(); }

TEST(SmoothingPackedStrips, OnlyRowsOfWholePacksFromAnAlignedStartArePacked) {
  const View2D<std::int32_t> whole("whole", 3, 8), ragged("ragged", 3, 10);
  EXPECT_TRUE(rows_pack_aligned<std::int32_t>(whole));
  EXPECT_FALSE(rows_pack_aligned<std::int32_t>(ragged));  // rows of 10 int32: 40 bytes, not whole 16-byte packs
  const auto shifted = Kokkos::subview(whole, Kokkos::ALL, std::make_pair(1, 5));
  EXPECT_FALSE(rows_pack_aligned<std::int32_t>(shifted));  // starts 4 bytes into a pack
}

}  // namespace
}  // namespace portasolve::smoothing
