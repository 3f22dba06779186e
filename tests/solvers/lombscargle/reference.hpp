#pragma once
// Plain float64 host references, written the way SciPy and astropy define
// the periodograms (not the way the solver computes them).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace reference {

// scipy.signal.lombscargle (1.10): angular frequencies, one pass, tau from atan2.
inline std::vector<double> scipy_lombscargle(const std::vector<double>& x, std::vector<double> y,
                                             const std::vector<double>& angular, bool precenter, bool normalize) {
  const std::vector<double> y_original = y;
  if (precenter) {
    double mean = 0;
    for (double v : y) mean += v;
    mean /= static_cast<double>(y.size());
    for (double& v : y) v -= mean;
  }
  std::vector<double> pgram(angular.size());
  for (std::size_t i = 0; i < angular.size(); ++i) {
    double xc = 0, xs = 0, cc = 0, ss = 0, cs = 0;
    for (std::size_t j = 0; j < x.size(); ++j) {
      const double c = std::cos(angular[i] * x[j]), s = std::sin(angular[i] * x[j]);
      xc += y[j] * c;
      xs += y[j] * s;
      cc += c * c;
      ss += s * s;
      cs += c * s;
    }
    const double tau = std::atan2(2 * cs, cc - ss) / (2 * angular[i]);
    const double c_tau = std::cos(angular[i] * tau), s_tau = std::sin(angular[i] * tau);
    const double c_tau2 = c_tau * c_tau, s_tau2 = s_tau * s_tau, cs_tau = 2 * c_tau * s_tau;
    pgram[i] =
        0.5 * ((c_tau * xc + s_tau * xs) * (c_tau * xc + s_tau * xs) / (c_tau2 * cc + cs_tau * cs + s_tau2 * ss) +
               (c_tau * xs - s_tau * xc) * (c_tau * xs - s_tau * xc) / (c_tau2 * ss - cs_tau * cs + s_tau2 * cc));
  }
  if (normalize) {
    double yy = 0;
    for (double v : y_original) yy += v * v;
    for (double& p : pgram) p *= 2 / yy;
  }
  return pgram;
}

// Sums over the samples of weight * (y, y y, y c, y s, c c, s s, c s, c, s),
// c and s the cosine and sine of the phase w t - shift.
struct TrigSums {
  double Y = 0, YY = 0, YC = 0, YS = 0, CC = 0, SS = 0, CS = 0, C = 0, S = 0;
};

inline TrigSums trig_sums(const std::vector<double>& t, const std::vector<double>& y,
                          const std::vector<double>& weights, double w, double shift) {
  TrigSums sums;
  for (std::size_t j = 0; j < t.size(); ++j) {
    const double phase = w * t[j] - shift;
    const double c = std::cos(phase), s = std::sin(phase);
    sums.Y += weights[j] * y[j];
    sums.YY += weights[j] * y[j] * y[j];
    sums.YC += weights[j] * y[j] * c;
    sums.YS += weights[j] * y[j] * s;
    sums.CC += weights[j] * c * c;
    sums.SS += weights[j] * s * s;
    sums.CS += weights[j] * c * s;
    sums.C += weights[j] * c;
    sums.S += weights[j] * s;
  }
  return sums;
}

// The floating mean (fit_mean): the sums of the products less the products
// of the weighted means.
inline TrigSums less_means(TrigSums sums) {
  sums.YC -= sums.Y * sums.C;
  sums.YS -= sums.Y * sums.S;
  sums.CC -= sums.C * sums.C;
  sums.SS -= sums.S * sums.S;
  sums.CS -= sums.C * sums.S;
  return sums;
}

// SciPy 1.15's sums: SS = 1 - CC (the weights sum to 1).
inline TrigSums scipy115_sums(const std::vector<double>& x, const std::vector<double>& y,
                              const std::vector<double>& weights, double w, double shift, bool floating_mean) {
  TrigSums sums = trig_sums(x, y, weights, w, shift);
  sums.SS = 1.0 - sums.CC;
  return floating_mean ? less_means(sums) : sums;
}

// scipy.signal.lombscargle (1.15) with weights and floating_mean: weights
// scaled to sum 1, tau from the (floating-mean corrected) sums, then a second
// pass at the phases w t - tau; SS = 1 - CC; CC and SS raised to epsneg.
// Empty weights: all equal.
inline std::vector<double> scipy115_lombscargle(const std::vector<double>& x, std::vector<double> y,
                                                const std::vector<double>& angular, bool precenter, bool normalize,
                                                std::vector<double> weights, bool floating_mean) {
  const std::size_t n = x.size();
  if (weights.empty()) weights.assign(n, 1.0);
  double total = 0;
  for (double v : weights) total += v;
  for (double& v : weights) v *= 1.0 / total;
  if (precenter) {
    double mean = 0;
    for (double v : y) mean += v;
    mean /= static_cast<double>(n);
    for (double& v : y) v -= mean;
  }
  double Y = 0;
  for (std::size_t j = 0; j < n; ++j) Y += weights[j] * y[j];
  const double epsneg = std::ldexp(1.0, -53);
  std::vector<double> pgram(angular.size());
  for (std::size_t i = 0; i < angular.size(); ++i) {
    const TrigSums first = scipy115_sums(x, y, weights, angular[i], 0.0, floating_mean);
    const double tau = 0.5 * std::atan2(2.0 * first.CS, first.CC - first.SS);
    const TrigSums second = scipy115_sums(x, y, weights, angular[i], tau, floating_mean);
    const double CC_tau = std::max(second.CC, epsneg), SS_tau = std::max(second.SS, epsneg);
    const double a = second.YC / CC_tau, b = second.YS / SS_tau;
    pgram[i] = 2.0 * (a * second.YC + b * second.YS);
  }
  if (normalize) {
    double YY = 0;
    for (std::size_t j = 0; j < n; ++j) YY += weights[j] * y[j] * y[j];
    if (floating_mean) YY -= Y * Y;
    for (double& p : pgram) p *= 0.5 / YY;
  } else {
    for (double& p : pgram) p *= static_cast<double>(n) / 4.0;
  }
  return pgram;
}

// astropy LombScargle(t, y, dy, fit_mean, center_data, nterms=1).power(f,
// normalization, method="slow"): cycles per unit time, two passes.
inline std::vector<double> astropy_lombscargle(const std::vector<double>& t, std::vector<double> y,
                                               std::vector<double> dy, const std::vector<double>& frequency,
                                               bool fit_mean, bool center_data, const std::string& normalization) {
  const std::size_t n = t.size();
  if (dy.empty()) dy.assign(n, 1.0);
  std::vector<double> w(n);
  double w_sum = 0;
  for (std::size_t j = 0; j < n; ++j) w_sum += w[j] = 1 / (dy[j] * dy[j]);
  for (double& v : w) v /= w_sum;
  if (fit_mean || center_data) {
    double mean = 0;
    for (std::size_t j = 0; j < n; ++j) mean += w[j] * y[j];
    for (double& v : y) v -= mean;
  }
  std::vector<double> power(frequency.size());
  for (std::size_t k = 0; k < frequency.size(); ++k) {
    const double omega = 2 * M_PI * frequency[k];
    double s2 = 0, c2 = 0, s = 0, c = 0;
    for (std::size_t j = 0; j < n; ++j) {
      const double sn = std::sin(omega * t[j]), cs = std::cos(omega * t[j]);
      s2 += 2 * w[j] * sn * cs;
      c2 += 2 * w[j] * (0.5 - sn * sn);
      s += w[j] * sn;
      c += w[j] * cs;
    }
    if (fit_mean) {
      s2 -= 2 * s * c;
      c2 -= c * c - s * s;
    }
    const double half_angle = 0.5 * std::atan2(s2, c2);
    const TrigSums all = trig_sums(t, y, w, omega, half_angle);
    const TrigSums sums = fit_mean ? less_means(all) : all;
    const double yy = all.YY;
    double p = sums.YC * sums.YC / sums.CC + sums.YS * sums.YS / sums.SS;
    if (normalization == "standard")
      p /= yy;
    else if (normalization == "model")
      p /= yy - p;
    else if (normalization == "log")
      p = -std::log(1 - p / yy);
    else
      p *= 0.5 * w_sum;  // psd: 0.5 * sum dy^-2
    power[k] = p;
  }
  return power;
}

}  // namespace reference
