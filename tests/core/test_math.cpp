// The math compatibility header, evaluated in kernels on the default execution
// space, against the host's std:: functions in double.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/math.hpp"
#include "core/spaces.hpp"

namespace {

using portasolve::ExecSpace;
using portasolve::View1D;
using portasolve::View2D;

enum Function { kSin, kCos, kTan, kExp, kLog, kSqrt, kAtan2, kHypot, kSinOfSincos, kCosOfSincos, kCount };

template <class T>
struct EvaluateMath {
  View1D<const T> x, y;
  View2D<T> out;

  KOKKOS_INLINE_FUNCTION void operator()(const int i) const {
    namespace m = portasolve::math;
    out(kSin, i) = m::sin(x(i));
    out(kCos, i) = m::cos(x(i));
    out(kTan, i) = m::tan(x(i));
    out(kExp, i) = m::exp(x(i) / T(8));
    out(kLog, i) = m::log(m::fabs(x(i)) + T(1e-3));
    out(kSqrt, i) = m::sqrt(m::fabs(x(i)));
    out(kAtan2, i) = m::atan2(y(i), x(i));
    out(kHypot, i) = m::hypot(x(i), y(i));
    T s, c;
    m::sincos(x(i), s, c);
    out(kSinOfSincos, i) = s;
    out(kCosOfSincos, i) = c;
  }
};

double reference(int f, double x, double y) {
  switch (f) {
    case kSin:
    case kSinOfSincos:
      return std::sin(x);
    case kCos:
    case kCosOfSincos:
      return std::cos(x);
    case kTan:
      return std::tan(x);
    case kExp:
      return std::exp(x / 8);
    case kLog:
      return std::log(std::fabs(x) + 1e-3);
    case kSqrt:
      return std::sqrt(std::fabs(x));
    case kAtan2:
      return std::atan2(y, x);
    case kHypot:
      return std::hypot(x, y);
  }
  return std::nan("");
}

// Largest error over all inputs, relative to max(1, |reference|), per function.
template <class T>
void check_against_std(double tolerance) {
  const int n = 4096;
  std::mt19937 rng(20261121);
  std::uniform_real_distribution<double> dist(-40.0, 40.0);
  View1D<T> x("x", n), y("y", n);
  auto x_host = Kokkos::create_mirror_view(x);
  auto y_host = Kokkos::create_mirror_view(y);
  for (int i = 0; i < n; ++i) {
    x_host(i) = static_cast<T>(dist(rng));
    y_host(i) = static_cast<T>(dist(rng));
  }
  Kokkos::deep_copy(x, x_host);
  Kokkos::deep_copy(y, y_host);
  View2D<T> out("out", kCount, n);
  Kokkos::deep_copy(out, std::nan(""));
  Kokkos::parallel_for("test_math", Kokkos::RangePolicy<ExecSpace>(0, n), EvaluateMath<T>{x, y, out});
  auto out_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  for (int f = 0; f < kCount; ++f) {
    double worst = 0.0;
    for (int i = 0; i < n; ++i) {
      const double ref = reference(f, x_host(i), y_host(i));
      const double err = std::fabs(out_host(f, i) - ref) / std::fmax(1.0, std::fabs(ref));
      ASSERT_FALSE(std::isnan(err)) << "function " << f << " at x=" << x_host(i);
      worst = std::fmax(worst, err);
    }
    EXPECT_LE(worst, tolerance) << "function " << f;
  }
}

TEST(Math, DoubleMatchesStd) { check_against_std<double>(1e-14); }

// Inputs are rounded to float before the reference sees them, so this is the
// accuracy of the float functions themselves (a few ulp).
TEST(Math, FloatMatchesStd) { check_against_std<float>(4e-6); }

TEST(Math, Constants) {
  EXPECT_EQ(portasolve::math::pi<double>(), M_PI);
  EXPECT_EQ(portasolve::math::two_pi<double>(), 2 * M_PI);
  EXPECT_EQ(portasolve::math::pi<float>(), static_cast<float>(M_PI));
}

struct Classify {
  View1D<const double> x;
  View1D<int> flags;
  KOKKOS_INLINE_FUNCTION void operator()(const int i) const {
    namespace m = portasolve::math;
    flags(i) = (m::isfinite(x(i)) ? 1 : 0) | (m::isnan(x(i)) ? 2 : 0) | (m::isinf(x(i)) ? 4 : 0);
  }
};

TEST(Math, ClassifiesNonFiniteOnDevice) {
  View1D<double> x("x", 4);
  auto x_host = Kokkos::create_mirror_view(x);
  x_host(0) = 1.5;
  x_host(1) = std::nan("");
  x_host(2) = INFINITY;
  x_host(3) = -INFINITY;
  Kokkos::deep_copy(x, x_host);
  View1D<int> flags("flags", 4);
  Kokkos::parallel_for("classify", Kokkos::RangePolicy<ExecSpace>(0, 4), Classify{x, flags});
  auto flags_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), flags);
  EXPECT_EQ(flags_host(0), 1);
  EXPECT_EQ(flags_host(1), 2);
  EXPECT_EQ(flags_host(2), 4);
  EXPECT_EQ(flags_host(3), 4);
}

}  // namespace
