#pragma once
// A plain serial float64 host implementation of models I-III and RK4, written
// from the paper's formulas for the tests.
#include <cmath>
#include <cstdlib>
#include <random>
#include <vector>

#include "solvers/lorenz05/parameters.hpp"

namespace portasolve::lorenz05::testing {

// Model `number` (1, 2 or 3) with N = n, K = k, I = smooth, delta_t = dt and
// F = forcing; b and c as ModelParameters has them.
inline ModelParameters model(int number, int n, int k, int smooth, double dt, double forcing) {
  const ModelParameters defaults;
  return ModelParameters{number, n, forcing, dt, defaults.space_time_scale, defaults.coupling, k, smooth};
}

inline int wrap(int i, int n) { return ((i % n) + n) % n; }

// sum' over j = -J..J of f(j): even K halves the end terms.
template <class F>
double sum_prime(int k, F f) {
  const int J = k % 2 == 0 ? k / 2 : (k - 1) / 2;
  double s = 0;
  for (int j = -J; j <= J; ++j) s += (k % 2 == 0 && std::abs(j) == J ? 0.5 : 1.0) * f(j);
  return s;
}

inline std::vector<double> host_rate(const ModelParameters& p, const std::vector<double>& z) {
  const int n = p.model_size, k = p.model == 1 ? 1 : p.K;
  std::vector<double> x = z, y(n, 0.0), w(n), rate(n);
  if (p.model == 3 && p.smooth_steps > 0) {
    const double I = p.smooth_steps;
    const double alpha = (3 * I * I + 3) / (2 * I * I * I + 4 * I),
                 beta = (2 * I * I + 1) / (I * I * I * I + 2 * I * I);
    for (int i = 0; i < n; ++i) {
      double s = 0;
      for (int j = -p.smooth_steps; j <= p.smooth_steps; ++j)
        s += (std::abs(j) == p.smooth_steps ? 0.5 : 1.0) * (alpha - beta * std::abs(j)) * z[wrap(i + j, n)];
      x[i] = s;
    }
    for (int i = 0; i < n; ++i) y[i] = z[i] - x[i];
  }
  for (int i = 0; i < n; ++i) w[i] = sum_prime(k, [&](int j) { return x[wrap(i - j, n)]; }) / k;
  for (int i = 0; i < n; ++i) {
    const double xx = -w[wrap(i - 2 * k, n)] * w[wrap(i - k, n)] +
                      sum_prime(k, [&](int j) { return w[wrap(i - k + j, n)] * x[wrap(i + k + j, n)]; }) / k;
    rate[i] = xx - x[i] + p.forcing;
    if (p.model == 3) {
      const double b = p.space_time_scale, c = p.coupling;
      const auto Y = [&](int m) { return y[wrap(m, n)]; };
      const auto X = [&](int m) { return x[wrap(m, n)]; };
      rate[i] += b * b * (-Y(i - 2) * Y(i - 1) + Y(i - 1) * Y(i + 1)) +
                 c * (-Y(i - 2) * X(i - 1) + Y(i - 1) * X(i + 1)) - b * y[i];
    }
  }
  return rate;
}

inline void host_step(const ModelParameters& p, std::vector<double>& z) {
  const std::size_t n = z.size();
  const double dt = p.delta_t;
  std::vector<double> k1 = host_rate(p, z), stage(n);
  for (std::size_t i = 0; i < n; ++i) stage[i] = z[i] + 0.5 * dt * k1[i];
  std::vector<double> k2 = host_rate(p, stage);
  for (std::size_t i = 0; i < n; ++i) stage[i] = z[i] + 0.5 * dt * k2[i];
  std::vector<double> k3 = host_rate(p, stage);
  for (std::size_t i = 0; i < n; ++i) stage[i] = z[i] + dt * k3[i];
  std::vector<double> k4 = host_rate(p, stage);
  for (std::size_t i = 0; i < n; ++i) z[i] += dt * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]) / 6;
}

// A state near the attractor's scale: F plus noise.
inline std::vector<double> noisy_state(const ModelParameters& p, unsigned seed, double size = 1.0) {
  std::mt19937 generator(seed);
  std::normal_distribution<double> normal(0, size);
  std::vector<double> z(p.model_size);
  for (double& v : z) v = p.forcing * 0.5 + normal(generator);
  return z;
}

}  // namespace portasolve::lorenz05::testing
