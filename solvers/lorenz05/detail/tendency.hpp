#pragma once
// The right-hand side of models I-III for one point of one member, shared by
// every ensemble layout. Readers are functors k -> value; an index map takes
// the kernels' point indices (which reach past both ends of the row) to the
// readers' k: CyclicIndex wraps them into [0, N) for plain rows,
// PaddedIndex passes them on to rows with wrapped copies (halos) at both ends.
// The value a reader returns may be a scalar T or Lanes<T, B> (lanes.hpp), B
// consecutive points at once: the same operations in the same order per point.
#include <Kokkos_Core.hpp>
#include <type_traits>

#include "core/spaces.hpp"
#include "solvers/lorenz05/detail/rounding.hpp"

namespace portasolve::lorenz05::detail {

// What a kernel needs, typed and by value.
template <class T>
struct Coefficients {
  int model = 3, n = 0, k = 1, half = 0;  // half: J
  bool primed = false;                    // even K: halve the sums' end terms
  int smooth_steps = 0;                   // I
  T forcing = 0, b = 0, c = 0, dt = 0;
  // 1 / K where K is a power of two (exact), else 0: see over_k.
  T power_of_two_reciprocal_k = 0;
  View1D<const T> smoother;  // 2I+1 weights (model III)

  KOKKOS_INLINE_FUNCTION bool two_scale() const { return model == 3 && smooth_steps > 0; }
};

// One-scale models with K = 1 (Lorenz 96, and model II with K = 1): the
// kernels instantiated for them compute with one_scale_k1_constants(co),
// whose K, J (0: K = 1 is odd, so unprimed), model and smooth_steps are
// constants the compiler folds (the sums' loops and the branches on the
// model compile away); the same operations, so the same values.
template <class T>
KOKKOS_INLINE_FUNCTION bool is_one_scale_k1(const Coefficients<T>& co) {
  return co.k == 1 && co.model != 3;
}
template <class T>
KOKKOS_INLINE_FUNCTION Coefficients<T> one_scale_k1_constants(Coefficients<T> co) {
  co.model = 1;
  co.k = 1;
  co.half = 0;
  co.primed = false;
  co.smooth_steps = 0;
  return co;
}

// i in [-2n, 3n) folded into [0, n) by selects: the kernels' indices reach
// at most 2K + J < 3n from the point, and a division per term would cost
// more than the term.
KOKKOS_INLINE_FUNCTION int cyclic(int i, const int n) {
  i = i < 0 ? i + n : i;
  i = i < 0 ? i + n : i;
  i = i >= n ? i - n : i;
  return i >= n ? i - n : i;
}

struct CyclicIndex {
  int n;
  KOKKOS_INLINE_FUNCTION int operator()(const int i) const { return cyclic(i, n); }
};
struct PaddedIndex {
  KOKKOS_INLINE_FUNCTION int operator()(const int i) const { return i; }
};

// value / K. For K = 1 (Lorenz 96) the value itself, which is value / 1 in
// every bit: there the divisions (W at three points and the bracket's sum,
// per point and stage) cost more than the rest of the rate. For K a power of
// two (DART's model III: 32) value * (1 / K), which is value / K in every bit
// (the same real number, rounded once) for a multiply's cost.
template <class T, class Value>
KOKKOS_INLINE_FUNCTION Value over_k(const Coefficients<T>& co, const Value& value) {
  if (co.k == 1) return value;
  if (co.power_of_two_reciprocal_k != T(0)) return mul(value, co.power_of_two_reciprocal_k);
  return value / T(co.k);
}

// sum'_{j=-J..J} of terms added from j = -J up (DART's order):
// accumulate(sum, j) is sum plus term j, halved(j) term j halved (the primed
// sum's end terms).
template <class T, class Value, class Accumulate, class Halved>
KOKKOS_INLINE_FUNCTION Value primed_sum(const Coefficients<T>& co, const Value& zero, const Accumulate& accumulate,
                                        const Halved& halved) {
  if (!co.primed) {
    Value sum = zero;
    for (int j = -co.half; j <= co.half; ++j) sum = accumulate(sum, j);
    return sum;
  }
  Value sum = halved(-co.half);
  for (int j = -co.half + 1; j <= co.half - 1; ++j) sum = accumulate(sum, j);
  return add(sum, halved(co.half));
}

// The running smoother's sum (smoothing::cyclic_running_smoother's order, j = -I
// up, each term fused into the sum) for a reader that takes any q in
// [i - I, i + I]: wrapped through index.
template <class T, class Value, class Read>
KOKKOS_INLINE_FUNCTION Value smoothed(const Coefficients<T>& co, const int i, const Read& read) {
  const int half_width = co.smooth_steps;
  Value sum(T(0));
  for (int j = -half_width; j <= half_width; ++j)
    sum = fused(static_cast<T>(co.smoother[j + half_width]), read(i + j), sum);
  return sum;
}

// X_n: the large scale (model III), or Z itself.
template <class T, class Index, class ReadZ>
KOKKOS_INLINE_FUNCTION auto large_scale(const Coefficients<T>& co, const Index& index, const int i, const ReadZ& z) {
  using Value = std::decay_t<decltype(z(i))>;
  if (!co.two_scale()) return z(i);
  return smoothed<T, Value>(co, i, [&](const int q) { return z(index(q)); });
}
template <class T, class ReadZ>
KOKKOS_INLINE_FUNCTION T large_scale(const Coefficients<T>& co, const int i, const ReadZ& z) {
  return large_scale(co, CyclicIndex{co.n}, i, z);
}

// W_n = sum'_{j} X_{n-j} / K.
template <class T, class Index, class ReadX>
KOKKOS_INLINE_FUNCTION auto average_w(const Coefficients<T>& co, const Index& index, const int i, const ReadX& x) {
  using Value = std::decay_t<decltype(x(i))>;
  return over_k(co, primed_sum(
                        co, Value(T(0)), [&](const Value& sum, const int j) { return add(sum, x(index(i - j))); },
                        [&](const int j) { return x(index(i - j)) / T(2); }));
}
template <class T, class ReadX>
KOKKOS_INLINE_FUNCTION T average_w(const Coefficients<T>& co, const int i, const ReadX& x) {
  return average_w(co, CyclicIndex{co.n}, i, x);
}

// The advection sum sum'_{j} W_{n-K+j} X_{n+K+j}.
template <class T, class Index, class ReadX, class ReadW>
KOKKOS_INLINE_FUNCTION auto advection(const Coefficients<T>& co, const Index& index, const int i, const ReadX& x,
                                      const ReadW& w) {
  using Value = std::decay_t<decltype(x(i))>;
  const int k = co.k;
  return primed_sum(
      co, Value(T(0)),
      [&](const Value& sum, const int j) { return fused(w(index(i - k + j)), x(index(i + k + j)), sum); },
      [&](const int j) { return mul(w(index(i - k + j)), x(index(i + k + j))) / T(2); });
}

// dZ_n/dt from Z, X, W and the advection sum at n (the resident layout forms
// that sum from sliding windows, the others by advection()).
template <class T, class Index, class ReadZ, class ReadX, class ReadW, class Value>
KOKKOS_INLINE_FUNCTION Value rate_from_advection(const Coefficients<T>& co, const Index& index, const int i,
                                                 const ReadZ& z, const ReadX& x, const ReadW& w,
                                                 const Value& advection_sum) {
  const int k = co.k;
  const Value bracket = fused(-w(index(i - 2 * k)), w(index(i - k)), over_k(co, advection_sum));
  Value rate = add(sub(bracket, x(i)), co.forcing);
  if (co.model == 3) {
    const auto y = [&](const int m) {
      const int q = index(m);
      return sub(z(q), x(q));
    };
    const Value y_m2 = y(i - 2), y_m1 = y(i - 1), y_p1 = y(i + 1), y_i = y(i);
    const Value small_scale = add(mul(-y_m2, y_m1), mul(y_m1, y_p1));
    const Value coupling = add(mul(-y_m2, x(index(i - 1))), mul(y_m1, x(index(i + 1))));
    rate = add(rate, sub(add(mul(mul(co.b, co.b), small_scale), mul(co.c, coupling)), mul(co.b, y_i)));
  }
  return rate;
}

// dZ_n/dt from Z, X (= Z unless model III) and W.
template <class T, class Index, class ReadZ, class ReadX, class ReadW>
KOKKOS_INLINE_FUNCTION auto tendency(const Coefficients<T>& co, const Index& index, const int i, const ReadZ& z,
                                     const ReadX& x, const ReadW& w) {
  return rate_from_advection(co, index, i, z, x, w, advection(co, index, i, x, w));
}
template <class T, class ReadZ, class ReadX, class ReadW>
KOKKOS_INLINE_FUNCTION T tendency(const Coefficients<T>& co, const int i, const ReadZ& z, const ReadX& x,
                                  const ReadW& w) {
  return tendency(co, CyclicIndex{co.n}, i, z, x, w);
}

}  // namespace portasolve::lorenz05::detail
