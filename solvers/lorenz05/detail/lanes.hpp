#pragma once
// B consecutive points of one row as one value, for the vector layout: the
// per-point code (tendency.hpp) run on Lanes does each point's operations in
// the same order as on a scalar T, so the results are the same bit for bit,
// and the fixed-length loops below are what the compiler turns into SIMD
// instructions across the points. A point's sums are chains of dependent adds
// (latency-bound one point at a time); B points give B independent chains.
#include <Kokkos_Core.hpp>
#include <type_traits>

namespace portasolve::lorenz05::detail {

template <class T, int B>
struct Lanes {
  T lane[B];

  Lanes() = default;
  KOKKOS_INLINE_FUNCTION explicit Lanes(const T value) {
    for (int b = 0; b < B; ++b) lane[b] = value;
  }
  KOKKOS_INLINE_FUNCTION static Lanes load(const T* from) {
    Lanes r;
    for (int b = 0; b < B; ++b) r.lane[b] = from[b];
    return r;
  }
  KOKKOS_INLINE_FUNCTION void store(T* to) const {
    for (int b = 0; b < B; ++b) to[b] = lane[b];
  }

  KOKKOS_INLINE_FUNCTION Lanes& operator+=(const Lanes& o) {
    for (int b = 0; b < B; ++b) lane[b] += o.lane[b];
    return *this;
  }
  KOKKOS_INLINE_FUNCTION friend Lanes operator-(const Lanes& a) {
    Lanes r;
    for (int b = 0; b < B; ++b) r.lane[b] = -a.lane[b];
    return r;
  }
  KOKKOS_INLINE_FUNCTION friend Lanes operator+(Lanes a, const Lanes& o) { return a += o; }
  KOKKOS_INLINE_FUNCTION friend Lanes operator-(const Lanes& a, const Lanes& o) {
    Lanes r;
    for (int b = 0; b < B; ++b) r.lane[b] = a.lane[b] - o.lane[b];
    return r;
  }
  KOKKOS_INLINE_FUNCTION friend Lanes operator*(const Lanes& a, const Lanes& o) {
    Lanes r;
    for (int b = 0; b < B; ++b) r.lane[b] = a.lane[b] * o.lane[b];
    return r;
  }
  // With a scalar: the scalar on the side the per-point code has it.
  KOKKOS_INLINE_FUNCTION friend Lanes operator+(const Lanes& a, const T s) {
    Lanes r;
    for (int b = 0; b < B; ++b) r.lane[b] = a.lane[b] + s;
    return r;
  }
  KOKKOS_INLINE_FUNCTION friend Lanes operator*(const Lanes& a, const T s) {
    Lanes r;
    for (int b = 0; b < B; ++b) r.lane[b] = a.lane[b] * s;
    return r;
  }
  KOKKOS_INLINE_FUNCTION friend Lanes operator*(const T s, const Lanes& a) {
    Lanes r;
    for (int b = 0; b < B; ++b) r.lane[b] = s * a.lane[b];
    return r;
  }
  KOKKOS_INLINE_FUNCTION friend Lanes operator/(const Lanes& a, const T s) {
    Lanes r;
    for (int b = 0; b < B; ++b) r.lane[b] = a.lane[b] / s;
    return r;
  }
};

// Loads and stores the same for scalars (the points after the last whole block).
template <class Value, class T>
KOKKOS_INLINE_FUNCTION Value load_lanes(const T* from) {
  if constexpr (std::is_same<Value, T>::value) {
    return *from;
  } else {
    return Value::load(from);
  }
}
template <class T>
KOKKOS_INLINE_FUNCTION void store_lanes(const T& value, T* to) {
  *to = value;
}
template <class T, int B>
KOKKOS_INLINE_FUNCTION void store_lanes(const Lanes<T, B>& value, T* to) {
  value.store(to);
}

}  // namespace portasolve::lorenz05::detail
