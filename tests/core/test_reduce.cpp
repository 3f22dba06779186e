// parallel_reduce on the default execution space against closed forms.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

#include "core/math.hpp"
#include "core/spaces.hpp"

namespace {

using portasolve::ExecSpace;

struct SumOfSquares {
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i, std::int64_t& sum) const { sum += i * i; }
};

TEST(Reduce, SumOfSquaresMatchesClosedForm) {
  for (const std::int64_t n : {1LL, 7LL, 1000LL, 1000003LL}) {
    std::int64_t sum = -1;
    Kokkos::parallel_reduce("sum_of_squares", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(1, n + 1),
                            SumOfSquares{}, sum);
    EXPECT_EQ(sum, n * (n + 1) * (2 * n + 1) / 6) << "n = " << n;
  }
}

// Basel series: sum_{k=1}^{n} 1/k^2 = pi^2/6 - (tail), with the tail between
// 1/(n+1) and 1/n.
template <class T>
struct BaselTerm {
  KOKKOS_INLINE_FUNCTION void operator()(const int k, T& sum) const {
    const T kk = static_cast<T>(k);
    sum += T(1) / (kk * kk);
  }
};

TEST(Reduce, BaselSeriesWithinTailBounds) {
  const int n = 1 << 20;
  double sum = 0;
  Kokkos::parallel_reduce("basel", Kokkos::RangePolicy<ExecSpace>(1, n + 1), BaselTerm<double>{}, sum);
  const double limit = portasolve::math::pi<double>() * portasolve::math::pi<double>() / 6;
  EXPECT_LT(sum, limit - 1.0 / (n + 1) + 1e-13);
  EXPECT_GT(sum, limit - 1.0 / n - 1e-13);
}

struct MaxOfSine {
  KOKKOS_INLINE_FUNCTION void operator()(const int i, double& best) const {
    const double v = portasolve::math::sin(0.001 * i);
    if (v > best) best = v;
  }
};

// sin(0.001 i) peaks at i nearest pi/2 / 0.001.
TEST(Reduce, MaxReducerFindsPeak) {
  double best = -2;
  Kokkos::parallel_reduce("max_sine", Kokkos::RangePolicy<ExecSpace>(0, 3000), MaxOfSine{}, Kokkos::Max<double>(best));
  EXPECT_DOUBLE_EQ(best, std::sin(0.001 * 1571));
}

// A 2-D reduction over an MDRange with explicit tiles (the CUDA default tile
// is tiny): sum over i, j of (i + 2 j) = n m (n - 1)/2 + n m (m - 1).
struct IndexSum2D {
  KOKKOS_INLINE_FUNCTION void operator()(const int i, const int j, std::int64_t& sum) const { sum += i + 2 * j; }
};

TEST(Reduce, MDRangeSumMatchesClosedForm) {
  const std::int64_t n = 517, m = 1031;
  Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>> policy({0, 0}, {n, m}, {4, 64});
  std::int64_t sum = 0;
  Kokkos::parallel_reduce("index_sum_2d", policy, IndexSum2D{}, sum);
  EXPECT_EQ(sum, n * m * (n - 1) / 2 + n * m * (m - 1));
}

}  // namespace
