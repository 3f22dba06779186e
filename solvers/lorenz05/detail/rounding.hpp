#pragma once
// Arithmetic rounded as written, for the per-point code every ensemble layout
// shares. GPU compilers (nvcc, hipcc) fuse a multiply and the add it feeds
// into one FMA wherever they choose, and the choice follows the shape of the
// surrounding code: the same operations in the same order, laid out as one
// point per thread or as blocks of points (Lanes), came out rounded
// differently on an H100. Here no compiler may fuse or split an operation:
// mul, add and sub round once each; fused(a, b, c) is a * b + c rounded once
// on GPUs (their FMA instruction) and twice on hosts, as before (base x86-64
// has no FMA; GCC builds of this library add -ffp-contract=off for targets
// that do). CUDA: the _rn intrinsics, which nvcc never merges into an FMA;
// clang (hipcc, and clang hosts): the plain operators with contraction off in
// the function, so they stay unfused after inlining. Every layout then gives
// the same bits on a backend.
#include <Kokkos_Core.hpp>

#include "solvers/lorenz05/detail/lanes.hpp"

#if defined(__clang__)
#define PORTASOLVE_LORENZ05_AS_WRITTEN _Pragma("clang fp contract(off)")
#else
#define PORTASOLVE_LORENZ05_AS_WRITTEN
#endif

namespace portasolve::lorenz05::detail {

KOKKOS_INLINE_FUNCTION double mul(const double a, const double b) {
#ifdef __CUDA_ARCH__
  return __dmul_rn(a, b);
#else
  PORTASOLVE_LORENZ05_AS_WRITTEN
  return a * b;
#endif
}
KOKKOS_INLINE_FUNCTION float mul(const float a, const float b) {
#ifdef __CUDA_ARCH__
  return __fmul_rn(a, b);
#else
  PORTASOLVE_LORENZ05_AS_WRITTEN
  return a * b;
#endif
}
KOKKOS_INLINE_FUNCTION double add(const double a, const double b) {
#ifdef __CUDA_ARCH__
  return __dadd_rn(a, b);
#else
  PORTASOLVE_LORENZ05_AS_WRITTEN
  return a + b;
#endif
}
KOKKOS_INLINE_FUNCTION float add(const float a, const float b) {
#ifdef __CUDA_ARCH__
  return __fadd_rn(a, b);
#else
  PORTASOLVE_LORENZ05_AS_WRITTEN
  return a + b;
#endif
}
KOKKOS_INLINE_FUNCTION double sub(const double a, const double b) {
#ifdef __CUDA_ARCH__
  return __dsub_rn(a, b);
#else
  PORTASOLVE_LORENZ05_AS_WRITTEN
  return a - b;
#endif
}
KOKKOS_INLINE_FUNCTION float sub(const float a, const float b) {
#ifdef __CUDA_ARCH__
  return __fsub_rn(a, b);
#else
  PORTASOLVE_LORENZ05_AS_WRITTEN
  return a - b;
#endif
}
KOKKOS_INLINE_FUNCTION double fused(const double a, const double b, const double c) {
#if defined(__CUDA_ARCH__)
  return __fma_rn(a, b, c);
#elif defined(__HIP_DEVICE_COMPILE__)
  return __builtin_fma(a, b, c);
#else
  PORTASOLVE_LORENZ05_AS_WRITTEN
  return a * b + c;
#endif
}
KOKKOS_INLINE_FUNCTION float fused(const float a, const float b, const float c) {
#if defined(__CUDA_ARCH__)
  return __fmaf_rn(a, b, c);
#elif defined(__HIP_DEVICE_COMPILE__)
  return __builtin_fmaf(a, b, c);
#else
  PORTASOLVE_LORENZ05_AS_WRITTEN
  return a * b + c;
#endif
}

// The same lane by lane for B points at once; a scalar operand is the same
// value in every lane.
template <class T>
KOKKOS_INLINE_FUNCTION T lane_of(const T value, int) {
  return value;
}
template <class T, int B>
KOKKOS_INLINE_FUNCTION T lane_of(const Lanes<T, B>& value, const int b) {
  return value.lane[b];
}

// Lanes with Lanes or with a scalar (either side).
#define PORTASOLVE_LORENZ05_LANE_BINARY(op)                                 \
  template <class T, int B, class Y>                                        \
  KOKKOS_INLINE_FUNCTION Lanes<T, B> op(const Lanes<T, B>& a, const Y& b) { \
    Lanes<T, B> r;                                                          \
    for (int l = 0; l < B; ++l) r.lane[l] = op(a.lane[l], lane_of(b, l));   \
    return r;                                                               \
  }                                                                         \
  template <class T, int B>                                                 \
  KOKKOS_INLINE_FUNCTION Lanes<T, B> op(const T a, const Lanes<T, B>& b) {  \
    Lanes<T, B> r;                                                          \
    for (int l = 0; l < B; ++l) r.lane[l] = op(a, b.lane[l]);               \
    return r;                                                               \
  }
PORTASOLVE_LORENZ05_LANE_BINARY(mul)
PORTASOLVE_LORENZ05_LANE_BINARY(add)
PORTASOLVE_LORENZ05_LANE_BINARY(sub)
#undef PORTASOLVE_LORENZ05_LANE_BINARY

// a * b + c with c Lanes (the sums' accumulators), a and b either.
template <class T, int B, class X, class Y>
KOKKOS_INLINE_FUNCTION Lanes<T, B> fused(const X& a, const Y& b, const Lanes<T, B>& c) {
  Lanes<T, B> r;
  for (int l = 0; l < B; ++l) r.lane[l] = fused(lane_of(a, l), lane_of(b, l), c.lane[l]);
  return r;
}

#undef PORTASOLVE_LORENZ05_AS_WRITTEN

}  // namespace portasolve::lorenz05::detail
