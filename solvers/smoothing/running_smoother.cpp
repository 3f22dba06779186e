#include "solvers/smoothing/running_smoother.hpp"

#include <cmath>
#include <stdexcept>

namespace portasolve::smoothing {

std::vector<double> running_smoother_weights(int half_width) {
  if (half_width < 0) throw std::invalid_argument("the running smoother's half width I must be >= 0");
  if (half_width == 0) return {1.0};
  const double i = half_width;
  const double alpha = (3 * i * i + 3) / (2 * i * i * i + 4 * i);
  const double beta = (2 * i * i + 1) / (i * i * i * i + 2 * i * i);
  std::vector<double> weights(2 * half_width + 1);
  for (int j = -half_width; j <= half_width; ++j) weights[j + half_width] = alpha - beta * std::abs(j);
  weights.front() /= 2;
  weights.back() /= 2;
  return weights;
}

}  // namespace portasolve::smoothing
