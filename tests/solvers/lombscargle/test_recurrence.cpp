// The recurrence's documented bound: every cos/sin it forms (exact seed and
// exact table, rounded to T, then one angle addition) is within 4 eps of the
// exact value for the same double phases, for every step r, in double; in
// float the seed's turn is itself rounded to float, pi eps more.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <type_traits>

#include "solvers/lombscargle/detail/kernels.hpp"
#include "solvers/lombscargle/periodogram.hpp"

namespace {

namespace ls = portasolve::lombscargle;
constexpr int steps = 64;  // four times what the solver uses: the bound does not grow with r

template <class T>
struct AngleAdditionSequence {
  Kokkos::View<const double*, portasolve::MemSpace> t, first, step;
  Kokkos::View<T**, Kokkos::LayoutRight, portasolve::MemSpace> cosines, sines;

  KOKKOS_INLINE_FUNCTION void operator()(const int i) const {
    T seed_cos, seed_sin;
    ls::detail::seed_cos_sin(first(i) * t(i), seed_cos, seed_sin);
    for (int r = 0; r < steps; ++r) {
      double table_sin, table_cos;
      portasolve::math::sincos_turns(static_cast<double>(r) * step(i) * t(i), table_sin, table_cos);
      ls::detail::add_angles(seed_cos, seed_sin, static_cast<T>(table_cos), static_cast<T>(table_sin), cosines(i, r),
                             sines(i, r));
    }
  }
};

long double reduced(long double turns) { return turns - std::nearbyint(turns); }

template <class T>
void check_bound() {
  const int n = 20000;
  Kokkos::View<double*, portasolve::MemSpace> t("t", n), first("first", n), step("step", n);
  auto t_host = Kokkos::create_mirror_view(t), first_host = Kokkos::create_mirror_view(first),
       step_host = Kokkos::create_mirror_view(step);
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> when(0.0, 1000.0), frequency(0.1, 10.0), spacing(1e-4, 1e-2);
  for (int i = 0; i < n; ++i) t_host(i) = when(rng), first_host(i) = frequency(rng), step_host(i) = spacing(rng);
  Kokkos::deep_copy(t, t_host);
  Kokkos::deep_copy(first, first_host);
  Kokkos::deep_copy(step, step_host);
  Kokkos::View<T**, Kokkos::LayoutRight, portasolve::MemSpace> cosines("cos", n, steps), sines("sin", n, steps);
  Kokkos::parallel_for("angle_addition_sequence", Kokkos::RangePolicy<portasolve::ExecSpace>(0, n),
                       AngleAdditionSequence<T>{t, first, step, cosines, sines});
  const auto c = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), cosines);
  const auto s = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), sines);

  const long double eps = std::numeric_limits<T>::epsilon();
  const long double two_pi = 6.283185307179586476925286766559L;
  long double worst = 0;
  for (int r = 0; r < steps; ++r) {
    for (int i = 0; i < n; ++i) {
      // The phases the kernel forms in double, each reduced before adding:
      // long double's ulp at 10^4 turns is as large as what is checked.
      const long double seed = reduced(static_cast<long double>(first_host(i) * t_host(i)));
      const long double table = reduced(static_cast<long double>(static_cast<double>(r) * step_host(i) * t_host(i)));
      const long double phase = two_pi * reduced(seed + table);
      worst = std::max({worst, std::fabs(c(i, r) - std::cos(phase)), std::fabs(s(i, r) - std::sin(phase))});
    }
  }
  const long double seed_phase = std::is_same<T, float>::value ? 3.1415926535L * eps : 0;
  EXPECT_LE(worst, 4 * eps + seed_phase);
  EXPECT_GT(worst, 0);  // the check saw rounding, so it can see more
}

TEST(Recurrence, ErrorBoundHoldsInDouble) { check_bound<double>(); }
TEST(Recurrence, ErrorBoundHoldsInFloat) { check_bound<float>(); }

}  // namespace
