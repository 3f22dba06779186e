#pragma once
// The kernel's weights, typed for the pixels.
//
// Floating-point pixels: weights normalised to sum 1 and a `scale` applied
// once per 1-D or 2-D pass (a box keeps weights 1 and scale 1/n, so it sums
// pixels exactly as the Numba example does before its division).
// Integer pixels: integer weights (box: 1; a weights matrix of integers: as
// given; otherwise the normalised weights in the finest units whose sums fit
// 64 bits for the type's range (taps.cpp: uint8 2^-50 in 2-D, 2^-25 per axis;
// int32 2^-26, 2^-13), rounded), sums in 64 bits, exact, and one exact division
// by the weights' total per pixel, done as a multiply and a shift by a constant
// made on the host (exact_division.hpp). A constant image therefore stays
// exactly constant.
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "core/spaces.hpp"
#include "core/unroll.hpp"
#include "solvers/smoothing/detail/exact_division.hpp"
#include "solvers/smoothing/options.hpp"

namespace portasolve::smoothing::detail {

// The kernel as applied: 2-D weights (2r+1)^2 row-major, or one set of 2r+1
// weights used along rows and then along columns.
struct KernelPlan {
  int radius = 0;
  bool separable = false;
  std::vector<double> weights;  // unnormalised
};

KernelPlan kernel_plan(const SmoothingOptions& options);

// Integer pixel ranges as enumerators: usable in device code without
// relaxed constexpr (std::numeric_limits is host code to nvcc).
template <class Pixel>
struct IntegerRange;
template <>
struct IntegerRange<std::uint8_t> {
  enum : long long { lowest = 0, highest = 255 };
};
template <>
struct IntegerRange<std::uint16_t> {
  enum : long long { lowest = 0, highest = 65535 };
};
template <>
struct IntegerRange<std::int32_t> {
  enum : long long { lowest = -2147483648LL, highest = 2147483647LL };
};

template <class Pixel>
struct PixelArithmetic {
  static constexpr bool integer = std::is_integral<Pixel>::value;
  using Weight = std::conditional_t<integer, std::int64_t, Pixel>;
  using Sum = Weight;
};

// What a kernel needs on the device: weights, the divisor or scale, rounding.
template <class Pixel>
struct DeviceTaps {
  using Weight = typename PixelArithmetic<Pixel>::Weight;
  using Sum = typename PixelArithmetic<Pixel>::Sum;
  // Up to `inline_taps` weights travel with the kernel (constant memory on
  // GPUs, registers once a window is unrolled); longer kernels read `weights`.
  enum { inline_taps = 49 };
  Weight near[inline_taps] = {};
  View1D<const Weight> weights;
  bool all_inline = true;
  int radius = 0;
  int side = 1;   // 2r+1
  Sum total = 1;  // integers: the divisor of a finished pixel
  // Integers: floor((sum + bias) / total), bias 0 (floor) or floor(total / 2)
  // (nearest, halves up: floor(sum / total + 1/2) = floor((sum + floor(total / 2)) / total)
  // for integers), the division exact for every sum the pixels and weights allow.
  Sum bias = 0;
  ExactDivisor divisor;  // by total
  Weight scale = 1;      // floating point: applied at the end of every 1-D or 2-D pass
  Rounding rounding = Rounding::nearest;

  bool unit_weights = false;  // all weights 1 (boxes): sums of pixels, no products

  KOKKOS_INLINE_FUNCTION Weight weight(const int k) const { return all_inline ? near[k] : weights(k); }

  // A 2-D window's sum, read(a, b) giving the pixel at offset (a, b). Every
  // 2-D path sums a window as the sum over rows (top first) of row sums (left
  // first), so all paths round alike. Sums of pixels and of rows start from
  // their first term (an add fewer); weighted row sums start from 0, so that
  // contracting w0 p0 + w1 p1 into a fused multiply-add has only one choice; with unit weights w p = p exactly, so
  // adding pixels gives the same bits as the products would. The branch on
  // the weights sits around the whole window, keeping its loads in one
  // straight run. FixedRadius > 0 (= radius) lets the loops unroll.
  template <int FixedRadius = 0, class Read>
  KOKKOS_INLINE_FUNCTION Sum window_sum(const Read& read) const {
    const int r = FixedRadius > 0 ? FixedRadius : radius;
    const auto sum_rows = [&](const auto unit) {
      Sum sum{};
      PORTASOLVE_UNROLL
      for (int a = -r; a <= r; ++a) {
        Sum row{};
        PORTASOLVE_UNROLL
        for (int b = -r; b <= r; ++b) {
          if constexpr (decltype(unit)::value)
            row = b == -r ? static_cast<Sum>(read(a, b)) : row + static_cast<Sum>(read(a, b));
          else
            row += term(a, b, read(a, b));  // from 0: w0 p0 + w1 p1 could fuse either product
        }
        sum = a == -r ? row : sum + row;
      }
      return sum;
    };
    return unit_weights ? sum_rows(std::true_type{}) : sum_rows(std::false_type{});
  }
  KOKKOS_INLINE_FUNCTION Sum term(const int a, const int b, const Pixel p) const {
    return weight((a + radius) * side + b + radius) * static_cast<Sum>(p);
  }
  KOKKOS_INLINE_FUNCTION Sum term(const int b, const Sum p) const { return weight(b + radius) * p; }

  // A separable kernel's first pass: integers stay unnormalised sums.
  KOKKOS_INLINE_FUNCTION Sum partial(const Sum sum) const {
    if constexpr (PixelArithmetic<Pixel>::integer)
      return sum;
    else
      return sum * scale;
  }

  KOKKOS_INLINE_FUNCTION Pixel finish(const Sum sum) const {
    if constexpr (PixelArithmetic<Pixel>::integer) {
      const Sum quotient = divisor.floor_divide(sum + bias);
      constexpr Sum lowest = static_cast<Sum>(IntegerRange<Pixel>::lowest);
      constexpr Sum highest = static_cast<Sum>(IntegerRange<Pixel>::highest);
      return static_cast<Pixel>(quotient < lowest ? lowest : (quotient > highest ? highest : quotient));
    } else {
      return sum * scale;
    }
  }
};

// Builds the typed weights on the device; more than inline_taps are copied
// there on `exec`, which is then fenced (the host copy goes at return).
// Throws std::invalid_argument when integer sums could overflow 64 bits.
template <class Pixel>
DeviceTaps<Pixel> device_taps(const ExecSpace& exec, const KernelPlan& plan, Rounding rounding);
template <class Pixel>
DeviceTaps<Pixel> device_taps(const KernelPlan& plan, Rounding rounding) {
  return device_taps<Pixel>(ExecSpace(), plan, rounding);
}

// The constant border value as a pixel (integers: rounded to nearest and
// clamped to the type's range).
template <class Pixel>
Pixel constant_pixel(double value);

}  // namespace portasolve::smoothing::detail
