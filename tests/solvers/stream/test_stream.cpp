// Each STREAM kernel on random data against a plain host loop: lengths with
// and without a tail after the last 16-byte pack, and arrays that start off
// a pack boundary (those take one element per thread throughout).
#include <gtest/gtest.h>

#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "solvers/stream/stream.hpp"

namespace {

namespace stream = portasolve::stream;

template <class T>
void check_operation(stream::Operation operation, const std::size_t n, const std::size_t offset) {
  SCOPED_TRACE("n = " + std::to_string(n) + ", offset " + std::to_string(offset));
  std::mt19937 rng(7 + static_cast<int>(operation) + static_cast<int>(n));
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  std::vector<T> a(n), b(n), c(n);
  for (std::size_t i = 0; i < n; ++i) a[i] = T(dist(rng)), b[i] = T(dist(rng)), c[i] = T(dist(rng));
  const T s = T(0.7);

  auto arrays = stream::allocate<T>(n + offset);
  const auto range = std::make_pair(offset, n + offset);
  arrays = stream::Arrays<T>{Kokkos::subview(arrays.a, range), Kokkos::subview(arrays.b, range),
                             Kokkos::subview(arrays.c, range)};
  EXPECT_EQ(stream::pack_aligned(arrays), offset * sizeof(T) % stream::pack_bytes == 0);
  const auto upload = [](const portasolve::View1D<T>& view, const std::vector<T>& values) {
    auto host = Kokkos::create_mirror_view(view);
    for (std::size_t i = 0; i < values.size(); ++i) host(i) = values[i];
    Kokkos::deep_copy(view, host);
  };
  upload(arrays.a, a);
  upload(arrays.b, b);
  upload(arrays.c, c);
  stream::apply(operation, arrays, s);

  for (std::size_t i = 0; i < n; ++i) {
    switch (operation) {
      case stream::Operation::copy:
      case stream::Operation::deep_copy:
        c[i] = a[i];
        break;
      case stream::Operation::scale:
        b[i] = s * c[i];
        break;
      case stream::Operation::add:
        c[i] = a[i] + b[i];
        break;
      case stream::Operation::triad:
        a[i] = b[i] + s * c[i];
        break;
    }
  }
  const auto a_out = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), arrays.a);
  const auto b_out = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), arrays.b);
  const auto c_out = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), arrays.c);
  // A fused multiply-add on the device may round once where the host rounds twice.
  const T tolerance = 4 * std::numeric_limits<T>::epsilon();
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_NEAR(a_out(i), a[i], tolerance) << "a at " << i;
    ASSERT_NEAR(b_out(i), b[i], tolerance) << "b at " << i;
    ASSERT_NEAR(c_out(i), c[i], tolerance) << "c at " << i;
  }
}

template <class T>
void check_every_operation() {
  for (const auto& name : stream::operation_names())
    for (const std::size_t n : {1, 2, 3, 4, 5, 8, 10007, 65536})
      for (const std::size_t offset : {0, 1}) check_operation<T>(stream::operation_from_name(name), n, offset);
}

TEST(Stream, KernelsMatchHostLoopsDouble) { check_every_operation<double>(); }

TEST(Stream, KernelsMatchHostLoopsFloat) { check_every_operation<float>(); }

TEST(Stream, BytesMovedCountsReadsAndWrites) {
  EXPECT_EQ(stream::bytes_moved(stream::Operation::copy, 1000, 8), 16000u);
  EXPECT_EQ(stream::bytes_moved(stream::Operation::scale, 1000, 4), 8000u);
  EXPECT_EQ(stream::bytes_moved(stream::Operation::add, 1000, 8), 24000u);
  EXPECT_EQ(stream::bytes_moved(stream::Operation::triad, 10, 4), 120u);
  EXPECT_EQ(stream::bytes_moved(stream::Operation::deep_copy, 10, 8), 160u);
  EXPECT_THROW(stream::operation_from_name("tirad"), std::invalid_argument);
}

}  // namespace
