// copy_grid between strided 2-D subviews, checked point by point on the host.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <utility>

#include "core/grid_range.hpp"

namespace {

using portasolve::copy_grid;
using Grid = Kokkos::View<double**, Kokkos::LayoutRight, portasolve::MemSpace>;

double value_at(int i, int j) { return 1000.0 * i + j + 0.25; }

TEST(GridRange, CopyGridCopiesOneSubviewIntoAnotherAndNothingElse) {
  Grid source("source", 37, 53), destination("destination", 41, 60);
  auto host_source = Kokkos::create_mirror_view(source);
  for (int i = 0; i < 37; ++i)
    for (int j = 0; j < 53; ++j) host_source(i, j) = value_at(i, j);
  Kokkos::deep_copy(source, host_source);
  Kokkos::deep_copy(destination, -1.0);
  // source rows 3..32, columns 5..49 to destination rows 7..36, columns 1..45
  copy_grid("copy_grid_test", Kokkos::subview(destination, std::make_pair(7, 37), std::make_pair(1, 46)),
            Kokkos::subview(source, std::make_pair(3, 33), std::make_pair(5, 50)));
  const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), destination);
  for (int i = 0; i < 41; ++i)
    for (int j = 0; j < 60; ++j) {
      const bool inside = i >= 7 && i < 37 && j >= 1 && j < 46;
      ASSERT_EQ(host(i, j), inside ? value_at(i - 4, j + 4) : -1.0) << i << "," << j;
    }
}

TEST(GridRange, CopyGridRefusesUnequalExtents) {
  Grid a("a", 4, 5), b("b", 5, 4);
  try {
    copy_grid("copy_grid_test", a, b);
    FAIL() << "no error";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("between 5x4 and 4x5"), std::string::npos) << error.what();
  }
}

}  // namespace
