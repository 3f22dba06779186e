#pragma once
// Smoothing over MPI ranks (built with PORTASOLVE_MPI): the image split into
// a process grid of blocks, one per rank (distributed/grid_decomposition.hpp,
// laid over a (rows + 2) x (cols + 2) grid whose interior is the image). Before
// every pass each rank fills a halo of width r (the window's radius) around
// its block: the neighbours' pixels (HaloExchange, corners included, across
// the periodic process grid for the wrap border), and past the image's edges
// what the border mode puts there, by the same global rule as one rank
// (border.hpp). The pass itself is smooth() on the block with its halo, so
// every pixel is the same sum in the same order as on one rank: results are
// bit for bit the single-rank ones for any rank count and split.
//
// Restriction: where a direction is split over several ranks, every block is
// at least r pixels that way (mirror: r + 1), so a halo comes from the rank
// itself or its direct neighbours.
//
// Fused passes (passes_per_launch, or its automatic 8 on GPUs): k passes a
// round on the block plus a ring of k r exchanged once a round, with k
// lowered to what blocks of the split allow (k r pixels where split; 1: a
// pass at a time as above); the same bits as one rank fusing k passes.
//
// Execution space instance: these entry points have no overload taking one
// (smooth() has): they run on the default instance, ExecSpace(), whose work
// the halo exchange (distributed/) waits for with global fences around its
// MPI calls.
#include <mpi.h>

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/spaces.hpp"
#include "distributed/grid_decomposition.hpp"
#include "distributed/halo_statistics.hpp"
#include "solvers/smoothing/options.hpp"
#include "solvers/smoothing/smooth.hpp"

namespace portasolve::smoothing {

using HaloStatistics = distributed::HaloStatistics;

// The image pixels a rank owns.
struct ImageBlock {
  std::int64_t first_row = 0, rows = 0, first_col = 0, cols = 0;
};

// The fewest pixels a block may have along a direction split over several
// ranks: the radius (mirror: radius + 1; at least 1).
int least_block(const SmoothingOptions& options);

// The process grid (ranks down, ranks across) for a rows x cols image: of
// the factorisations whose blocks are at least least_block() wherever a
// direction is split, the one with the shortest cuts. Throws
// std::invalid_argument (saying why) when none fits, or for bad options.
std::array<int, 2> smoothing_process_grid(int ranks, std::int64_t rows, std::int64_t cols,
                                          const SmoothingOptions& options);

// Collective over `comm`: the decomposition smooth_distributed() runs on
// (periodic for the wrap border). dims {0, 0}: smoothing_process_grid().
// Throws std::invalid_argument for a split the restriction above refuses.
std::unique_ptr<distributed::GridDecomposition> decompose_image(MPI_Comm comm, std::int64_t rows, std::int64_t cols,
                                                                const SmoothingOptions& options,
                                                                std::array<int, 2> dims = {0, 0});

ImageBlock image_block(const distributed::GridDecomposition& grid, int rank);
inline ImageBlock image_block(const distributed::GridDecomposition& grid) { return image_block(grid, grid.rank()); }

template <class Pixel>
struct DeepRingArrays;  // distributed.cpp

// What smooth_distributed() keeps between calls when given one: the fused
// path's deep-ringed local arrays and halo buffers (two 2 GB arrays a call
// for a 32768^2 float image over 2 ranks, ~10 ms on H200s). Reused while the
// decomposition, the block and the ring's depth stay the same; pass one
// workspace to the calls of a repeated smoothing, and let it go to free them.
template <class Pixel>
struct SmoothWorkspace {
  std::shared_ptr<DeepRingArrays<Pixel>> deep;
  int ring_depth() const;      // of the arrays held (0: none)
  std::int64_t calls() const;  // smoothings run on them
};

// `passes` passes of this rank's block (image_block() extents) into output
// (same extents, not aliasing it). Collective over the decomposition's
// communicator. on_pass is called after every pass. Throws
// std::invalid_argument for bad options or extents.
template <class Pixel>
SmoothReport smooth_distributed(const distributed::GridDecomposition& grid, const View2D<const Pixel>& block,
                                const View2D<Pixel>& output, const SmoothingOptions& options,
                                const PassCallback& on_pass = {}, HaloStatistics* halo = nullptr,
                                SmoothWorkspace<Pixel>* workspace = nullptr);

// This rank's block inside a workspace's local arrays.
template <class Pixel>
using LocalBlock = Kokkos::View<Pixel**, Kokkos::LayoutStride, MemSpace>;

// In place, for smoothing data that stay on the ranks between calls (a
// time-stepping code, benchmark repeats): the block lives inside the
// workspace's local arrays, so no call copies it in or out as
// smooth_distributed() does. local_block() makes the arrays for this
// decomposition and options (or keeps the workspace's) and returns the block
// to fill; smooth_in_place() smooths it there, after which local_block() with
// the same arguments holds the result. Both are collective. Passes run fused
// as the options and the blocks allow, at least one a round. Throws
// std::invalid_argument for bad options or splits, and smooth_in_place() for a
// workspace without arrays for these options.
template <class Pixel>
LocalBlock<Pixel> local_block(const distributed::GridDecomposition& grid, const SmoothingOptions& options,
                              SmoothWorkspace<Pixel>& workspace);
template <class Pixel>
SmoothReport smooth_in_place(const distributed::GridDecomposition& grid, const SmoothingOptions& options,
                             SmoothWorkspace<Pixel>& workspace, const PassCallback& on_pass = {},
                             HaloStatistics* halo = nullptr);

// A whole image on the host, row-major.
template <class Pixel>
using HostImage = Kokkos::View<const Pixel**, Kokkos::LayoutRight, Kokkos::HostSpace>;

// This rank's block of a whole image held on the host by every rank, on the device.
template <class Pixel>
View2D<Pixel> block_to_device(const distributed::GridDecomposition& grid, const HostImage<Pixel>& image);

// Every rank's block gathered into the whole image (row-major) on `root`;
// other ranks get an empty vector. Collective.
template <class Pixel>
std::vector<Pixel> gather_image(const distributed::GridDecomposition& grid, const View2D<const Pixel>& block,
                                int root = 0);

}  // namespace portasolve::smoothing
