#pragma once
// Multi-term models (astropy's nterms with method="chi2"): at each frequency f
// the weighted least-squares fit of
//   y ~ [offset] + sum_{k=1..nterms} a_k sin(k x) + b_k cos(k x),  x = 2 pi f t
// and its chi^2 reduction p = b . A^-1 b, with A = X^T W X and b = X^T W y
// (w = 1 / dy^2 scaled to sum 1, y centred as the generalized form centres
// it), normalized as the generalized form normalizes p (sums.hpp).
//
// By the product-to-sum identities (astropy's fastchi2) A and b need only
//   C_k = sum w cos(k x), S_k = sum w sin(k x)   for k = 1 .. 2 nterms,
//   YC_k = sum w y cos(k x), YS_k = sum w y sin(k x)   for k = 1 .. nterms:
// 6 nterms sums per (series, frequency) instead of the (2 nterms + 1)^2 / 2
// products, one sincos per sample and the harmonics by angle addition. The
// small system is then solved in registers by Cholesky; p = |L^-1 b|^2 needs
// the forward substitution only.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <type_traits>

#include "core/math.hpp"
#include "core/unroll.hpp"
#include "solvers/lombscargle/detail/kernels.hpp"
#include "solvers/lombscargle/detail/sums.hpp"
#include "solvers/lombscargle/options.hpp"

namespace portasolve::lombscargle::detail {

// Weighted sums of the harmonics of one frequency over one series' samples.
template <class T, int NTerms>
struct HarmonicSums {
  static constexpr int harmonics = 2 * NTerms;  // A's entries reach harmonic m + n <= 2 nterms
  T c[harmonics], s[harmonics];                 // C_k, S_k at index k - 1
  T yc[NTerms], ys[NTerms];                     // YC_k, YS_k at index k - 1

  KOKKOS_INLINE_FUNCTION HarmonicSums() {
    PORTASOLVE_UNROLL
    for (int k = 0; k < harmonics; ++k) c[k] = s[k] = T(0);
    PORTASOLVE_UNROLL
    for (int k = 0; k < NTerms; ++k) yc[k] = ys[k] = T(0);
  }

  // One sample: cos and sin of its phase x, its weight and weighted centred
  // value. cos, sin of (k + 1) x from those of k x and x: error about k eps,
  // against one transcendental per harmonic.
  KOKKOS_INLINE_FUNCTION void add(T cos1, T sin1, T w, T wy) {
    T cosine = cos1, sine = sin1;
    PORTASOLVE_UNROLL
    for (int k = 0; k < harmonics; ++k) {
      if (k > 0) {
        T next_cos, next_sin;
        add_angles(cosine, sine, cos1, sin1, next_cos, next_sin);
        cosine = next_cos;
        sine = next_sin;
      }
      c[k] += w * cosine;
      s[k] += w * sine;
      if (k < NTerms) {
        yc[k] += wy * cosine;
        ys[k] += wy * sine;
      }
    }
  }
};

// A pivot of the Cholesky factorisation below this fraction of its column's
// norm A_ii means the column is (to rounding) in the span of the ones before
// it (e.g. every k f t an integer): it is left out, so p is the reduction by
// the fit on the columns that remain, the least-squares answer, not 0 / 0.
// 1024 eps of T: about 2e-13 in double, 1e-4 in float.
template <class T>
KOKKOS_INLINE_FUNCTION constexpr T dependent_column_fraction() {
  return std::is_same<T, float>::value ? T(1024 * 1.1920928955078125e-7) : T(1024 * 2.220446049250313e-16);
}

// The model's columns in astropy's order: [1], sin x, cos x, sin 2x, cos 2x...
// Column i: offset (FitMean, i = 0), else harmonic (i - offset) / 2 + 1, sin
// for even i - offset, cos for odd.
template <class T, int NTerms, bool FitMean>
struct NormalEquations {
  static constexpr int offset = FitMean ? 1 : 0;
  static constexpr int size = offset + 2 * NTerms;

  const HarmonicSums<T, NTerms>& sums;
  const SeriesConstants<T>& series;

  // C_k and S_k for any integer k (C_0 = sum w, S_0 = 0, S_-k = -S_k).
  KOKKOS_INLINE_FUNCTION T cos_sum(int k) const {
    k = k < 0 ? -k : k;
    return k == 0 ? series.w_sum : sums.c[k - 1];
  }
  KOKKOS_INLINE_FUNCTION T sin_sum(int k) const { return k == 0 ? T(0) : k > 0 ? sums.s[k - 1] : -sums.s[-k - 1]; }

  // A_ij = sum w X_i X_j by the product-to-sum identities.
  KOKKOS_INLINE_FUNCTION T matrix(int i, int j) const {
    if (FitMean && i == 0 && j == 0) return series.w_sum;
    if (FitMean && (i == 0 || j == 0)) {
      const int other = (i == 0 ? j : i) - offset;
      const int k = other / 2 + 1;
      return other % 2 == 0 ? sin_sum(k) : cos_sum(k);
    }
    const int m = (i - offset) / 2 + 1, n = (j - offset) / 2 + 1;
    const bool sin_m = (i - offset) % 2 == 0, sin_n = (j - offset) % 2 == 0;
    if (sin_m && sin_n) return T(0.5) * (cos_sum(m - n) - cos_sum(m + n));
    if (!sin_m && !sin_n) return T(0.5) * (cos_sum(m - n) + cos_sum(m + n));
    if (sin_m) return T(0.5) * (sin_sum(m - n) + sin_sum(m + n));  // sin(m x) cos(n x)
    return T(0.5) * (sin_sum(n - m) + sin_sum(m + n));             // cos(m x) sin(n x)
  }

  // b_i = sum w y X_i.
  KOKKOS_INLINE_FUNCTION T right_side(int i) const {
    if (FitMean && i == 0) return series.y_sum;
    const int k = (i - offset) / 2;
    return (i - offset) % 2 == 0 ? sums.ys[k] : sums.yc[k];
  }

  // p = b . A^-1 b = |z|^2 with L z = b, A = L L^T, L in registers.
  KOKKOS_INLINE_FUNCTION T reduction() const {
    T smallest;
    return reduction(smallest);
  }

  // The same, with the smallest squared pivot (the part of a column's norm
  // that the columns before it do not explain): sums with an absolute error
  // (the NUFFT's) give p a relative error about that error over it, so the
  // NUFFT sums directly where it is small (NufftMultitermFinish).
  KOKKOS_INLINE_FUNCTION T reduction(T& smallest_pivot) const {
    T l[size][size], z[size];
    T p = 0;
    smallest_pivot = series.w_sum;
    PORTASOLVE_UNROLL
    for (int i = 0; i < size; ++i) {
      PORTASOLVE_UNROLL
      for (int j = 0; j <= i; ++j) {
        T v = matrix(i, j);
        PORTASOLVE_UNROLL
        for (int k = 0; k < j; ++k) v -= l[i][k] * l[j][k];
        if (j < i) {
          l[i][j] = l[j][j] > T(0) ? v / l[j][j] : T(0);
        } else {
          smallest_pivot = v < smallest_pivot ? v : smallest_pivot;
          l[i][i] = v > dependent_column_fraction<T>() * matrix(i, i) ? math::sqrt(v) : T(0);
        }
      }
      T r = right_side(i);
      PORTASOLVE_UNROLL
      for (int k = 0; k < i; ++k) r -= l[i][k] * z[k];
      z[i] = l[i][i] > T(0) ? r / l[i][i] : T(0);
      p += z[i] * z[i];
    }
    return p;
  }
};

// The harmonic sums of one series at frequency f over every sample: the
// phase f t formed in double and reduced to a turn before the one sincos in
// T. The direct algorithm's, and the NUFFT's where its sums would not do.
template <class T, int NTerms>
KOKKOS_INLINE_FUNCTION HarmonicSums<T, NTerms> direct_harmonic_sums(const DeviceData<T>& data,
                                                                    const std::int64_t series, const double f) {
  HarmonicSums<T, NTerms> sums;
  for (std::int64_t j = data.offsets(series); j < data.offsets(series + 1); ++j) {
    T cosine, sine;
    seed_cos_sin(f * data.t(j), cosine, sine);
    sums.add(cosine, sine, data.w(j), data.wy(j));
  }
  return sums;
}

// One thread per (series, frequency), every sample of the series.
template <class T, int NTerms, bool FitMean>
struct MultitermKernel {
  DeviceData<T> data;
  std::int64_t frequencies;

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t index) const {
    const std::int64_t series = index / frequencies, k = index % frequencies;
    const HarmonicSums<T, NTerms> sums = direct_harmonic_sums<T, NTerms>(data, series, data.frequency(k));
    const SeriesConstants<T> constants = data.constants(series);
    const T p = NormalEquations<T, NTerms, FitMean>{sums, constants}.reduction();
    data.power(series, k) = generalized_normalization(p, constants, data.kind);
  }
};

// The multi-term power of every series (generalized form, 1 <= nterms <=
// max_nterms) into data.power, launched on exec.
template <class T>
void launch_multiterm(const ExecSpace& exec, const DeviceData<T>& data, int nterms, bool fit_mean,
                      std::int64_t series_count);

extern template void launch_multiterm(const ExecSpace&, const DeviceData<float>&, int, bool, std::int64_t);
extern template void launch_multiterm(const ExecSpace&, const DeviceData<double>&, int, bool, std::int64_t);

}  // namespace portasolve::lombscargle::detail
