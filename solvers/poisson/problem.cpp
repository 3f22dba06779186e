#include "solvers/poisson/problem.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/errors.hpp"
#include "core/interrupt.hpp"
#include "core/math.hpp"
#include "solvers/poisson/detail/whole_grid.hpp"

namespace portasolve::poisson {

using namespace detail;

double laplacian(const HostGrid& x, std::size_t i, std::size_t j) {
  return x(i - 1, j) + x(i + 1, j) + x(i, j - 1) + x(i, j + 1) - 4 * x(i, j);
}

void check_finite(const HostGrid& grid, const std::string& what) {
  for (std::size_t k = 0; k < grid.values.size(); ++k)
    if (!std::isfinite(grid.values[k]))
      throw InputError(what + ": entry (" + std::to_string(k / grid.cols) + ", " + std::to_string(k % grid.cols) +
                       ") is " + std::to_string(grid.values[k]) + "; every value must be finite");
}

namespace {

void require_interior(std::size_t rows, std::size_t cols, const char* what) {
  if (rows < 3 || cols < 3)
    throw InputError(std::string(what) + " is " + std::to_string(rows) + "x" + std::to_string(cols) +
                     ": a Poisson grid needs at least 3x3 points (a boundary ring around an interior)");
}

Problem with_zero_interior(HostGrid rhs, const HostGrid& exact, std::string description) {
  HostGrid start = exact;
  for (std::size_t i = 1; i + 1 < start.rows; ++i)
    for (std::size_t j = 1; j + 1 < start.cols; ++j) start(i, j) = 0;
  return Problem{std::move(rhs), std::move(start), exact, std::move(description)};
}

}  // namespace

Problem reconstruction_problem(const HostGrid& image) {
  require_interior(image.rows, image.cols, "the image");
  check_finite(image, "the image");
  HostGrid rhs(image.rows, image.cols);
  for (std::size_t i = 1; i + 1 < image.rows; ++i) {
    throw_if_interrupted();  // seconds on large grids: Ctrl-C acts within a row
    for (std::size_t j = 1; j + 1 < image.cols; ++j) rhs(i, j) = laplacian(image, i, j);
  }
  return with_zero_interior(std::move(rhs), image, "B = discrete Laplacian of an image; boundary = its outer ring");
}

Problem whole_grid_reconstruction_problem(const HostGrid& image, Boundary boundary) {
  require_interior(image.rows, image.cols, "the image");
  check_finite(image, "the image");
  const bool periodic = boundary == Boundary::periodic;
  const int rows = static_cast<int>(image.rows), cols = static_cast<int>(image.cols);
  HostGrid rhs(image.rows, image.cols), exact(image.rows, image.cols);
  double weighted_sum = 0, weights = 0;
  for (int i = 0; i < rows; ++i) {
    throw_if_interrupted();
    for (int j = 0; j < cols; ++j) {
      rhs(i, j) = image(neighbour(i - 1, rows, periodic), j) + image(neighbour(i + 1, rows, periodic), j) +
                  image(i, neighbour(j - 1, cols, periodic)) + image(i, neighbour(j + 1, cols, periodic)) -
                  4 * image(i, j);
      const double w = mean_weight(i, j, rows, cols, periodic);
      weighted_sum += w * image(i, j);
      weights += w;
    }
  }
  const double mean = weighted_sum / weights;
  for (std::size_t k = 0; k < exact.values.size(); ++k) exact.values[k] = image.values[k] - mean;
  Problem problem;
  problem.rhs = std::move(rhs);
  problem.start = HostGrid(rows, cols);
  problem.exact = std::move(exact);
  problem.description = std::string("B = discrete Laplacian of an image on the whole grid, ") +
                        (periodic ? "periodic" : "neumann (mirrored edges)") + "; solution = the image minus its mean";
  return problem;
}

double manufactured_solution(double x, double y) {
  const double pi = math::pi<double>();
  return std::sin(pi * x) * std::sin(2 * pi * y) + x * x - y / 2 + x * y;
}

Problem manufactured_problem(std::size_t rows, std::size_t cols) { return manufactured_problem(rows, cols, {}); }

Problem manufactured_problem(std::size_t rows, std::size_t cols, GridWindow window) {
  require_interior(rows, cols, "the manufactured grid");
  if (window.rows == 0 && window.cols == 0) window = GridWindow{0, rows, 0, cols};
  if (window.first_row + window.rows > rows || window.first_col + window.cols > cols)
    throw std::invalid_argument("manufactured_problem: the window reaches past the " + std::to_string(rows) + "x" +
                                std::to_string(cols) + " grid");
  const double h = 1.0 / static_cast<double>(std::max(rows, cols) - 1);
  const double pi = math::pi<double>();
  HostGrid exact(window.rows, window.cols), rhs(window.rows, window.cols);
  for (std::size_t wi = 0; wi < window.rows; ++wi) {
    throw_if_interrupted();
    const std::size_t i = window.first_row + wi;
    for (std::size_t wj = 0; wj < window.cols; ++wj) {
      const std::size_t j = window.first_col + wj;
      const double x = static_cast<double>(j) * h, y = static_cast<double>(i) * h;
      exact(wi, wj) = manufactured_solution(x, y);
      const double continuous_laplacian = -5 * pi * pi * std::sin(pi * x) * std::sin(2 * pi * y) + 2;
      rhs(wi, wj) = h * h * continuous_laplacian;
    }
  }
  return with_zero_interior(std::move(rhs), exact,
                            "manufactured u = sin(pi x) sin(2 pi y) + x^2 - y/2 + x y, h = 1/(max(rows, cols) - 1)");
}

}  // namespace portasolve::poisson
