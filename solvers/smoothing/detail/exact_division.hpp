#pragma once
// Exact floor division of 64-bit integers by a divisor known before the
// launch, as one 64x64 -> high 64 multiply and a shift: GPUs have no integer
// divide instruction, and the exact 64-bit `/` and `%` an integer pixel used to
// pay (a subroutine of ~70 instructions on CUDA) held a 3x3 int32 pass at 0.57
// of the copy bandwidth on an H100 (issue 25).
//
// Why it is exact (Granlund and Montgomery, "Division by invariant integers
// using multiplication", 1994, theorem 4.2). Let 0 <= u < 2^N, d >= 1, and a
// shift S with 2^S >= d 2^N. With m = ceil(2^S / d) = (2^S + e) / d, 0 <= e < d:
//   u m / 2^S = u / d + u e / (d 2^S),  and  0 <= u e / (d 2^S) < 2^N / 2^S <= 1 / d.
// Writing u = q d + t (0 <= t <= d - 1), u m / 2^S lies in [q + t/d, q + t/d + 1/d)
// within [q, q + 1): its floor is q = floor(u / d), for every such u, whatever d.
// We take S = max(64, N + ceil(log2 d)) and N <= 62, so m <= 2^(N+1) <= 2^63
// fits 64 bits and floor(u m / 2^S) = mul_high(u, m) >> (S - 64). Powers of two
// take S = 64 and m = 2^64 / d exactly (d = 1 would need m = 2^64: it uses
// m = 2^64 - 1 and adds 1 to u, floor((u + 1)(2^64 - 1) / 2^64) = u for u + 1 <= 2^64).
// Negative numerators (signed pixels, negative weights) use
// floor(n / d) = ~floor(~n / d) for n < 0, where ~n = -n - 1 >= 0: one
// sign mask, no branch. tests/solvers/smoothing/test_exact_division.cpp checks every
// sum of the small types exhaustively and the 32-bit ones densely.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <stdexcept>

namespace portasolve::smoothing::detail {

// The high 64 bits of a 128-bit product.
KOKKOS_INLINE_FUNCTION std::uint64_t mul_high(const std::uint64_t a, const std::uint64_t b) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  return __umul64hi(a, b);
#else
  __extension__ typedef unsigned __int128 Wide;
  return static_cast<std::uint64_t>((static_cast<Wide>(a) * b) >> 64);
#endif
}

struct ExactDivisor {
  // Numerators of at most this many bits (magnitudes) keep m within 64 bits.
  enum { max_numerator_bits = 62 };
  // The default divides by 1 (see make()).
  std::uint64_t multiplier = ~std::uint64_t(0);
  std::uint64_t increment = 1;  // 1 for d = 1 only
  int shift = 0;                // S - 64

  // floor(u / d) for 0 <= u < 2^bits.
  KOKKOS_INLINE_FUNCTION std::uint64_t quotient(const std::uint64_t u) const {
    return mul_high(u + increment, multiplier) >> shift;
  }

  // floor(n / d) (Python's //) for |n| < 2^bits, n of either sign.
  KOKKOS_INLINE_FUNCTION std::int64_t floor_divide(const std::int64_t n) const {
    const std::uint64_t sign = static_cast<std::uint64_t>(n >> 63);  // all ones when n < 0
    return static_cast<std::int64_t>(quotient(static_cast<std::uint64_t>(n) ^ sign) ^ sign);
  }

  // The constant for divisor d >= 1 and numerators of magnitude below 2^bits
  // (host code: 128-bit arithmetic).
  static ExactDivisor make(const std::uint64_t d, int bits) {
    if (d == 0) throw std::invalid_argument("exact division by zero");
    if (bits < 1) bits = 1;
    if (bits > max_numerator_bits) throw std::invalid_argument("exact division: numerators beyond 62 bits");
    __extension__ typedef unsigned __int128 Wide;
    ExactDivisor divisor;
    if (d == 1) return divisor;
    divisor.increment = 0;
    int log2_ceil = 0;
    while ((Wide(1) << log2_ceil) < d) ++log2_ceil;
    if ((std::uint64_t(1) << log2_ceil) == d) {  // 2^64 / d exactly, S = 64
      divisor.multiplier = std::uint64_t(1) << (64 - log2_ceil);
      return divisor;
    }
    const int s = bits + log2_ceil > 64 ? bits + log2_ceil : 64;
    const Wide power = Wide(1) << s;
    divisor.multiplier = static_cast<std::uint64_t>(power / d + (power % d != 0 ? 1 : 0));
    divisor.shift = s - 64;
    return divisor;
  }
};

// Bits of the magnitude of n >= 0 (0 for 0).
inline int bit_width(std::uint64_t n) {
  int bits = 0;
  while (n != 0) {
    ++bits;
    n >>= 1;
  }
  return bits;
}

}  // namespace portasolve::smoothing::detail
