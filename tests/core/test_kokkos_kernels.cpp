// Kokkos Kernels is built without pre-instantiated kernels: these calls are
// instantiated here, so this suite proves the dependency builds and runs on
// each backend. Checked against closed forms and a host loop.
#include <gtest/gtest.h>

#include <KokkosBlas1_axpby.hpp>
#include <KokkosBlas1_dot.hpp>
#include <KokkosBlas1_nrm2.hpp>
#include <KokkosSparse_CrsMatrix.hpp>
#include <KokkosSparse_spmv.hpp>
#include <cmath>
#include <vector>

#include "core/spaces.hpp"

namespace {

using portasolve::ExecSpace;
using portasolve::MemSpace;

template <class T>
using Vector = Kokkos::View<T*, Kokkos::LayoutLeft, MemSpace>;

template <class T>
struct FillRamp {
  Vector<T> v;
  T scale;
  KOKKOS_INLINE_FUNCTION void operator()(const int i) const { v(i) = scale * static_cast<T>(i + 1); }
};

template <class T>
Vector<T> ramp(int n, T scale) {
  Vector<T> v("ramp", n);
  Kokkos::parallel_for("fill_ramp", Kokkos::RangePolicy<ExecSpace>(0, n), FillRamp<T>{v, scale});
  return v;
}

TEST(KokkosKernels, DotNrm2AxpbyDouble) {
  const int n = 1000;
  auto x = ramp<double>(n, 1.0);  // x_i = i
  auto y = ramp<double>(n, 0.5);  // y_i = i / 2
  const double sum_sq = double(n) * (n + 1) * (2 * n + 1) / 6;
  EXPECT_DOUBLE_EQ(KokkosBlas::dot(x, y), 0.5 * sum_sq);
  EXPECT_NEAR(KokkosBlas::nrm2(x), std::sqrt(sum_sq), 1e-12 * std::sqrt(sum_sq));
  KokkosBlas::axpby(2.0, x, -4.0, y);  // y = 2x - 4y = 0
  EXPECT_EQ(KokkosBlas::nrm2(y), 0.0);
}

TEST(KokkosKernels, DotFloat) {
  const int n = 100;
  auto x = ramp<float>(n, 1.0f);
  EXPECT_FLOAT_EQ(KokkosBlas::dot(x, x), float(n) * (n + 1) * (2 * n + 1) / 6);
}

// The 1-D Laplacian tridiag(-1, 2, -1) as a CrsMatrix, applied by spmv to
// x_i = i^2 (1-based) on n points with zero boundary: interior rows give -2.
TEST(KokkosKernels, SpmvOneDimensionalLaplacian) {
  using Matrix = KokkosSparse::CrsMatrix<double, int, Kokkos::Device<ExecSpace, MemSpace>, void, int>;
  const int n = 64;
  std::vector<int> row_map_host{0};
  std::vector<int> columns_host;
  std::vector<double> values_host;
  for (int i = 0; i < n; ++i) {
    for (int j : {i - 1, i, i + 1}) {
      if (j < 0 || j >= n) continue;
      columns_host.push_back(j);
      values_host.push_back(j == i ? 2.0 : -1.0);
    }
    row_map_host.push_back(static_cast<int>(columns_host.size()));
  }
  Kokkos::View<int*, MemSpace> row_map("row_map", n + 1), columns("columns", columns_host.size());
  Kokkos::View<double*, MemSpace> values("values", values_host.size());
  Kokkos::deep_copy(row_map,
                    Kokkos::View<int*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(row_map_host.data(), n + 1));
  Kokkos::deep_copy(columns, Kokkos::View<int*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(columns_host.data(),
                                                                                            columns_host.size()));
  Kokkos::deep_copy(values, Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(values_host.data(),
                                                                                              values_host.size()));
  Matrix a("laplacian_1d", n, n, static_cast<int>(values_host.size()), values, row_map, columns);

  Vector<double> x("x", n), y("y", n);
  auto x_host = Kokkos::create_mirror_view(x);
  for (int i = 0; i < n; ++i) x_host(i) = double(i + 1) * (i + 1);
  Kokkos::deep_copy(x, x_host);
  Kokkos::deep_copy(y, std::nan(""));
  KokkosSparse::spmv("N", 1.0, a, x, 0.0, y);
  auto y_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
  for (int i = 0; i < n; ++i) {
    const double left = i > 0 ? x_host(i - 1) : 0.0;
    const double right = i + 1 < n ? x_host(i + 1) : 0.0;
    EXPECT_EQ(y_host(i), 2 * x_host(i) - left - right) << "row " << i;
  }
  EXPECT_EQ(y_host(n / 2), -2.0);
}

}  // namespace
