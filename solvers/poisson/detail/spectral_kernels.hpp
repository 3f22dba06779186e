#pragma once
// What the spectral method's boundaries share (spectral.cpp,
// spectral_whole_grid.cpp): transposes between the transforms, which all run
// along rows, and the division by the discrete Laplacian's eigenvalues.
#include <cmath>
#include <cstdint>
#include <string>

#include "fft/fft.hpp"
#include "solvers/poisson/solver.hpp"

namespace portasolve::poisson::detail {

using SpectralRange = Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>, Kokkos::IndexType<int>>;

template <class T>
View2D<T> spectral_grid(const char* label, std::int64_t rows, std::int64_t cols) {
  return View2D<T>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), rows, cols);
}

template <class Value>
struct Transpose {
  View2D<const Value> in;
  View2D<Value> out;
  KOKKOS_INLINE_FUNCTION void operator()(const int i, const int j) const { out(j, i) = in(i, j); }
};

template <class Value>
void transpose(const ExecSpace& exec, const char* name, const View2D<Value>& in, const View2D<Value>& out) {
  Kokkos::parallel_for(name, SpectralRange(exec, {0, 0}, {int(in.extent(0)), int(in.extent(1))}),
                       Transpose<Value>{in, out});
}

// lambda_p = -4 sin^2((p + first) step), p = 0..count-1: the 1-D second
// difference's eigenvalues (2 cos(2 theta) - 2 written without the
// cancellation that loses the smooth modes), computed in double on the host
// and copied on exec, which is fenced before the host buffer goes (a
// workspace's or a whole-grid solve's setup, once).
template <class T>
View1D<T> second_difference_eigenvalues(const ExecSpace& exec, std::int64_t count, std::int64_t first, double step) {
  View1D<T> values(Kokkos::view_alloc(Kokkos::WithoutInitializing, "spectral_eigenvalues"), count);
  const auto host = Kokkos::create_mirror_view(values);
  for (std::int64_t p = 0; p < count; ++p) {
    const double s = std::sin(double(p + first) * step);
    host(p) = static_cast<T>(-4 * s * s);
  }
  Kokkos::deep_copy(exec, values, host);
  exec.fence();
  return values;
}

// coefficients(q, p) /= (row_eigenvalues(p) + column_eigenvalues(q)) scale:
// column mode q, row mode p (the transposed layout); scale undoes the
// transforms' own factors. The constant mode of neumann and periodic (sum 0)
// is set to zero: the solution of zero mean.
template <class Value, class T>
struct DivideByEigenvalues {
  View2D<Value> coefficients;
  View1D<const T> row_eigenvalues, column_eigenvalues;
  T scale;
  KOKKOS_INLINE_FUNCTION void operator()(const int q, const int p) const {
    const T eigenvalue = row_eigenvalues(p) + column_eigenvalues(q);
    coefficients(q, p) = eigenvalue == T(0) ? Value(0) : Value(coefficients(q, p) / (eigenvalue * scale));
  }
};

template <class Value, class T>
void divide_by_eigenvalues(const ExecSpace& exec, const View2D<Value>& coefficients, const View1D<T>& row_eigenvalues,
                           const View1D<T>& column_eigenvalues, double scale) {
  Kokkos::parallel_for("spectral_divide",
                       SpectralRange(exec, {0, 0}, {int(coefficients.extent(0)), int(coefficients.extent(1))}),
                       DivideByEigenvalues<Value, T>{coefficients, row_eigenvalues, column_eigenvalues, T(scale)});
}

// The whole-grid boundaries (spectral_whole_grid.cpp), on exec; they return
// with exec's work finished. Throw InputError for B that breaks the
// boundary's solvability condition.
template <class T>
void solve_neumann(const ExecSpace& exec, const View2D<T>& x, const View2D<T>& rhs, fft::Implementation fft);
template <class T>
void solve_periodic(const ExecSpace& exec, const View2D<T>& x, const View2D<T>& rhs, fft::Implementation fft);

inline fft::Implementation fft_implementation(SpectralFft choice) {
  return choice == SpectralFft::portable ? fft::Implementation::portable : fft::Implementation::library;
}

}  // namespace portasolve::poisson::detail
