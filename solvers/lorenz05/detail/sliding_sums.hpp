#pragma once
// The sums of models II-III (the running smoother, W and the advection sum)
// for P consecutive points at once, from windows of P values that slide one
// point per term: a term for all P points costs one new value read, where
// P separate sums read P. Each point's operations are the ones tendency.hpp's
// sums do, in the same order and rounded as written (rounding.hpp), so the
// values are the same bit for bit.
#include <type_traits>

#include "solvers/lorenz05/detail/lanes.hpp"
#include "solvers/lorenz05/detail/rounding.hpp"
#include "solvers/lorenz05/detail/tendency.hpp"

namespace portasolve::lorenz05::detail {

// A padded row of one member in a team's scratch, members interleaved: point
// q at origin[q * stride].
template <class T>
struct Column {
  T* origin;  // point 0
  int stride;
  KOKKOS_INLINE_FUNCTION T& operator[](const int q) const { return origin[q * stride]; }
  KOKKOS_INLINE_FUNCTION T operator()(const int q) const { return origin[q * stride]; }
};

// Values of a row read two ways: P consecutive points at once, or one point.
template <class T, int P>
struct StoredRow {
  Column<T> row;
  KOKKOS_INLINE_FUNCTION Lanes<T, P> block(const int q) const {
    Lanes<T, P> r;
    for (int b = 0; b < P; ++b) r.lane[b] = row(q + b);
    return r;
  }
  KOKKOS_INLINE_FUNCTION T point(const int q) const { return row(q); }
};

// P consecutive values of a source, lane b holding point first + b.
template <class T, int P, class Source>
struct Window {
  const Source& source;
  int first;
  Lanes<T, P> value;

  KOKKOS_INLINE_FUNCTION Window(const Source& from, const int first_point)
      : source(from), first(first_point), value(from.block(first_point)) {}
  KOKKOS_INLINE_FUNCTION void slide_up() {  // to first + 1
    ++first;
    for (int b = 0; b < P - 1; ++b) value.lane[b] = value.lane[b + 1];
    value.lane[P - 1] = source.point(first + P - 1);
  }
  KOKKOS_INLINE_FUNCTION void slide_down() {  // to first - 1
    --first;
    for (int b = P - 1; b > 0; --b) value.lane[b] = value.lane[b - 1];
    value.lane[0] = source.point(first);
  }
};

// primed_sum's operations, the windows moved to j + 1 by advance() before
// each later term (2J moves for 2J + 1 terms): accumulate(sum) is sum plus
// the current term, halved() the current term halved.
template <class T, class Value, class Accumulate, class Halved, class Advance>
KOKKOS_INLINE_FUNCTION Value sliding_primed_sum(const Coefficients<T>& co, const Value& zero,
                                                const Accumulate& accumulate, const Halved& halved,
                                                const Advance& advance) {
  if (!co.primed) {
    Value sum = accumulate(zero);
    for (int j = -co.half + 1; j <= co.half; ++j) {
      advance();
      sum = accumulate(sum);
    }
    return sum;
  }
  Value sum = halved();
  for (int j = -co.half + 1; j <= co.half - 1; ++j) {
    advance();
    sum = accumulate(sum);
  }
  advance();
  return add(sum, halved());
}

// X at points i..i+P-1 (model III; smoothed()'s operations).
template <class T, int P, class Source>
KOKKOS_INLINE_FUNCTION Lanes<T, P> sliding_large_scale(const Coefficients<T>& co, const int i, const Source& z) {
  const int half_width = co.smooth_steps;
  Window<T, P, Source> window(z, i - half_width);
  Lanes<T, P> sum = fused(static_cast<T>(co.smoother[0]), window.value, Lanes<T, P>(T(0)));
  for (int j = -half_width + 1; j <= half_width; ++j) {
    window.slide_up();
    sum = fused(static_cast<T>(co.smoother[j + half_width]), window.value, sum);
  }
  return sum;
}

// W at points i..i+P-1: sum'_{j} X_{i-j} / K, j = -J up (average_w's
// operations).
template <class T, int P, class Source>
KOKKOS_INLINE_FUNCTION Lanes<T, P> sliding_average_w(const Coefficients<T>& co, const int i, const Source& x) {
  using Value = Lanes<T, P>;
  Window<T, P, Source> window(x, i + co.half);
  return over_k(co, sliding_primed_sum(
                        co, Value(T(0)), [&](const Value& sum) { return add(sum, window.value); },
                        [&]() { return window.value / T(2); }, [&]() { window.slide_down(); }));
}

// The advection sum at points i..i+P-1: sum'_{j} W_{i-K+j} X_{i+K+j}
// (advection()'s operations).
template <class T, int P, class SourceX, class SourceW>
KOKKOS_INLINE_FUNCTION Lanes<T, P> sliding_advection(const Coefficients<T>& co, const int i, const SourceX& x,
                                                     const SourceW& w) {
  using Value = Lanes<T, P>;
  Window<T, P, SourceW> w_window(w, i - co.k - co.half);
  Window<T, P, SourceX> x_window(x, i + co.k - co.half);
  return sliding_primed_sum(
      co, Value(T(0)), [&](const Value& sum) { return fused(w_window.value, x_window.value, sum); },
      [&]() { return mul(w_window.value, x_window.value) / T(2); },
      [&]() {
        w_window.slide_up();
        x_window.slide_up();
      });
}

}  // namespace portasolve::lorenz05::detail
