// OwnedInstance, ExecInterval and PinnedAllocator (core/exec_instance.hpp):
// work on two owned instances gives the values a host loop gives, an
// interval brackets the work queued between its ends, and page-locked
// vectors round-trip through device copies on an instance.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "core/exec_instance.hpp"
#include "core/spaces.hpp"

namespace {

using portasolve::ExecInterval;
using portasolve::ExecSpace;
using portasolve::OwnedInstance;
using portasolve::PinnedAllocator;
using portasolve::View1D;

// a(i) = scale * i + shift.
struct Ramp {
  View1D<double> a;
  double scale, shift;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const { a(i) = scale * static_cast<double>(i) + shift; }
};

TEST(OwnedInstance, TwoInstancesComputeWhatAHostLoopComputes) {
  constexpr std::int64_t n = 1 << 18;
  const OwnedInstance one, two;
  const View1D<double> a("a", n), b("b", n);
  std::vector<double, PinnedAllocator<double>> host_a(n, -1.0), host_b(n, -1.0);
  ExecInterval interval_a, interval_b;
  interval_a.start(one.exec());
  Kokkos::parallel_for("ramp_a", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(one.exec(), 0, n),
                       Ramp{a, 3.0, 1.0});
  interval_a.stop(one.exec());
  interval_b.start(two.exec());
  Kokkos::parallel_for("ramp_b", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(two.exec(), 0, n),
                       Ramp{b, -2.0, 0.5});
  interval_b.stop(two.exec());
  using Host = Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  Kokkos::deep_copy(one.exec(), Host(host_a.data(), n), a);
  Kokkos::deep_copy(two.exec(), Host(host_b.data(), n), b);
  one.exec().fence();
  two.exec().fence();
  for (std::int64_t i = 0; i < n; ++i) {
    ASSERT_EQ(host_a[i], 3.0 * static_cast<double>(i) + 1.0) << i;
    ASSERT_EQ(host_b[i], -2.0 * static_cast<double>(i) + 0.5) << i;
  }
  // Each interval covers its launch only: finite, not negative.
  for (const ExecInterval* interval : {&interval_a, &interval_b}) {
    EXPECT_TRUE(std::isfinite(interval->seconds()));
    EXPECT_GE(interval->seconds(), 0.0);
  }
}

TEST(OwnedInstance, PinnedVectorsRoundTripThroughTheDevice) {
  for (const std::size_t n : {std::size_t{1}, std::size_t{1000}, std::size_t{1} << 20}) {
    const OwnedInstance instance;
    std::vector<std::int64_t, PinnedAllocator<std::int64_t>> source(n), back(n, -1);
    for (std::size_t i = 0; i < n; ++i) source[i] = static_cast<std::int64_t>(i * i % 1000003);
    const View1D<std::int64_t> device("device", n);
    using Host = Kokkos::View<std::int64_t*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
    Kokkos::deep_copy(instance.exec(), device, Host(source.data(), n));
    Kokkos::deep_copy(instance.exec(), Host(back.data(), n), device);
    instance.exec().fence();
    EXPECT_EQ(back, source) << n;
  }
  // An empty request allocates nothing and frees nothing.
  EXPECT_EQ(portasolve::allocate_pinned(0), nullptr);
  portasolve::free_pinned(nullptr);
}

}  // namespace
