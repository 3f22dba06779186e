#pragma once
// Problems on the host in float64, and their copies to and from the device.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "core/interrupt.hpp"
#include "core/kokkos_compat.hpp"
#include "core/spaces.hpp"
#include "solvers/poisson/options.hpp"

namespace portasolve::poisson {

// A rows x cols grid, row-major.
struct HostGrid {
  std::size_t rows = 0, cols = 0;
  std::vector<double> values;

  HostGrid() = default;
  HostGrid(std::size_t rows_, std::size_t cols_, double fill = 0)
      : rows(rows_), cols(cols_), values(rows_ * cols_, fill) {}
  double& operator()(std::size_t i, std::size_t j) { return values[i * cols + j]; }
  double operator()(std::size_t i, std::size_t j) const { return values[i * cols + j]; }
};

struct Problem {
  HostGrid rhs;                   // B (ring unused)
  HostGrid start;                 // the boundary ring and the initial interior
  std::optional<HostGrid> exact;  // what the solve should approach, if known
  std::string description;
};

// The talk's case: B = L image on the interior, the image's ring as boundary,
// a zero interior to start from. The discrete solution is the image itself.
Problem reconstruction_problem(const HostGrid& image);

// The talk's case on the whole grid for the neumann and periodic boundaries
// (options.hpp): B = L image at every point, the neighbours beyond an edge
// given by the boundary's rule. Gradient-domain image editing rebuilds an
// image from such a B (the divergence of its gradient field, zero flux
// through the edges for neumann). The discrete solution is the image minus
// its mean (trapezoid-weighted for neumann): the solvers' zero-mean answer.
Problem whole_grid_reconstruction_problem(const HostGrid& image, Boundary boundary);

// u(x, y) = sin(pi x) sin(2 pi y) + x^2 - y/2 + x y on x = j h, y = i h with
// h = 1 / (max(rows, cols) - 1); B = h^2 (Laplacian of u), the boundary is u.
// The discrete solution differs from u by O(h^2).
Problem manufactured_problem(std::size_t rows, std::size_t cols);
// A window of that problem (over MPI ranks: a rank's block and its ring):
// rows [first_row, first_row + rows) and columns [first_col, first_col + cols)
// of the whole grid, B and the solution the whole problem's values there, the
// start u on the window's ring (the boundary where the ring is the grid's;
// over ranks the rest is the neighbours' to fill) and zero inside. An empty
// window is the whole grid.
struct GridWindow {
  std::size_t first_row = 0, rows = 0, first_col = 0, cols = 0;
};
Problem manufactured_problem(std::size_t rows, std::size_t cols, GridWindow window);
double manufactured_solution(double x, double y);

// (L X)[i,j] with unit spacing, interior points only.
double laplacian(const HostGrid& x, std::size_t i, std::size_t j);

// Throws InputError naming `what` and the first non-finite entry.
void check_finite(const HostGrid& grid, const std::string& what);

namespace detail {
template <class Host>
void fill_from(const HostGrid& grid, const Host& host) {
  for (std::size_t i = 0; i < grid.rows; ++i) {
    throw_if_interrupted();  // seconds for large grids
    for (std::size_t j = 0; j < grid.cols; ++j) host(i, j) = static_cast<typename Host::value_type>(grid(i, j));
  }
}
template <class Host>
HostGrid grid_of(const Host& host) {
  HostGrid grid(host.extent(0), host.extent(1));
  for (std::size_t i = 0; i < grid.rows; ++i)
    for (std::size_t j = 0; j < grid.cols; ++j) grid(i, j) = static_cast<double>(host(i, j));
  return grid;
}
}  // namespace detail

// A device copy of the grid in T (after a global fence, as Kokkos::deep_copy).
template <class T>
View2D<T> to_device(const HostGrid& grid, const char* label) {
  View2D<T> view(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), grid.rows, grid.cols);
  const auto host = Kokkos::create_mirror_view(view);
  detail::fill_from(grid, host);
  Kokkos::deep_copy(view, host);
  return view;
}

// The same, the upload ordered on the instance exec after its earlier work
// and finished on return (exec alone is fenced).
template <class T>
View2D<T> to_device(const ExecSpace& exec, const HostGrid& grid, const char* label) {
  View2D<T> view(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), grid.rows, grid.cols);
  const auto host = kokkos_compat::host_mirror_without_init(view);
  detail::fill_from(grid, host);
  Kokkos::deep_copy(exec, view, host);
  exec.fence();  // the host copy goes on return
  return view;
}

// A host copy of a device grid, in double (after a global fence).
template <class T>
HostGrid to_host(const View2D<T>& view) {
  return detail::grid_of(Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), view));
}

// The same, read on the instance exec after its earlier work (exec alone is
// fenced): for a solve(exec, ...)'s result.
template <class T>
HostGrid to_host(const ExecSpace& exec, const View2D<T>& view) {
  const auto host = kokkos_compat::host_mirror_without_init(view);
  Kokkos::deep_copy(exec, host, view);
  exec.fence();
  return detail::grid_of(host);
}

}  // namespace portasolve::poisson
