#pragma once
// Every form reduces to seven weighted sums per (series, frequency) over the
// samples, with c = cos(w t), s = sin(w t):
//   C = sum w c, S = sum w s, CC = sum w c^2, SS = sum w s^2, CS = sum w c s,
//   YC = sum w y c, YS = sum w y s
// and a closed form in them (finish): the phase tau is folded in by angle
// addition instead of a second pass over the samples.
#include <Kokkos_Core.hpp>

#include "core/math.hpp"

namespace portasolve::lombscargle::detail {

// One sample's contribution to one frequency's sums: the rule every kernel
// uses. Weighted: generalized form (w = normalised 1/dy^2); otherwise w = 1.
// FitMean: also C and S (the floating mean's terms).
template <class T, bool Weighted, bool FitMean>
KOKKOS_INLINE_FUNCTION void accumulate(T cosine, T sine, T w, T wy, T& c, T& s, T& cc, T& ss, T& cs, T& yc, T& ys) {
  const T wc = Weighted ? w * cosine : cosine, ws = Weighted ? w * sine : sine;
  cc += wc * cosine;
  ss += ws * sine;
  cs += wc * sine;
  if constexpr (FitMean) {
    c += wc;
    s += ws;
  }
  yc += wy * cosine;
  ys += wy * sine;
}

template <class T, bool Weighted, bool FitMean>
struct Sums {
  T c = 0, s = 0, cc = 0, ss = 0, cs = 0, yc = 0, ys = 0;

  KOKKOS_INLINE_FUNCTION void add(T cosine, T sine, T w, T wy) {
    accumulate<T, Weighted, FitMean>(cosine, sine, w, wy, c, s, cc, ss, cs, yc, ys);
  }
};

// Per-series constants of the finish; computed on the host in double.
template <class T>
struct SeriesConstants {
  T y_sum;  // Y = sum w y (after centring)
  T yy;     // YY = sum w y^2
  T scale;  // classic: 0.5, or 1 / sum(y^2) with SciPy's normalize (with
            // SciPy 1.15's weights: N / 2, or 1 / YY); generalized psd:
            // 0.5 * sum dy^-2; otherwise unused
  T w_sum;  // sum w = CC + SS (the NUFFT forms CC and SS from it)
};

// Runtime choices of the finish, the same for every frequency.
struct FinishKind {
  bool classic;
  int normalization;  // Normalization as int (standard, model, log, psd)
};

// Which sums a batch needs, i.e. which kernel template runs (a host-side
// choice made once per batch): weighted (generalized form; classic with
// SciPy 1.15's weights or floating mean) and with the floating mean's C, S.
struct SumsKind {
  bool weighted;
  bool fit_mean;
};

// SciPy >= 1.15 raises the classic form's norms CC_tau, SS_tau to float64's
// epsneg (2^-53) of their scale, so a frequency where every sample has the
// same phase gives 0, not 0 / 0.
constexpr double classic_norm_floor = 1.1102230246251565e-16;

// The sums rotated by the phase tau (and, with the floating mean, less its
// terms): the model's two orthogonal components and their norms.
template <class T>
struct RotatedSums {
  T yc, ys, cc, ss;
};

// sin and cos of theta = atan2(s2, c2) / 2, theta in [-pi/2, pi/2], by the
// half-angle formulas (two square roots and a few divisions instead of atan2
// and sincos, which cost more than the rest of a frequency's finish on CPUs);
// the larger of cos theta, |sin theta| (>= 1 / sqrt 2) from its square root,
// the other from sin 2 theta, so neither suffers cancellation. theta = 0 for
// s2 = c2 = 0, as atan2 gives; NaN stays NaN. The sign of theta = +-pi/2
// (s2 = 0, c2 < 0) is free: the power depends on (cos, sin) up to sign.
template <class T>
KOKKOS_INLINE_FUNCTION void half_angle(T s2, T c2, T& st, T& ct) {
  namespace m = portasolve::math;
  const T scale = m::fmax(m::fabs(s2), m::fabs(c2));
  if (scale == 0) {
    st = 0;
    ct = 1;
    return;
  }
  const T c = c2 / scale, s = s2 / scale;
  const T r = m::sqrt(c * c + s * s);  // in [1, sqrt 2]
  if (c >= 0) {
    ct = m::sqrt(T(0.5) * (1 + c / r));
    st = s / (2 * r * ct);
  } else {
    const T sine = m::sqrt(T(0.5) * (1 - c / r));
    st = s < 0 ? -sine : sine;
    ct = (s < 0 ? -s : s) / (2 * r * sine);
  }
}

template <class T, bool Weighted, bool FitMean>
KOKKOS_INLINE_FUNCTION RotatedSums<T> rotate(const Sums<T, Weighted, FitMean>& sum, const SeriesConstants<T>& series) {
  namespace m = portasolve::math;
  T s2 = 2 * sum.cs;
  T c2 = sum.cc - sum.ss;
  if constexpr (FitMean) {
    s2 -= 2 * sum.s * sum.c;
    c2 -= sum.c * sum.c - sum.s * sum.s;
  }
  // Rotating by theta = w tau makes the sine and cosine terms orthogonal.
  T st, ct;
  half_angle(s2, c2, st, ct);
  const T cst = 2 * ct * st;
  RotatedSums<T> r;
  r.yc = ct * sum.yc + st * sum.ys;
  r.ys = ct * sum.ys - st * sum.yc;
  r.cc = ct * ct * sum.cc + cst * sum.cs + st * st * sum.ss;
  r.ss = ct * ct * sum.ss - cst * sum.cs + st * st * sum.cc;
  if constexpr (FitMean) {
    const T c_tau = ct * sum.c + st * sum.s;
    const T s_tau = ct * sum.s - st * sum.c;
    r.yc -= series.y_sum * c_tau;
    r.ys -= series.y_sum * s_tau;
    r.cc -= c_tau * c_tau;
    r.ss -= s_tau * s_tau;
  }
  return r;
}

// The generalized form's normalizations of p = the weighted chi^2 reduction
// of the model (sum w with w = 1 / dy^2 scaled to sum 1): astropy's.
template <class T>
KOKKOS_INLINE_FUNCTION T generalized_normalization(T p, const SeriesConstants<T>& series, FinishKind kind) {
  namespace m = portasolve::math;
  switch (kind.normalization) {
    case 0:
      return p / series.yy;  // standard
    case 1:
      return p / (series.yy - p);  // model
    case 2:
      return -m::log(1 - p / series.yy);  // log
    default:
      return p * series.scale;  // psd
  }
}

template <class T>
KOKKOS_INLINE_FUNCTION T normalized_power(const RotatedSums<T>& r, const SeriesConstants<T>& series, FinishKind kind) {
  if (kind.classic) {
    // Scale of the norms: sum w (1 with SciPy 1.15's weights, N without).
    const T floor = static_cast<T>(classic_norm_floor) * series.w_sum;
    const T cc = r.cc < floor ? floor : r.cc, ss = r.ss < floor ? floor : r.ss;
    return series.scale * (r.yc * r.yc / cc + r.ys * r.ys / ss);
  }
  return generalized_normalization(r.yc * r.yc / r.cc + r.ys * r.ys / r.ss, series, kind);
}

template <class T, bool Weighted, bool FitMean>
KOKKOS_INLINE_FUNCTION T finish(const Sums<T, Weighted, FitMean>& sum, const SeriesConstants<T>& series,
                                FinishKind kind) {
  return normalized_power(rotate(sum, series), series, kind);
}

}  // namespace portasolve::lombscargle::detail
