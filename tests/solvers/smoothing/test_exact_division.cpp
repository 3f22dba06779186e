// Integer pixels are finished by a multiply-and-shift division
// (solvers/smoothing/detail/exact_division.hpp). Checked against plain `//` integer
// arithmetic: every sum the small pixel types and box windows can produce,
// and for the 32-bit pixels and the fine Gaussian weights (sums up to 2^58)
// the ends of the range, the neighbourhood of 0 and of the type's limits,
// dense samples at and around multiples of the divisor (where a wrong constant
// is first off by one) and uniform samples. That these samples stand for the
// rest is the theorem in exact_division.hpp's comment: for numerators below 2^N
// and 2^S >= d 2^N, floor(u ceil(2^S / d) / 2^S) = floor(u / d) holds for every
// u, so an error could only come from a wrong N, S or m, which the tests of the
// constants below (largest numerators, every remainder at the top) would show.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/spaces.hpp"
#include "solvers/smoothing/detail/exact_division.hpp"
#include "solvers/smoothing/detail/taps.hpp"
#include "solvers/smoothing/options.hpp"

namespace portasolve::smoothing {
namespace {

using namespace detail;  // the internals under test

__extension__ typedef __int128 Wide;

// Python's a // b for b > 0, the way it is usually written.
KOKKOS_INLINE_FUNCTION std::int64_t python_floor_div(const std::int64_t a, const std::int64_t b) {
  std::int64_t q = a / b;
  if (a % b != 0 && a < 0) --q;
  return q;
}

// The finished pixel from its definition: floor(sum / total), or the nearest
// integer with halves up, floor(sum / total + 1/2) = (2 sum + total) // (2 total);
// clamped to the pixel type.
template <class Pixel>
KOKKOS_INLINE_FUNCTION std::int64_t expected_pixel(const std::int64_t sum, const std::int64_t total,
                                                   const bool nearest) {
  const std::int64_t q = nearest ? python_floor_div(2 * sum + total, 2 * total) : python_floor_div(sum, total);
  const std::int64_t lowest = IntegerRange<Pixel>::lowest, highest = IntegerRange<Pixel>::highest;
  return q < lowest ? lowest : (q > highest ? highest : q);
}

KOKKOS_INLINE_FUNCTION std::uint64_t splitmix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// The sums of one case: the exhaustive range [lo, hi], or samples of it.
struct SumRange {
  std::int64_t lo, hi;
  std::int64_t total;
};

// The k-th sum to check: a mix of the range's ends, its neighbourhood of 0,
// numbers at and next to multiples of total, and uniform samples. Ranges
// stay within +-2^62, so their widths fit 63 bits.
KOKKOS_INLINE_FUNCTION std::int64_t sample(const SumRange& range, const std::int64_t k) {
  constexpr std::int64_t edge = 1 << 16;
  const std::uint64_t width = static_cast<std::uint64_t>(range.hi - range.lo) + 1;
  const std::uint64_t random = splitmix(static_cast<std::uint64_t>(k));
  const std::int64_t uniform = range.lo + static_cast<std::int64_t>(random % width);
  std::int64_t s = 0;
  switch (k % 5) {
    case 0:
      s = range.lo + (k / 5) % edge;
      break;
    case 1:
      s = range.hi - (k / 5) % edge;
      break;
    case 2:
      s = (k / 5) % (2 * edge) - edge;
      break;
    case 3: {  // next to a multiple of total: m total + {-1, 0, 1, total - 1}
      const std::int64_t m = python_floor_div(uniform, range.total);
      const int which = static_cast<int>((random >> 60) & 3);
      s = m * range.total + (which == 0 ? -1 : which == 1 ? 0 : which == 2 ? 1 : range.total - 1);
      break;
    }
    default:
      s = uniform;
  }
  return s < range.lo ? range.lo : (s > range.hi ? range.hi : s);
}

// Counts the sums whose finished pixel differs from expected_pixel: sum
// lo + k (exhaustive) or sample(k).
template <class Pixel>
struct CountMismatches {
  DeviceTaps<Pixel> taps;
  SumRange range;
  bool exhaustive;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t k, std::int64_t& bad) const {
    const std::int64_t sum = exhaustive ? range.lo + k : sample(range, k);
    const bool nearest = taps.rounding == Rounding::nearest;
    if (static_cast<std::int64_t>(taps.finish(sum)) != expected_pixel<Pixel>(sum, range.total, nearest)) ++bad;
  }
};

template <class Space, class Pixel>
std::int64_t mismatches(const DeviceTaps<Pixel>& taps, const SumRange& range, const std::int64_t count,
                        const bool exhaustive) {
  std::int64_t wrong = 0;
  Kokkos::parallel_reduce("exact_division_check", Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>>(0, count),
                          CountMismatches<Pixel>{taps, range, exhaustive}, wrong);
  return wrong;
}

// The range of sums a window can produce on this pixel type, from the typed
// weights the solver uses (separable: a row pass, then a column pass over
// the row sums' range).
template <class Pixel>
SumRange sum_range(const DeviceTaps<Pixel>& taps, bool separable) {
  const int count = separable ? taps.side : taps.side * taps.side;
  std::vector<std::int64_t> weights(count);
  if (taps.all_inline) {
    for (int k = 0; k < count; ++k) weights[k] = taps.near[k];
  } else {
    const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), taps.weights);
    for (int k = 0; k < count; ++k) weights[k] = host(k);
  }
  const auto apply = [&](Wide lo, Wide hi) {
    Wide low = 0, high = 0;
    for (const std::int64_t w : weights) {
      low += w > 0 ? w * lo : w * hi;
      high += w > 0 ? w * hi : w * lo;
    }
    return std::pair<Wide, Wide>{low, high};
  };
  auto [lo, hi] = apply(IntegerRange<Pixel>::lowest, IntegerRange<Pixel>::highest);
  if (separable) std::tie(lo, hi) = apply(lo, hi);
  return SumRange{static_cast<std::int64_t>(lo), static_cast<std::int64_t>(hi), taps.total};
}

// Exhaustive where the range has at most `exhaustive_limit` sums, else
// `samples` samples, on the host and (GPU builds) on the device.
template <class Pixel>
void check_window(const KernelPlan& plan, const std::string& name, std::int64_t exhaustive_limit,
                  std::int64_t samples = std::int64_t(1) << 22) {
  for (const Rounding rounding : {Rounding::floor, Rounding::nearest}) {
    const DeviceTaps<Pixel> taps = device_taps<Pixel>(plan, rounding);
    const SumRange range = sum_range(taps, plan.separable);
    ASSERT_GT(range.total, 0);
    const Wide width = Wide(range.hi) - range.lo + 1;
    const bool exhaustive = width <= exhaustive_limit;
    const std::int64_t count = exhaustive ? static_cast<std::int64_t>(width) : samples;
    EXPECT_EQ((mismatches<HostExecSpace>(taps, range, count, exhaustive)), 0)
        << name << ", " << name_of(rounding) << ": sums " << range.lo << ".." << range.hi << " / " << range.total
        << (exhaustive ? " (all)" : " (samples)");
    if constexpr (!std::is_same<ExecSpace, HostExecSpace>::value) {
      EXPECT_EQ((mismatches<ExecSpace>(taps, range, exhaustive ? count : 4 * count, exhaustive)), 0)
          << name << ", " << name_of(rounding) << " on the device";
    }
  }
}

KernelPlan box_plan(int radius, bool separable) {
  const int side = 2 * radius + 1;
  return KernelPlan{radius, separable, std::vector<double>(separable ? side : side * side, 1.0)};
}

KernelPlan gaussian_plan(double sigma, bool separable) {
  SmoothingOptions options;
  options.kernel = KernelKind::gaussian;
  options.sigma = sigma;
  options.separable = separable ? Separable::yes : Separable::no;
  return kernel_plan(options);
}

constexpr std::int64_t everything = std::numeric_limits<std::int64_t>::max();

TEST(SmoothingExactDivision, EveryBoxSumOfUint8) {
  for (int radius = 0; radius <= 12; ++radius)
    for (const bool separable : {false, true})
      check_window<std::uint8_t>(box_plan(radius, separable), "uint8 box r " + std::to_string(radius), everything);
}

TEST(SmoothingExactDivision, EveryBoxSumOfUint16) {
  // 65535 (2r+1)^2 sums: all of them up to r 4 and at r 12 (41 million).
  for (const int radius : {0, 1, 2, 3, 4, 12})
    check_window<std::uint16_t>(box_plan(radius, radius >= 3), "uint16 box r " + std::to_string(radius), everything);
  for (const int radius : {5, 8, 11})
    check_window<std::uint16_t>(box_plan(radius, true), "uint16 box r " + std::to_string(radius), 0);
}

TEST(SmoothingExactDivision, IntegerWeightMatricesIncludingNegativeSums) {
  const std::vector<std::vector<double>> matrices{
      {1, 2, 1, 2, 4, 2, 1, 2, 1},       // binomial: total 16, a power of two
      {0, -1, 0, -1, 5, -1, 0, -1, 0},   // sharpen: total 1, sums of either sign
      {1, 1, 1, 1, 3, 1, 1, 1, 1},       // total 11
      {-1, 2, -1, 2, 3, 2, -1, 2, -1}};  // total 7, negative sums
  for (std::size_t m = 0; m < matrices.size(); ++m) {
    const KernelPlan plan{1, false, matrices[m]};
    const std::string name = "matrix " + std::to_string(m);
    check_window<std::uint8_t>(plan, "uint8 " + name, everything);
    check_window<std::uint16_t>(plan, "uint16 " + name, everything);
    check_window<std::int32_t>(plan, "int32 " + name, 0);
  }
}

TEST(SmoothingExactDivision, Int32BoxesSampled) {
  // Sums up to 625 (2^31 - 1): sampled (see the comment at the top).
  for (const int radius : {0, 1, 2, 3, 7, 12})
    check_window<std::int32_t>(box_plan(radius, radius >= 3), "int32 box r " + std::to_string(radius), 1 << 16);
}

TEST(SmoothingExactDivision, GaussianWeightsOfEveryType) {
  // Weights quantised as finely as 64-bit sums allow: totals near 2^50
  // (uint8, 2-D) and sums near 2^58, sampled.
  for (const double sigma : {0.3, 0.7, 1.0, 2.0, 3.0})
    for (const bool separable : {false, true}) {
      const KernelPlan plan = gaussian_plan(sigma, separable);
      const std::string name = "gaussian sigma " + std::to_string(sigma) + (separable ? " separable" : " 2-D");
      check_window<std::uint8_t>(plan, "uint8 " + name, 1 << 20);
      check_window<std::uint16_t>(plan, "uint16 " + name, 1 << 20);
      check_window<std::int32_t>(plan, "int32 " + name, 1 << 20);
    }
}

// The checks can fail: a constant made for 20-bit numerators, used on the
// sums of a uint8 Gaussian (up to 2^58, divisor near 2^50), is caught.
TEST(SmoothingExactDivision, ANarrowConstantIsCaught) {
  const DeviceTaps<std::uint8_t> exact = device_taps<std::uint8_t>(gaussian_plan(1.0, false), Rounding::floor);
  DeviceTaps<std::uint8_t> narrow = exact;
  narrow.divisor = ExactDivisor::make(static_cast<std::uint64_t>(exact.total), 20);
  const SumRange range = sum_range(exact, false);
  EXPECT_EQ((mismatches<HostExecSpace>(exact, range, 1 << 20, false)), 0);
  EXPECT_GT((mismatches<HostExecSpace>(narrow, range, 1 << 20, false)), 0);
}

// The constants themselves: every divisor 1..4096 and large ones, numerators
// of every width up to 62 bits, at the top of their range (every remainder of
// the largest quotients) and at random, against the host's `/`.
TEST(SmoothingExactDivision, ConstantsForAnyDivisorAndWidth) {
  std::vector<std::uint64_t> divisors;
  for (std::uint64_t d = 1; d <= 4096; ++d) divisors.push_back(d);
  for (int k = 0; k < 2000; ++k) {
    const std::uint64_t random = splitmix(1000 + k);
    divisors.push_back(1 + (random >> (3 + k % 58)));  // widths 6..61 bits
  }
  for (int e = 12; e <= 61; ++e)
    for (const std::int64_t delta : {-1, 0, 1}) divisors.push_back((std::uint64_t(1) << e) + delta);
  std::int64_t wrong = 0, checked = 0;
  for (const std::uint64_t d : divisors)
    for (int bits = bit_width(d); bits <= ExactDivisor::max_numerator_bits; bits += (bits < 20 ? 1 : 7)) {
      const ExactDivisor divisor = ExactDivisor::make(d, bits);
      const std::uint64_t top = (bits == 64 ? ~0ULL : (std::uint64_t(1) << bits) - 1);
      const auto check = [&](const std::uint64_t u) {
        ++checked;
        if (u <= top && divisor.quotient(u) != u / d) ++wrong;
        const std::int64_t n = -static_cast<std::int64_t>(u);  // -u // d
        if (u <= top && divisor.floor_divide(n) != python_floor_div(n, static_cast<std::int64_t>(d))) ++wrong;
      };
      for (std::uint64_t u = 0; u < 64; ++u) check(u), check(top - u);
      const std::uint64_t last = top / d;
      for (std::uint64_t q = last > 3 ? last - 3 : 0; q <= last; ++q)
        for (const std::uint64_t t : {std::uint64_t(0), std::uint64_t(1), d - 1, d / 2})
          if (q * d + t >= q * d) check(q * d + t);
      for (int k = 0; k < 64; ++k) check(splitmix(d * 131 + bits * 7 + k) & top);
    }
  EXPECT_EQ(wrong, 0) << "of " << checked;
  EXPECT_THROW(ExactDivisor::make(0, 10), std::invalid_argument);
  EXPECT_THROW(ExactDivisor::make(3, 63), std::invalid_argument);
}

}  // namespace
}  // namespace portasolve::smoothing
