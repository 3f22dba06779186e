#include "solvers/lombscargle/model.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <vector>

#include "core/errors.hpp"

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

ModelFit fit_model(const Series& series, double frequency, const Options& options) {
  if (options.form != Form::generalized)
    throw OptionError("form", "the multi-term model belongs to the generalized form (astropy's nterms)");
  const std::size_t n = series.t.size();
  const int bias = options.fit_mean ? 1 : 0;
  check_options(options);  // nterms within [1, max_nterms]: the work arrays below are sized by max_nterms
  const std::size_t p = static_cast<std::size_t>(bias) + 2 * static_cast<std::size_t>(options.nterms);
  // One work allocation (a summary fits every series of a catalogue on
  // every host thread at once): the p columns of the weighted design matrix, the
  // weighted right side and the square roots of the weights (1 / dy).
  std::vector<double> storage((p + 2) * n);
  const auto column = [&storage, n](std::size_t c) { return storage.data() + c * n; };
  double* const b = column(p);
  double* const root = column(p + 1);
  for (std::size_t j = 0; j < n; ++j) root[j] = series.dy.empty() ? 1.0 : 1.0 / series.dy[j];
  double weight_sum = 0;  // also the squared norm of the weighted constant column: every column's scale
  for (std::size_t j = 0; j < n; ++j) weight_sum += root[j] * root[j];
  ModelFit fit{{}, 0.0, 0.0};
  if (options.center_data) {  // astropy's offset(): sum w y / sum w
    for (std::size_t j = 0; j < n; ++j) fit.mean += root[j] * root[j] * series.y[j];
    fit.mean /= weight_sum;
  }
  for (std::size_t j = 0; j < n; ++j) {
    if (bias) column(0)[j] = root[j];
    for (int k = 1; k <= options.nterms; ++k) {
      const double phase = 2 * M_PI * k * frequency * series.t[j];
      column(static_cast<std::size_t>(bias + 2 * (k - 1)))[j] = std::sin(phase) * root[j];
      column(static_cast<std::size_t>(bias + 2 * (k - 1) + 1))[j] = std::cos(phase) * root[j];
    }
    b[j] = (series.y[j] - fit.mean) * root[j];
  }
  // Householder QR over the columns kept: kept column c, the row-th kept,
  // becomes R's column above row `row` and its reflector from there; b becomes
  // Q^T b. A column dependent on the kept ones before it to rounding (its
  // part outside their span below dependent_fraction of its norm, as the
  // periodogram's kernel decides; or a column numerically 0 against the
  // weights, e.g. sin(2 pi k f t) with every k f t an integer) is left out:
  // its coefficient 0, the others the least-squares fit on the rest.
  constexpr double dependent_fraction = 1024 * 2.220446049250313e-16;
  std::array<double, 1 + 2 * max_nterms> diagonal{};
  std::array<std::size_t, 1 + 2 * max_nterms> pivot_row{};
  pivot_row.fill(n);  // n: left out
  std::size_t row = 0;
  for (std::size_t c = 0; c < p && row < n; ++c) {
    double* const col = column(c);
    double above = 0, below = 0;  // squares of the column's entries before `row` and from it
    for (std::size_t j = 0; j < row; ++j) above += col[j] * col[j];
    for (std::size_t j = row; j < n; ++j) below += col[j] * col[j];
    if (!(below > dependent_fraction * (above + below)) || !(above + below > dependent_fraction * weight_sum)) continue;
    const double norm = std::sqrt(below);
    const double alpha = col[row] > 0 ? -norm : norm;
    const double v_norm2 = 2 * norm * (norm + std::fabs(col[row]));  // |x - alpha e|^2
    col[row] -= alpha;
    const auto reflect = [&](double* x) {
      double dot = 0;
      for (std::size_t j = row; j < n; ++j) dot += col[j] * x[j];
      const double scale = 2 * dot / v_norm2;
      for (std::size_t j = row; j < n; ++j) x[j] -= scale * col[j];
    };
    for (std::size_t later = c + 1; later < p; ++later) reflect(column(later));
    reflect(b);
    diagonal[c] = alpha;
    pivot_row[c] = row++;
  }
  fit.parameters.assign(p, 0.0);
  for (std::size_t c = p; c-- > 0;) {
    if (pivot_row[c] == n) continue;  // left out
    double sum = b[pivot_row[c]];
    for (std::size_t later = c + 1; later < p; ++later) sum -= column(later)[pivot_row[c]] * fit.parameters[later];
    fit.parameters[c] = sum / diagonal[c];
  }
  fit.offset = fit.mean + (bias ? fit.parameters[0] : 0.0);
  return fit;
}

ModelFit fit_model(const ExecSpace&, const Series& series, double frequency, const Options& options) {
  return fit_model(series, frequency, options);
}

}  // namespace portasolve::lombscargle
