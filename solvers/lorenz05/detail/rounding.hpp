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

// One scalar operation: `cuda` on CUDA devices, `hip` on HIP devices, else
// `plain`; under clang with contraction off in the function.
#if defined(__CUDA_ARCH__)
#define PORTASOLVE_LORENZ05_ROUNDED(cuda, hip, plain) cuda
#elif defined(__HIP_DEVICE_COMPILE__)
#define PORTASOLVE_LORENZ05_ROUNDED(cuda, hip, plain) hip
#else
#define PORTASOLVE_LORENZ05_ROUNDED(cuda, hip, plain) plain
#endif
#if defined(__clang__)
#define PORTASOLVE_LORENZ05_NO_CONTRACTION _Pragma("clang fp contract(off)")
#else
#define PORTASOLVE_LORENZ05_NO_CONTRACTION
#endif

namespace portasolve::lorenz05::detail {

#define PORTASOLVE_LORENZ05_SCALAR_OPS(T, mul_rn, add_rn, sub_rn, fma_rn, hip_fma)    \
  KOKKOS_INLINE_FUNCTION T mul(const T a, const T b) {                                \
    PORTASOLVE_LORENZ05_NO_CONTRACTION                                                \
    return PORTASOLVE_LORENZ05_ROUNDED(mul_rn(a, b), a * b, a * b);                   \
  }                                                                                   \
  KOKKOS_INLINE_FUNCTION T add(const T a, const T b) {                                \
    PORTASOLVE_LORENZ05_NO_CONTRACTION                                                \
    return PORTASOLVE_LORENZ05_ROUNDED(add_rn(a, b), a + b, a + b);                   \
  }                                                                                   \
  KOKKOS_INLINE_FUNCTION T sub(const T a, const T b) {                                \
    PORTASOLVE_LORENZ05_NO_CONTRACTION                                                \
    return PORTASOLVE_LORENZ05_ROUNDED(sub_rn(a, b), a - b, a - b);                   \
  }                                                                                   \
  KOKKOS_INLINE_FUNCTION T fused(const T a, const T b, const T c) {                   \
    PORTASOLVE_LORENZ05_NO_CONTRACTION                                                \
    return PORTASOLVE_LORENZ05_ROUNDED(fma_rn(a, b, c), hip_fma(a, b, c), a * b + c); \
  }
PORTASOLVE_LORENZ05_SCALAR_OPS(double, __dmul_rn, __dadd_rn, __dsub_rn, __fma_rn, __builtin_fma)
PORTASOLVE_LORENZ05_SCALAR_OPS(float, __fmul_rn, __fadd_rn, __fsub_rn, __fmaf_rn, __builtin_fmaf)
#undef PORTASOLVE_LORENZ05_SCALAR_OPS
#undef PORTASOLVE_LORENZ05_NO_CONTRACTION
#undef PORTASOLVE_LORENZ05_ROUNDED

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

}  // namespace portasolve::lorenz05::detail
