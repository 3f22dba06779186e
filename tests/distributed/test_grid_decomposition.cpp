// Block splits, process grids and halo exchange, checked against the global
// index arithmetic they must reproduce, on however many ranks mpirun gave.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <utility>
#include <vector>

#include "distributed/grid_decomposition.hpp"
#include "distributed/halo_exchange.hpp"
#include "distributed/mpi_session.hpp"

namespace pd = portasolve::distributed;

namespace {

int world_size() {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

// A value no two points share.
double label(std::int64_t i, std::int64_t j) { return 1000.0 * static_cast<double>(i) + static_cast<double>(j); }

}  // namespace

TEST(BlockSpan, CoversTheExtentWithPartsDifferingByAtMostOne) {
  for (std::int64_t extent : {1, 2, 7, 10, 11, 1000})
    for (int parts = 1; parts <= std::min<std::int64_t>(extent, 9); ++parts) {
      std::int64_t next = 0, smallest = extent, largest = 0;
      for (int p = 0; p < parts; ++p) {
        const pd::Span span = pd::block_span(extent, parts, p);
        EXPECT_EQ(span.first, next) << extent << " " << parts << " " << p;
        next += span.count;
        smallest = std::min(smallest, span.count);
        largest = std::max(largest, span.count);
      }
      EXPECT_EQ(next, extent);
      EXPECT_LE(largest - smallest, 1);
      EXPECT_GE(smallest, 1);
    }
}

TEST(ProcessGrid, PrefersShortEdgesAndFitsThinGrids) {
  EXPECT_EQ(pd::process_grid(4, 100, 100), (std::array<int, 2>{2, 2}));
  EXPECT_EQ(pd::process_grid(4, 1000, 1), (std::array<int, 2>{4, 1}));  // one column: split the rows
  EXPECT_EQ(pd::process_grid(3, 1, 50), (std::array<int, 2>{1, 3}));
  EXPECT_EQ(pd::process_grid(2, 400, 100), (std::array<int, 2>{2, 1}));  // cut across the long side
  EXPECT_EQ(pd::process_grid(1, 5, 5), (std::array<int, 2>{1, 1}));
  EXPECT_THROW(pd::process_grid(4, 1, 3), std::invalid_argument);
  EXPECT_THROW(pd::process_grid(5, 2, 2), std::invalid_argument);
}

TEST(GridDecomposition, BlocksTileTheInteriorAndGatherBack) {
  for (auto shape : {std::array<std::int64_t, 2>{23, 17}, {6, 40}, {40, 3}}) {
    if (world_size() > (shape[0] - 2) * (shape[1] - 2)) continue;
    const std::int64_t rows = shape[0], cols = shape[1];
    pd::GridDecomposition grid(MPI_COMM_WORLD, rows, cols);
    std::vector<double> global(rows * cols);
    for (std::int64_t i = 0; i < rows; ++i)
      for (std::int64_t j = 0; j < cols; ++j) global[i * cols + j] = label(i, j);
    // The block with its ring holds the global values at the shifted indices.
    const std::vector<double> block = grid.local_block(global.data(), 1);
    const std::int64_t local_cols = grid.cols_owned().count + 2;
    for (std::int64_t i = 0; i < grid.rows_owned().count + 2; ++i)
      for (std::int64_t j = 0; j < local_cols; ++j)
        ASSERT_EQ(block[i * local_cols + j], label(grid.rows_owned().first - 1 + i, grid.cols_owned().first - 1 + j));
    // Owned points gathered into a grid whose interior was cleared rebuild it.
    std::vector<double> owned;
    for (std::int64_t i = 1; i <= grid.rows_owned().count; ++i)
      for (std::int64_t j = 1; j <= grid.cols_owned().count; ++j) owned.push_back(block[i * local_cols + j]);
    std::vector<double> rebuilt = global;
    for (std::int64_t i = 1; i + 1 < rows; ++i)
      for (std::int64_t j = 1; j + 1 < cols; ++j) rebuilt[i * cols + j] = -1;
    grid.all_gather_owned(owned, rebuilt.data());
    EXPECT_EQ(rebuilt, global) << rows << "x" << cols;
  }
}

template <class T>
class HaloExchangeTest : public ::testing::Test {};
using HaloTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(HaloExchangeTest, HaloTypes);

TYPED_TEST(HaloExchangeTest, RingFacingNeighboursGetsTheirEdgesAndTheGridEdgeIsKept) {
  using T = TypeParam;
  const std::int64_t rows = 19, cols = 14;
  pd::GridDecomposition grid(MPI_COMM_WORLD, rows, cols);
  const std::int64_t local_rows = grid.rows_owned().count + 2, local_cols = grid.cols_owned().count + 2;
  // Owned points labelled, the ring set to a marker the exchange must replace
  // where it faces a rank and keep where it is the grid's edge.
  constexpr T marker = T(-7);
  portasolve::View2D<T> x("x", local_rows, local_cols);
  auto host = Kokkos::create_mirror_view(x);
  for (std::int64_t i = 0; i < local_rows; ++i)
    for (std::int64_t j = 0; j < local_cols; ++j) {
      const bool ring = i == 0 || j == 0 || i == local_rows - 1 || j == local_cols - 1;
      host(i, j) = ring ? marker : T(label(grid.rows_owned().first - 1 + i, grid.cols_owned().first - 1 + j));
    }
  Kokkos::deep_copy(x, host);
  pd::HaloExchange<T> halo(grid, 1);
  halo.exchange(x);
  Kokkos::deep_copy(host, x);
  const auto expect_side = [&](bool neighbour, std::int64_t i, std::int64_t j) {
    const T expected = neighbour ? T(label(grid.rows_owned().first - 1 + i, grid.cols_owned().first - 1 + j)) : marker;
    EXPECT_EQ(host(i, j), expected) << "local (" << i << ", " << j << ") on rank " << grid.rank();
  };
  for (std::int64_t j = 1; j + 1 < local_cols; ++j) {
    expect_side(grid.north() != MPI_PROC_NULL, 0, j);
    expect_side(grid.south() != MPI_PROC_NULL, local_rows - 1, j);
  }
  for (std::int64_t i = 1; i + 1 < local_rows; ++i) {
    expect_side(grid.west() != MPI_PROC_NULL, i, 0);
    expect_side(grid.east() != MPI_PROC_NULL, i, local_cols - 1);
  }
  EXPECT_EQ(halo.exchanges(), 1);
}

// Rounds one after another, each with new values: every round's ring holds
// that round's neighbour points (device-to-device links alternate two
// receive buffers by round; a round read from the wrong one shows here).
TYPED_TEST(HaloExchangeTest, EachOfSeveralExchangesBringsItsOwnRound) {
  using T = TypeParam;
  pd::GridDecomposition grid(MPI_COMM_WORLD, 23, 17);
  const std::int64_t local_rows = grid.rows_owned().count + 2, local_cols = grid.cols_owned().count + 2;
  const auto value = [&](std::int64_t i, std::int64_t j, int round) {
    return T(label(grid.rows_owned().first - 1 + i, grid.cols_owned().first - 1 + j) + 100000 * round);
  };
  portasolve::View2D<T> x("x", local_rows, local_cols);
  auto host = Kokkos::create_mirror_view(x);
  pd::HaloExchange<T> halo(grid, 1);
  for (int round = 0; round < 5; ++round) {
    for (std::int64_t i = 0; i < local_rows; ++i)
      for (std::int64_t j = 0; j < local_cols; ++j) {
        const bool ring = i == 0 || j == 0 || i == local_rows - 1 || j == local_cols - 1;
        host(i, j) = ring ? T(-7) : value(i, j, round);
      }
    Kokkos::deep_copy(x, host);
    halo.exchange(x);
    Kokkos::deep_copy(host, x);
    for (std::int64_t j = 1; j + 1 < local_cols; ++j) {
      if (grid.north() != MPI_PROC_NULL) EXPECT_EQ(host(0, j), value(0, j, round)) << "round " << round;
      if (grid.south() != MPI_PROC_NULL)
        EXPECT_EQ(host(local_rows - 1, j), value(local_rows - 1, j, round)) << "round " << round;
    }
    for (std::int64_t i = 1; i + 1 < local_rows; ++i) {
      if (grid.west() != MPI_PROC_NULL) EXPECT_EQ(host(i, 0), value(i, 0, round)) << "round " << round;
      if (grid.east() != MPI_PROC_NULL)
        EXPECT_EQ(host(i, local_cols - 1), value(i, local_cols - 1, round)) << "round " << round;
    }
  }
  EXPECT_EQ(halo.exchanges(), 5);
  const pd::HaloTransport transport = halo.transport();
  if (world_size() > 1) {
    EXPECT_NE(transport, pd::HaloTransport::no_neighbours);
    EXPECT_NE(pd::halo_transport_name(transport), "");
  }
  ::testing::Test::RecordProperty("halo_transport", pd::halo_transport_name(transport));
}

// Two exchanges of one solver (across, then down) report together.
// Multigrid's coarse levels over the same ranks: fine point 2c becomes
// coarse point c, so each rank owns the coarse points of its fine ones,
// the coarse blocks tile the coarse interior (1 .. n / 2), the process grid
// and neighbours stay, and a one-row block may own none.
TEST(GridDecomposition, CoarsenedKeepsEachRankOnTheCoarsePointsOfItsFinePoints) {
  for (const auto& [rows, cols] : {std::pair<std::int64_t, std::int64_t>{37, 53}, {6, 40}, {66, 9}, {3, 30}}) {
    if (world_size() > (rows - 2) * (cols - 2)) continue;
    const pd::GridDecomposition fine(MPI_COMM_WORLD, rows, cols);
    for (const auto& [down, across] : {std::pair<bool, bool>{true, true}, {true, false}, {false, true}}) {
      if ((down && rows - 2 < 2) || (across && cols - 2 < 2)) continue;
      const auto coarse = fine.coarsened(down, across);
      EXPECT_EQ(coarse->global_rows(), down ? (rows - 2) / 2 + 2 : rows);
      EXPECT_EQ(coarse->global_cols(), across ? (cols - 2) / 2 + 2 : cols);
      EXPECT_EQ(coarse->dims(), fine.dims());
      EXPECT_EQ(coarse->rank(), fine.rank());
      EXPECT_EQ(coarse->north(), fine.north());
      EXPECT_EQ(coarse->east(), fine.east());
      std::int64_t owned_rows = 0, owned_cols = 0, thinnest_rows = coarse->global_rows();
      for (int r = 0; r < fine.size(); ++r) {
        int coords[2];
        MPI_Cart_coords(fine.comm(), r, 2, coords);
        const pd::Span f = fine.rows_owned_by(r), c = coarse->rows_owned_by(r);
        // Coarse row k is this rank's exactly when its fine row is.
        for (std::int64_t k = 1; k + 1 < coarse->global_rows(); ++k) {
          const std::int64_t fine_row = down ? 2 * k : k;
          EXPECT_EQ(k >= c.first && k < c.first + c.count, fine_row >= f.first && fine_row < f.first + f.count)
              << rows << "x" << cols << " coarse row " << k << " rank " << r;
        }
        if (coords[1] == 0) owned_rows += c.count, thinnest_rows = std::min(thinnest_rows, c.count);
        if (coords[0] == 0) owned_cols += coarse->cols_owned_by(r).count;
      }
      EXPECT_EQ(owned_rows, coarse->global_rows() - 2);
      EXPECT_EQ(owned_cols, coarse->global_cols() - 2);
      EXPECT_EQ(coarse->thinnest_block(0), thinnest_rows);
    }
  }
}

TEST(HaloTransport, CombinedNamesWhatTravelledOverBothExchanges) {
  using pd::HaloTransport;
  EXPECT_EQ(pd::combined(HaloTransport::no_neighbours, HaloTransport::staged), HaloTransport::staged);
  EXPECT_EQ(pd::combined(HaloTransport::peer_copies, HaloTransport::no_neighbours), HaloTransport::peer_copies);
  EXPECT_EQ(pd::combined(HaloTransport::peer_copies, HaloTransport::peer_copies), HaloTransport::peer_copies);
  EXPECT_EQ(pd::combined(HaloTransport::staged, HaloTransport::peer_copies), HaloTransport::peer_and_staged);
  EXPECT_EQ(pd::combined(HaloTransport::peer_copies, HaloTransport::peer_and_staged), HaloTransport::peer_and_staged);
  EXPECT_EQ(pd::halo_transport_name(HaloTransport::staged), "staged through host buffers");
  EXPECT_EQ(pd::halo_transport_name(HaloTransport::peer_copies), "device to device (CUDA IPC)");
}

TEST(OrderedSum, SameBitsOnEveryRankAndEqualToTheSumInRankOrder) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const auto value = [](int r) { return 0.1 * (r + 1) + 1e-17 * r; };
  double expected = 0;
  for (int r = 0; r < world_size(); ++r) expected += value(r);
  const double sum = pd::ordered_sum(value(rank), MPI_COMM_WORLD);
  EXPECT_EQ(sum, expected);
  double lowest = sum, highest = sum;
  MPI_Allreduce(MPI_IN_PLACE, &lowest, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &highest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  EXPECT_EQ(lowest, highest);
}
