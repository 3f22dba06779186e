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
    double CC = 0, CS = 0, C = 0, S = 0;
    for (std::size_t j = 0; j < n; ++j) {
      const double c = std::cos(angular[i] * x[j]), s = std::sin(angular[i] * x[j]);
      CC += weights[j] * c * c;
      CS += weights[j] * c * s;
      C += weights[j] * c;
      S += weights[j] * s;
    }
    double SS = 1.0 - CC;
    if (floating_mean) {
      CC -= C * C;
      SS -= S * S;
      CS -= C * S;
    }
    const double tau = 0.5 * std::atan2(2.0 * CS, CC - SS);
    double YC = 0, YS = 0, CC_tau = 0, C_tau = 0, S_tau = 0;
    for (std::size_t j = 0; j < n; ++j) {
      const double c = std::cos(angular[i] * x[j] - tau), s = std::sin(angular[i] * x[j] - tau);
      YC += weights[j] * y[j] * c;
      YS += weights[j] * y[j] * s;
      CC_tau += weights[j] * c * c;
      C_tau += weights[j] * c;
      S_tau += weights[j] * s;
    }
    double SS_tau = 1.0 - CC_tau;
    if (floating_mean) {
      YC -= Y * C_tau;
      YS -= Y * S_tau;
      CC_tau -= C_tau * C_tau;
      SS_tau -= S_tau * S_tau;
    }
    CC_tau = std::max(CC_tau, epsneg);
    SS_tau = std::max(SS_tau, epsneg);
    const double a = YC / CC_tau, b = YS / SS_tau;
    pgram[i] = 2.0 * (a * YC + b * YS);
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
    double yy_sum = 0, yc = 0, ys = 0, cc = 0, ss = 0, c_tau = 0, s_tau = 0, yy = 0;
    for (std::size_t j = 0; j < n; ++j) {
      const double phase = omega * t[j] - half_angle;
      const double sn = std::sin(phase), cs = std::cos(phase);
      yy_sum += w[j] * y[j];
      yc += w[j] * y[j] * cs;
      ys += w[j] * y[j] * sn;
      cc += w[j] * cs * cs;
      ss += w[j] * sn * sn;
      c_tau += w[j] * cs;
      s_tau += w[j] * sn;
      yy += w[j] * y[j] * y[j];
    }
    if (fit_mean) {
      yc -= yy_sum * c_tau;
      ys -= yy_sum * s_tau;
      cc -= c_tau * c_tau;
      ss -= s_tau * s_tau;
    }
    double p = yc * yc / cc + ys * ys / ss;
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
