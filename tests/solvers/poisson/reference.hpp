#pragma once
// Plain float64 host references for the Poisson tests.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <random>
#include <string>

#include "solvers/poisson/problem.hpp"
#include "solvers/poisson/solver.hpp"

namespace portasolve::poisson::testing {

// Sets an environment variable for one scope and restores what was there.
class ScopedEnvironment {
 public:
  ScopedEnvironment(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) previous_ = std::string(old);
    setenv(name, value, 1);
  }
  ~ScopedEnvironment() {
    if (previous_)
      setenv(name_.c_str(), previous_->c_str(), 1);
    else
      unsetenv(name_.c_str());
  }
  ScopedEnvironment(const ScopedEnvironment&) = delete;
  ScopedEnvironment& operator=(const ScopedEnvironment&) = delete;

 private:
  std::string name_;
  std::optional<std::string> previous_;
};

// The 5-point Laplacian with unit spacing, written here independently of the solver's.
inline double stencil(const HostGrid& x, std::size_t i, std::size_t j) {
  return x(i - 1, j) + x(i + 1, j) + x(i, j - 1) + x(i, j + 1) - 4 * x(i, j);
}

// `sweeps` Jacobi sweeps, X' = X + omega ((neighbours - B) / 4 - X).
inline HostGrid host_jacobi(HostGrid x, const HostGrid& rhs, std::int64_t sweeps, double omega = 1) {
  HostGrid next = x;
  for (std::int64_t s = 0; s < sweeps; ++s) {
    for (std::size_t i = 1; i + 1 < x.rows; ++i)
      for (std::size_t j = 1; j + 1 < x.cols; ++j) {
        const double jacobi = (x(i - 1, j) + x(i + 1, j) + x(i, j - 1) + x(i, j + 1) - rhs(i, j)) / 4;
        next(i, j) = x(i, j) + omega * (jacobi - x(i, j));
      }
    std::swap(x, next);
  }
  return x;
}

inline double host_residual_norm(const HostGrid& x, const HostGrid& rhs) {
  double sum = 0;
  for (std::size_t i = 1; i + 1 < x.rows; ++i)
    for (std::size_t j = 1; j + 1 < x.cols; ++j) {
      const double r = rhs(i, j) - stencil(x, i, j);
      sum += r * r;
    }
  return std::sqrt(sum);
}

// ||e||_A with A = -L on the interior and e zero on the ring.
inline double energy_norm(const HostGrid& x, const HostGrid& exact) {
  HostGrid e(x.rows, x.cols);
  for (std::size_t i = 1; i + 1 < x.rows; ++i)
    for (std::size_t j = 1; j + 1 < x.cols; ++j) e(i, j) = x(i, j) - exact(i, j);
  double sum = 0;
  for (std::size_t i = 1; i + 1 < x.rows; ++i)
    for (std::size_t j = 1; j + 1 < x.cols; ++j) sum += e(i, j) * -stencil(e, i, j);
  return std::sqrt(sum);
}

inline HostGrid random_grid(std::size_t rows, std::size_t cols, unsigned seed, double low = -1, double high = 1) {
  std::mt19937 generator(seed);
  std::uniform_real_distribution<double> uniform(low, high);
  HostGrid grid(rows, cols);
  for (double& v : grid.values) v = uniform(generator);
  return grid;
}

// A smooth image with edges: a ramp, a bright disc and a dark bar, in 0..255.
inline HostGrid test_image(std::size_t rows, std::size_t cols) {
  HostGrid image(rows, cols);
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t j = 0; j < cols; ++j) {
      const double y = double(i) / double(rows - 1), x = double(j) / double(cols - 1);
      double v = 60 + 80 * x + 40 * y;
      if ((x - 0.6) * (x - 0.6) + (y - 0.4) * (y - 0.4) < 0.06) v = 230;
      if (x > 0.15 && x < 0.3 && y > 0.2 && y < 0.9) v = 20;
      image(i, j) = v;
    }
  return image;
}

inline double max_abs_difference(const HostGrid& a, const HostGrid& b) {
  double worst = 0;
  for (std::size_t k = 0; k < a.values.size(); ++k) worst = std::max(worst, std::fabs(a.values[k] - b.values[k]));
  return worst;
}

// L X on the whole grid with the boundary's neighbour rule (options.hpp),
// written here independently of the solver's.
inline HostGrid whole_grid_laplacian(const HostGrid& x, Boundary boundary) {
  const long rows = long(x.rows), cols = long(x.cols);
  const auto at = [&](long k, long extent) {
    if (boundary == Boundary::periodic) return (k + extent) % extent;
    return k < 0 ? 1 : k == extent ? extent - 2 : k;
  };
  HostGrid result(x.rows, x.cols);
  for (long i = 0; i < rows; ++i)
    for (long j = 0; j < cols; ++j)
      result(i, j) =
          x(at(i - 1, rows), j) + x(at(i + 1, rows), j) + x(i, at(j - 1, cols)) + x(i, at(j + 1, cols)) - 4 * x(i, j);
  return result;
}

// A random solution with the boundary's zero mean (plain or trapezoid
// weighted) and B = L X for it: the solve must return X.
inline Problem whole_grid_problem(std::size_t rows, std::size_t cols, Boundary boundary, unsigned seed) {
  HostGrid exact = random_grid(rows, cols, seed);
  const auto weight = [&](std::size_t i, std::size_t j) {
    if (boundary == Boundary::periodic) return 1.0;
    return (i == 0 || i + 1 == rows ? 0.5 : 1.0) * (j == 0 || j + 1 == cols ? 0.5 : 1.0);
  };
  double sum = 0, weights = 0;
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t j = 0; j < cols; ++j) {
      sum += weight(i, j) * exact(i, j);
      weights += weight(i, j);
    }
  for (double& v : exact.values) v -= sum / weights;
  Problem problem;
  problem.rhs = whole_grid_laplacian(exact, boundary);
  problem.start = HostGrid(rows, cols);
  problem.exact = exact;
  return problem;
}

// Options for `cycles` multigrid V(2,2) cycles at most, to `tolerance`.
inline SolverOptions multigrid_options(std::int64_t cycles, double tolerance, Boundary boundary = Boundary::dirichlet) {
  SolverOptions options;
  options.method = Method::multigrid;
  options.boundary = boundary;
  options.max_iterations = cycles;
  options.tolerance = tolerance;
  return options;
}

// The worst ratio of consecutive residuals over a solve's recorded checks.
inline double worst_factor(const SolveReport& report) {
  double worst = 0;
  for (std::size_t k = 1; k < report.history.size(); ++k)
    worst = std::max(worst, report.history[k].relative_residual / report.history[k - 1].relative_residual);
  return worst;
}

}  // namespace portasolve::poisson::testing
