#include "solvers/lombscargle/model.hpp"

#include <array>
#include <cmath>
#include <cstddef>
#include <vector>

namespace portasolve::lombscargle {

namespace {

// Columns of the design matrix: sin, cos and, with an offset, 1.
constexpr int max_terms = 3;
using Matrix = std::array<std::array<double, max_terms + 1>, max_terms>;  // normal equations | right side

// Solves the n x n system in `a` (right side in column n) by Gaussian
// elimination with partial pivoting; false when a pivot vanishes.
bool solve(Matrix& a, int n, std::array<double, max_terms>& x) {
  for (int col = 0; col < n; ++col) {
    int pivot = col;
    for (int row = col + 1; row < n; ++row)
      if (std::fabs(a[row][col]) > std::fabs(a[pivot][col])) pivot = row;
    if (!(std::fabs(a[pivot][col]) > 0)) return false;
    std::swap(a[col], a[pivot]);
    for (int row = col + 1; row < n; ++row) {
      const double factor = a[row][col] / a[col][col];
      for (int k = col; k <= n; ++k) a[row][k] -= factor * a[col][k];
    }
  }
  for (int row = n - 1; row >= 0; --row) {
    double sum = a[row][n];
    for (int k = row + 1; k < n; ++k) sum -= a[row][k] * x[k];
    x[row] = sum / a[row][row];
  }
  return true;
}

}  // namespace

SinusoidFit fit_sinusoid(const Series& series, double frequency, const Options& options) {
  const std::size_t n = series.t.size();
  std::vector<double> weight(n, 1.0);
  double mean = 0;
  bool fit_offset = false;
  if (options.form == Form::generalized) {
    if (!series.dy.empty())
      for (std::size_t j = 0; j < n; ++j) weight[j] = 1.0 / (series.dy[j] * series.dy[j]);
    fit_offset = options.fit_mean;
    if (options.center_data || options.fit_mean) {
      double w_sum = 0;
      for (std::size_t j = 0; j < n; ++j) {
        mean += weight[j] * series.y[j];
        w_sum += weight[j];
      }
      mean /= w_sum;
    }
  } else {
    if (!series.weights.empty()) weight = series.weights;
    fit_offset = options.floating_mean;
    if (options.precenter) {
      for (double v : series.y) mean += v;
      mean /= static_cast<double>(n);
    }
  }
  // Weighted normal equations of y - mean ~ a sin + b cos (+ c).
  const int terms = fit_offset ? 3 : 2;
  Matrix a{};
  const double omega = 2 * M_PI * frequency;
  for (std::size_t j = 0; j < n; ++j) {
    const double phase = omega * series.t[j];
    const std::array<double, max_terms> row{std::sin(phase), std::cos(phase), 1.0};
    const double value = series.y[j] - mean;
    for (int r = 0; r < terms; ++r) {
      for (int c = 0; c < terms; ++c) a[r][c] += weight[j] * row[r] * row[c];
      a[r][terms] += weight[j] * row[r] * value;
    }
  }
  std::array<double, max_terms> x{};
  if (!solve(a, terms, x)) return SinusoidFit{NAN, NAN, NAN};
  // a sin + b cos = A sin(w t + phase) with A cos(phase) = a, A sin(phase) = b.
  return SinusoidFit{std::hypot(x[0], x[1]), std::atan2(x[1], x[0]), mean + (fit_offset ? x[2] : 0.0)};
}

SinusoidFit fit_sinusoid(const ExecSpace&, const Series& series, double frequency, const Options& options) {
  return fit_sinusoid(series, frequency, options);
}

}  // namespace portasolve::lombscargle
