#pragma once
// The sums of models II-III (the running smoother, W and the advection sum)
// for P consecutive points at once, from windows of P values that slide one
// point per term: a term for all P points costs one new value read, where
// P separate sums read P. Each point's operations are the ones tendency.hpp's
// sums do, in the same order and rounded as written (rounding.hpp), so the
// values are the same bit for bit.
#include "core/unroll.hpp"
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

// The values a sum's terms read from one source, P consecutive points per
// term, the window one point further along each term (up: term m reads
// first + m + b for lane b; down: first - m + b). Terms come in groups of P
// (for_each_term): within a group the window's values sit in 2P - 1 registers
// indexed by constants, one new value read per term, and P - 1 of them move
// once per group where a window shifted lane by lane would move P - 1 values
// every term.
template <class T, int P, class Source, bool Up>
struct SlidingWindow {
  const Source& source;
  int first;  // the current group's first term reads points first .. first + P - 1
  T held[2 * P - 1];

  KOKKOS_INLINE_FUNCTION SlidingWindow(const Source& from, const int first_point) : source(from), first(first_point) {
    PORTASOLVE_UNROLL
    for (int u = 0; u < P - 1; ++u) held[u] = source.point(position(u));
  }
  // held[u]'s point: up, first + u; down, first + P - 1 - u.
  KOKKOS_INLINE_FUNCTION int position(const int u) const { return Up ? first + u : first + P - 1 - u; }
  // Before term t of the group: the one value it reads that earlier terms did not.
  KOKKOS_INLINE_FUNCTION void read(const int t) { held[t + P - 1] = source.point(position(t + P - 1)); }
  KOKKOS_INLINE_FUNCTION Lanes<T, P> lanes(const int t) const {
    Lanes<T, P> value;
    PORTASOLVE_UNROLL
    for (int b = 0; b < P; ++b) value.lane[b] = held[Up ? t + b : P - 1 + t - b];
    return value;
  }
  KOKKOS_INLINE_FUNCTION void next_term() {  // after term 0 of a group, for a group starting one term later
    PORTASOLVE_UNROLL
    for (int u = 0; u < P - 1; ++u) held[u] = held[u + 1];
    first += Up ? 1 : -1;
  }
  KOKKOS_INLINE_FUNCTION void next_group() {
    PORTASOLVE_UNROLL
    for (int u = 0; u < P - 1; ++u) held[u] = held[u + P];
    first += Up ? P : -P;
  }
};

// Calls term(m, window.lanes...) for m = 0..count-1 in order: whole groups
// of P terms unrolled so that every window index is a constant, then the
// rest one term at a time.
template <int P, class Term, class... Windows>
KOKKOS_INLINE_FUNCTION void for_each_term(const int count, const Term& term, Windows&... windows) {
  int group = 0;
  for (; group + P <= count; group += P) {
    PORTASOLVE_UNROLL
    for (int t = 0; t < P; ++t) {
      (windows.read(t), ...);
      term(group + t, windows.lanes(t)...);
    }
    (windows.next_group(), ...);
  }
  for (; group < count; ++group) {  // fewer than P: the window moves lane by lane
    (windows.read(0), ...);
    term(group, windows.lanes(0)...);
    (windows.next_term(), ...);
  }
}

// primed_sum's operations over the 2J + 1 terms of the windows:
// accumulate(sum, values...) is sum plus the term, halved(values...) the term
// halved (the primed sum's end terms, taken out of for_each_term so that
// its groups are free of branches).
template <class T, int P, class Accumulate, class Halved, class... Windows>
KOKKOS_INLINE_FUNCTION Lanes<T, P> sliding_primed_sum(const Coefficients<T>& co, const Accumulate& accumulate,
                                                      const Halved& halved, Windows&... windows) {
  if (!co.primed) {
    Lanes<T, P> sum(T(0));
    for_each_term<P>(
        2 * co.half + 1, [&](const int, const auto&... value) { sum = accumulate(sum, value...); }, windows...);
    return sum;
  }
  (windows.read(0), ...);
  Lanes<T, P> sum = halved(windows.lanes(0)...);
  (windows.next_term(), ...);
  for_each_term<P>(
      2 * co.half - 1, [&](const int, const auto&... value) { sum = accumulate(sum, value...); }, windows...);
  (windows.read(0), ...);
  return add(sum, halved(windows.lanes(0)...));
}

// X at points i..i+P-1 (model III; smoothed()'s operations).
template <class T, int P, class Source>
KOKKOS_INLINE_FUNCTION Lanes<T, P> sliding_large_scale(const Coefficients<T>& co, const int i, const Source& z) {
  const int half_width = co.smooth_steps;
  SlidingWindow<T, P, Source, true> window(z, i - half_width);
  Lanes<T, P> sum(T(0));
  for_each_term<P>(
      2 * half_width + 1,
      [&](const int m, const Lanes<T, P>& value) { sum = fused(static_cast<T>(co.smoother[m]), value, sum); }, window);
  return sum;
}

// W at points i..i+P-1: sum'_{j} X_{i-j} / K, j = -J up (average_w's
// operations).
template <class T, int P, class Source>
KOKKOS_INLINE_FUNCTION Lanes<T, P> sliding_average_w(const Coefficients<T>& co, const int i, const Source& x) {
  using Value = Lanes<T, P>;
  SlidingWindow<T, P, Source, false> window(x, i + co.half);
  return over_k(co, sliding_primed_sum<T, P>(
                        co, [](const Value& sum, const Value& value) { return add(sum, value); },
                        [](const Value& value) { return value / T(2); }, window));
}

// The advection sum at points i..i+P-1: sum'_{j} W_{i-K+j} X_{i+K+j}
// (advection()'s operations).
template <class T, int P, class SourceX, class SourceW>
KOKKOS_INLINE_FUNCTION Lanes<T, P> sliding_advection(const Coefficients<T>& co, const int i, const SourceX& x,
                                                     const SourceW& w) {
  using Value = Lanes<T, P>;
  SlidingWindow<T, P, SourceW, true> w_window(w, i - co.k - co.half);
  SlidingWindow<T, P, SourceX, true> x_window(x, i + co.k - co.half);
  return sliding_primed_sum<T, P>(
      co, [](const Value& sum, const Value& w_value, const Value& x_value) { return fused(w_value, x_value, sum); },
      [](const Value& w_value, const Value& x_value) { return mul(w_value, x_value) / T(2); }, w_window, x_window);
}

}  // namespace portasolve::lorenz05::detail
