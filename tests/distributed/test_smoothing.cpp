// Smoothing over MPI ranks against smooth() on the whole image, computed by
// every rank in the same test: every pixel bit for bit, for every border mode
// (wrap across ranks included), windows, passes, pixel types, uneven and thin
// splits; then the splits and arguments that must be refused.
#include <gtest/gtest.h>
#include <mpi.h>

#include <array>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "core/grid_range.hpp"
#include "distributed/grid_decomposition.hpp"
#include "solvers/smoothing/distributed.hpp"
#include "solvers/smoothing/smooth.hpp"
#include "tests/distributed/ranks.hpp"

namespace sm = portasolve::smoothing;
namespace pd = portasolve::distributed;
using pd::testing::world_size;
using portasolve::View2D;
using sm::HostImage;

namespace {

// Pseudo-random pixels over most of the type's range (the same on every rank).
template <class Pixel>
std::vector<Pixel> test_image(std::int64_t rows, std::int64_t cols, std::uint32_t seed) {
  std::vector<Pixel> image(static_cast<std::size_t>(rows * cols));
  std::uint32_t state = seed * 2654435761u + 12345u;
  for (Pixel& p : image) {
    state = state * 1664525u + 1013904223u;
    const std::uint32_t x = state >> 8;
    if constexpr (std::is_same_v<Pixel, std::uint8_t>)
      p = static_cast<Pixel>(x % 256);
    else if constexpr (std::is_integral_v<Pixel>)
      p = static_cast<Pixel>(static_cast<std::int64_t>(x % 2000001) - 1000000);
    else
      p = static_cast<Pixel>(static_cast<double>(x) / 16777216.0 * 200.0 - 50.0);
  }
  return image;
}

template <class Pixel>
std::vector<Pixel> single_rank(const std::vector<Pixel>& image, std::int64_t rows, std::int64_t cols,
                               const sm::SmoothingOptions& options) {
  const HostImage<Pixel> host(image.data(), rows, cols);
  View2D<Pixel> input("input", rows, cols), output("output", rows, cols);
  Kokkos::deep_copy(input, host);
  sm::smooth<Pixel>(input, output, options);
  const auto result = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), output);
  return std::vector<Pixel>(result.data(), result.data() + result.size());
}

std::string describe(const sm::SmoothingOptions& o, std::int64_t rows, std::int64_t cols, std::array<int, 2> dims) {
  return std::to_string(rows) + "x" + std::to_string(cols) + " on " + std::to_string(dims[0]) + "x" +
         std::to_string(dims[1]) + " ranks (0x0: chosen), " + sm::name_of(o.kernel) +
         " r=" + std::to_string(sm::kernel_radius(o)) + " border " + sm::name_of(o.border) + ", " +
         std::to_string(o.passes) + " passes";
}

// Smooths over the ranks and compares this rank's block, and rank 0 the
// gathered image, with the whole image smoothed on one rank.
// expected_fused > 0: the passes a round the run must have fused.
template <class Pixel>
void expect_same_as_single_rank(std::int64_t rows, std::int64_t cols, const sm::SmoothingOptions& options,
                                std::array<int, 2> dims = {0, 0}, int expected_fused = 0) {
  SCOPED_TRACE(describe(options, rows, cols, dims));
  const std::vector<Pixel> image = test_image<Pixel>(rows, cols, static_cast<std::uint32_t>(rows * 31 + cols));
  const std::vector<Pixel> expected = single_rank(image, rows, cols, options);

  const auto grid = sm::decompose_image(MPI_COMM_WORLD, rows, cols, options, dims);
  const View2D<Pixel> block = sm::block_to_device<Pixel>(*grid, HostImage<Pixel>(image.data(), rows, cols));
  const View2D<Pixel> output("output", block.extent(0), block.extent(1));
  sm::HaloStatistics halo;
  std::int64_t calls = 0;
  const sm::SmoothReport report = sm::smooth_distributed<Pixel>(
      *grid, block, output, options, [&](std::int64_t) { ++calls; }, &halo);
  EXPECT_EQ(report.passes, options.passes);
  // A call and two exchanges (along rows, then columns) a round of passes_per_launch passes.
  const std::int64_t k = std::max(1, report.passes_per_launch), rounds = (options.passes + k - 1) / k;
  EXPECT_EQ(calls, rounds);
  EXPECT_EQ(halo.exchanges, sm::kernel_radius(options) > 0 ? 2 * rounds : 0);
  if (expected_fused > 0) {
    EXPECT_EQ(report.passes_per_launch, expected_fused);
  }

  const auto mine = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), output);
  const sm::ImageBlock b = sm::image_block(*grid);
  for (std::int64_t i = 0; i < b.rows; ++i)
    for (std::int64_t j = 0; j < b.cols; ++j) {
      const std::int64_t gi = b.first_row + i, gj = b.first_col + j;
      ASSERT_EQ(mine(i, j), expected[gi * cols + gj])
          << "pixel (" << gi << ", " << gj << ") on rank " << grid->rank() << " of a " << grid->dims()[0] << "x"
          << grid->dims()[1] << " process grid";
    }
  const std::vector<Pixel> gathered = sm::gather_image<Pixel>(*grid, output, 0);
  if (grid->rank() == 0) {
    ASSERT_EQ(gathered.size(), expected.size());
    for (std::size_t k = 0; k < expected.size(); ++k)
      ASSERT_EQ(gathered[k], expected[k]) << "gathered pixel " << k / cols << ", " << k % cols;
  } else {
    EXPECT_TRUE(gathered.empty());
  }
}

sm::SmoothingOptions box(int radius, sm::Separable separable = sm::Separable::automatic) {
  sm::SmoothingOptions o;
  o.kernel = sm::KernelKind::box;
  o.radius = radius;
  o.separable = separable;
  return o;
}

sm::SmoothingOptions weighted3() {  // not symmetric: a flipped window would show
  sm::SmoothingOptions o;
  o.kernel = sm::KernelKind::weighted;
  o.weights = {1, 2, 0, 3, 5, 1, 0, 2, 4};
  o.weights_size = 3;
  return o;
}

sm::SmoothingOptions gaussian(double sigma, double truncate) {
  sm::SmoothingOptions o;
  o.kernel = sm::KernelKind::gaussian;
  o.sigma = sigma;
  o.truncate = truncate;
  return o;
}

const std::vector<sm::BorderMode> borders{sm::BorderMode::keep,   sm::BorderMode::nearest, sm::BorderMode::reflect,
                                          sm::BorderMode::mirror, sm::BorderMode::wrap,    sm::BorderMode::constant};

sm::SmoothingOptions with(sm::SmoothingOptions o, sm::BorderMode border, std::int64_t passes) {
  o.border = border;
  o.passes = passes;
  o.constant_value = 17.25;
  o.rounding = passes % 2 ? sm::Rounding::nearest : sm::Rounding::floor;
  return o;
}

// Windows of radius 1 to 6: the fixed-radius and general 2-D passes, the
// separable ones (box r >= 3, gaussian), a weights matrix.
const std::vector<sm::SmoothingOptions> windows{box(1),         box(2, sm::Separable::no), box(3), weighted3(),
                                                gaussian(1, 2), gaussian(1.5, 4)};

TEST(SmoothingOverRanks, EveryBorderAndWindowFloatOnAnUnevenImage) {
  for (const auto border : borders)
    for (const auto& window : windows)
      for (const std::int64_t passes : {1, 3}) expect_same_as_single_rank<float>(37, 23, with(window, border, passes));
}

TEST(SmoothingOverRanks, DoubleAndIntegerPixels) {
  for (const auto border : borders)
    for (const auto& window : {box(1), weighted3(), gaussian(1, 2)}) {
      expect_same_as_single_rank<double>(29, 31, with(window, border, 2));
      expect_same_as_single_rank<std::uint8_t>(29, 31, with(window, border, 3));
      expect_same_as_single_rank<std::int32_t>(29, 31, with(window, border, 2));
    }
}

// A split along rows only: 4 rows over up to 4 ranks gives ranks a single
// row (mirror needs 2 rows a block: refused at 3 and 4 ranks).
TEST(SmoothingOverRanks, ThinBlocksOfOneRow) {
  const int ranks = world_size();
  for (const auto border : borders)
    for (const auto& window : {box(1), weighted3(), gaussian(0.5, 2)}) {
      const auto o = with(window, border, 3);
      if (border == sm::BorderMode::mirror && 4 / ranks < 2) {
        EXPECT_THROW(sm::decompose_image(MPI_COMM_WORLD, 4, 61, o, {ranks, 1}), std::invalid_argument);
        continue;
      }
      expect_same_as_single_rank<float>(4, 61, o, {ranks, 1});
      expect_same_as_single_rank<std::uint8_t>(4, 61, o, {ranks, 1});
    }
}

// Splits along columns only and (at 4 ranks) both ways, wrap's corners included.
TEST(SmoothingOverRanks, ColumnAndTwoWaySplits) {
  const int ranks = world_size();
  for (const auto border : borders) {
    expect_same_as_single_rank<float>(9, 23, with(box(2, sm::Separable::no), border, 2), {1, ranks});
    expect_same_as_single_rank<double>(9, 23, with(weighted3(), border, 2), {1, ranks});
    if (ranks == 4) {
      expect_same_as_single_rank<float>(11, 9, with(box(2, sm::Separable::no), border, 3), {2, 2});
      expect_same_as_single_rank<double>(11, 9, with(weighted3(), border, 2), {2, 2});
      expect_same_as_single_rank<std::uint16_t>(11, 9, with(gaussian(1, 2), border, 2), {2, 2});
    }
  }
}

sm::SmoothingOptions fused(sm::SmoothingOptions o, int passes_per_launch) {
  o.passes_per_launch = passes_per_launch;
  return o;
}

// Fused passes over ranks: k passes a round on the block plus a ring of k r
// (the border mode applied where the block meets the image's edge, wrong
// pixels kept inside the ring elsewhere); the same bits as one process
// fusing k passes a launch, for every border, with a last round of fewer.
TEST(SmoothingOverRanks, FusedPassesOverADeepRing) {
  const int ranks = world_size();
  for (const auto border : borders) {
    expect_same_as_single_rank<float>(41, 37, fused(with(box(1), border, 9), 4), {0, 0}, 4);
    expect_same_as_single_rank<std::uint8_t>(41, 37, fused(with(box(1), border, 7), 3), {0, 0}, 3);
    expect_same_as_single_rank<double>(41, 37, fused(with(weighted3(), border, 5), 2), {0, 0}, 2);
    expect_same_as_single_rank<std::int32_t>(33, 45, fused(with(box(2, sm::Separable::no), border, 6), 3), {1, ranks},
                                             3);
    // A separable window; 5 passes at 2 a round end with a round of one pass (an unfused launch).
    expect_same_as_single_rank<float>(41, 37, fused(with(gaussian(1, 2), border, 5), 2), {ranks, 1}, 2);
    // A fused kernel asked for by name: one process runs register bands on 12 rows; over 3 or 4 ranks the
    // edge blocks' arrays (block plus ring, 8 or 6 rows) are too short for them and take another kernel.
    auto registers = fused(with(box(1), border, 8), 4);
    registers.fused_kernel = sm::FusedKernel::registers;
    if (border != sm::BorderMode::wrap)  // register bands do not wrap, on one process either
      expect_same_as_single_rank<float>(12, 40, registers, {ranks, 1}, std::min(4, 12 / ranks));
    if (ranks == 4) expect_same_as_single_rank<float>(30, 26, fused(with(box(1), border, 10), 5), {2, 2}, 5);
  }
}

// A workspace keeps the fused path's local arrays between calls: the second
// call reuses them (same arrays, fresh exchange counts) and gives the same
// bits as the first; another depth makes new ones.
TEST(SmoothingOverRanks, AWorkspaceKeepsTheLocalArraysBetweenCalls) {
  const std::int64_t rows = 41, cols = 37;
  const auto options = fused(with(box(1), sm::BorderMode::reflect, 9), 4);
  const std::vector<float> image = test_image<float>(rows, cols, 5);
  const std::vector<float> expected = single_rank(image, rows, cols, options);
  const auto grid = sm::decompose_image(MPI_COMM_WORLD, rows, cols, options);
  const View2D<float> block = sm::block_to_device<float>(*grid, HostImage<float>(image.data(), rows, cols));
  const sm::ImageBlock b = sm::image_block(*grid);
  sm::SmoothWorkspace<float> workspace;
  const auto run = [&](const sm::SmoothingOptions& o) {
    const View2D<float> output("output", block.extent(0), block.extent(1));
    sm::HaloStatistics halo;
    sm::smooth_distributed<float>(*grid, block, output, o, {}, &halo, &workspace);
    return std::make_pair(Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), output), halo);
  };
  const auto [first, first_halo] = run(options);
  EXPECT_EQ(workspace.ring_depth(), 4);
  const auto [second, second_halo] = run(options);
  EXPECT_EQ(workspace.calls(), 2);                         // the same arrays twice
  EXPECT_EQ(second_halo.exchanges, first_halo.exchanges);  // this call's, not the workspace's total
  EXPECT_EQ(first_halo.exchanges, 2 * 3);                  // 9 passes at 4 a round: 3 rounds, 2 exchanges each
  for (std::int64_t i = 0; i < b.rows; ++i)
    for (std::int64_t j = 0; j < b.cols; ++j) {
      ASSERT_EQ(first(i, j), expected[(b.first_row + i) * cols + b.first_col + j]) << i << "," << j;
      ASSERT_EQ(second(i, j), first(i, j)) << i << "," << j;
    }
  run(fused(with(box(1), sm::BorderMode::reflect, 9), 3));
  EXPECT_EQ(workspace.ring_depth(), 3);
  EXPECT_EQ(workspace.calls(), 1);  // new arrays for the ring of 3
}

// In place: the block filled inside the workspace's arrays, smoothed there,
// and smoothed again from its result: the single-rank bits after p and after
// 2 p passes, for every border, fused (3 a round) and a pass a round, float
// and 8-bit pixels; nothing copied in or out (no local-arrays time).
template <class Pixel>
void expect_in_place_same_as_single_rank(std::int64_t rows, std::int64_t cols, const sm::SmoothingOptions& options) {
  SCOPED_TRACE(describe(options, rows, cols, {0, 0}) + " in place");
  const std::vector<Pixel> image = test_image<Pixel>(rows, cols, 11);
  sm::SmoothingOptions twice = options;
  twice.passes = 2 * options.passes;
  const std::vector<Pixel> after_one = single_rank(image, rows, cols, options),
                           after_two = single_rank(image, rows, cols, twice);
  const auto grid = sm::decompose_image(MPI_COMM_WORLD, rows, cols, options);
  const sm::ImageBlock b = sm::image_block(*grid);
  sm::SmoothWorkspace<Pixel> workspace;
  EXPECT_THROW(sm::smooth_in_place<Pixel>(*grid, options, workspace), std::invalid_argument);  // nothing filled
  const View2D<Pixel> block = sm::block_to_device<Pixel>(*grid, HostImage<Pixel>(image.data(), rows, cols));
  portasolve::copy_grid("fill", sm::local_block<Pixel>(*grid, options, workspace), block);
  for (const auto* expected : {&after_one, &after_two}) {
    sm::HaloStatistics halo;
    sm::smooth_in_place<Pixel>(*grid, options, workspace, {}, &halo);
    EXPECT_EQ(halo.arrays_seconds, 0.0);
    const sm::LocalBlock<Pixel> result = sm::local_block<Pixel>(*grid, options, workspace);
    ASSERT_EQ(result.extent(0), static_cast<std::size_t>(b.rows));
    ASSERT_EQ(result.extent(1), static_cast<std::size_t>(b.cols));
    // A strided device view cannot be copied to the host directly: through a contiguous one.
    const View2D<Pixel> contiguous("result", result.extent(0), result.extent(1));
    portasolve::copy_grid("result", contiguous, result);
    const auto mine = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), contiguous);
    for (std::int64_t i = 0; i < b.rows; ++i)
      for (std::int64_t j = 0; j < b.cols; ++j)
        ASSERT_EQ(mine(i, j), (*expected)[(b.first_row + i) * cols + b.first_col + j])
            << "pixel (" << b.first_row + i << ", " << b.first_col + j << ") on rank " << grid->rank() << " after "
            << (expected == &after_one ? 1 : 2) << " calls";
  }
  EXPECT_EQ(workspace.calls(), 2);
}

TEST(SmoothingOverRanks, InPlaceOnTheWorkspaceBlock) {
  for (const auto border : borders) {
    expect_in_place_same_as_single_rank<float>(41, 37, fused(with(box(1), border, 7), 3));
    expect_in_place_same_as_single_rank<float>(41, 37, fused(with(weighted3(), border, 3), 1));
    expect_in_place_same_as_single_rank<std::uint8_t>(29, 31, fused(with(gaussian(1, 2), border, 5), 2));
  }
}

// Blocks thinner than k r fuse fewer passes a round (as many as the ring
// from the direct neighbours allows), or run a pass at a time.
TEST(SmoothingOverRanks, FusedPassesShrinkToWhatTheBlocksAllow) {
  const int ranks = world_size();
  if (ranks < 2) GTEST_SKIP() << "needs a split";
  // 12 rows over `ranks` in a column: blocks of 12 / ranks rows, radius 1.
  expect_same_as_single_rank<float>(12, 40, fused(with(box(1), sm::BorderMode::reflect, 8), 8), {ranks, 1},
                                    std::min(8, 12 / ranks));
  expect_same_as_single_rank<float>(12, 40, fused(with(box(2, sm::Separable::no), sm::BorderMode::wrap, 6), 6),
                                    {ranks, 1}, std::max(1, 12 / ranks / 2));
}

TEST(SmoothingOverRanks, ZeroPassesAndRadiusZero) {
  for (const auto border : {sm::BorderMode::reflect, sm::BorderMode::wrap}) {
    expect_same_as_single_rank<float>(13, 17, with(box(1), border, 0));
    expect_same_as_single_rank<float>(13, 17, with(box(0), border, 2));
  }
}

TEST(SmoothingOverRanks, ImpossibleSplitsAreRefused) {
  const int ranks = world_size();
  // A window of radius 6 on 13 rows and columns, border mirror (7 pixels a block): no split.
  const auto wide = with(gaussian(1.5, 4), sm::BorderMode::mirror, 1);
  if (ranks > 1) {
    EXPECT_THROW(sm::smoothing_process_grid(ranks, 13, 13, wide), std::invalid_argument);
    EXPECT_THROW(sm::decompose_image(MPI_COMM_WORLD, 13, 13, wide), std::invalid_argument);
    try {
      sm::smoothing_process_grid(ranks, 13, 13, wide);
    } catch (const std::invalid_argument& error) {
      EXPECT_NE(std::string(error.what()).find("fewer ranks"), std::string::npos) << error.what();
    }
    // Explicit grids: blocks thinner than mirror's radius + 1, and more ranks than rows.
    EXPECT_THROW(sm::decompose_image(MPI_COMM_WORLD, 60, 7, with(box(3), sm::BorderMode::mirror, 1), {1, ranks}),
                 std::invalid_argument);
    EXPECT_THROW(sm::decompose_image(MPI_COMM_WORLD, 1, 40, with(box(0), sm::BorderMode::nearest, 1), {ranks, 1}),
                 std::invalid_argument);
  } else {
    EXPECT_EQ(sm::smoothing_process_grid(1, 13, 13, wide), (std::array<int, 2>{1, 1}));
  }
  // A process grid that does not multiply to the ranks.
  EXPECT_THROW(sm::decompose_image(MPI_COMM_WORLD, 40, 40, with(box(1), sm::BorderMode::nearest, 1), {ranks + 1, 1}),
               std::invalid_argument);
  // Bad options.
  EXPECT_THROW(sm::smoothing_process_grid(ranks, 40, 40, with(box(-1), sm::BorderMode::nearest, 1)),
               std::invalid_argument);
}

TEST(SmoothingOverRanks, MismatchedArgumentsAreRefused) {
  const auto o = with(box(1), sm::BorderMode::wrap, 1);
  const auto grid = sm::decompose_image(MPI_COMM_WORLD, 20, 20, o);
  const sm::ImageBlock b = sm::image_block(*grid);
  const View2D<float> block("block", b.rows, b.cols), wrong("wrong", b.rows + 1, b.cols);
  EXPECT_THROW(sm::smooth_distributed<float>(*grid, block, wrong, o), std::invalid_argument);
  EXPECT_THROW(sm::smooth_distributed<float>(*grid, wrong, block, o), std::invalid_argument);
  EXPECT_THROW(sm::smooth_distributed<float>(*grid, block, block, o), std::invalid_argument);
  // The wrap border on a grid that does not wrap, and the reverse.
  if (world_size() > 1) {
    pd::GridDecomposition flat(MPI_COMM_WORLD, 22, 22, {world_size(), 1});
    const sm::ImageBlock fb = sm::image_block(flat);
    const View2D<float> in("in", fb.rows, fb.cols), out("out", fb.rows, fb.cols);
    EXPECT_THROW(sm::smooth_distributed<float>(flat, in, out, o), std::invalid_argument);
    pd::GridDecomposition round(MPI_COMM_WORLD, 22, 22, {world_size(), 1}, true);
    EXPECT_THROW(sm::smooth_distributed<float>(round, in, out, with(box(1), sm::BorderMode::reflect, 1)),
                 std::invalid_argument);
  }
}

}  // namespace
