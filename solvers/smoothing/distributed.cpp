// Smoothing over MPI ranks. Fused passes (smooth()'s passes_per_launch, k >
// 1) run k at a time on the block plus a deep ring of k r (smooth_deep
// below). Otherwise each rank holds its block inside a local array
// with a ring of width r; a pass fills the ring, runs smooth() (one pass) on
// the local array and keeps the block's part of the result. Blocks wider and
// taller than 2r overlap the first exchange with the pass over the whole
// local array (right except within r of the block's edges), then redo that
// rim from strips of the completed local array. The ring's pixels
// are the ones one rank would read there: from the neighbours for pixels of
// the image (two exchanges: along rows, then whole local rows along columns,
// which carries the corners), and by the border mode past the image's edges
// (ExtendByBorder, which folds the global index into the block: the
// restriction on block sizes makes the fold land there). The local array's own
// edges are smoothed by whatever border smooth() is given; those pixels are
// the ring, which the next pass overwrites.
#include "solvers/smoothing/distributed.hpp"

#include <algorithm>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include "core/grid_range.hpp"
#include "core/timer.hpp"
#include "distributed/halo_exchange.hpp"
#include "distributed/rim_strips.hpp"
#include "solvers/smoothing/detail/border.hpp"
#include "solvers/smoothing/detail/taps.hpp"

namespace portasolve::smoothing {

using namespace detail;

namespace {

namespace pd = distributed;

// Ring pixels past one of the image's edges, (i, j) local: the pixel the
// border mode reads there, found by folding the global index along one axis
// into the block (constant: the constant; keep: 0, which no kept pixel reads).
template <class Pixel>
struct ExtendByBorder {
  View2D<Pixel> local;
  BorderMode mode;
  Pixel constant;
  int radius;
  int first;     // the block's first image index along the axis
  int extent;    // the image's extent along the axis
  bool by_rows;  // fold the row index (else the column index)

  KOKKOS_INLINE_FUNCTION void operator()(const int i, const int j) const {
    if (mode == BorderMode::constant) {
      local(i, j) = constant;
    } else if (mode == BorderMode::keep) {
      local(i, j) = Pixel(0);
    } else if (by_rows) {
      local(i, j) = local(radius + fold_index(first - radius + i, extent, mode) - first, j);
    } else {
      local(i, j) = local(i, radius + fold_index(first - radius + j, extent, mode) - first);
    }
  }
};

// border keep: the block's pixels within r of the image's edges stay as they
// were (next takes them from current).
template <class Pixel>
struct KeepEdges {
  View2D<const Pixel> current;
  View2D<Pixel> next;
  int radius, first_row, first_col, rows, cols;  // the block's origin, the image's extents

  KOKKOS_INLINE_FUNCTION void operator()(const int i, const int j) const {
    const int gi = first_row + i - radius, gj = first_col + j - radius;
    if (gi < radius || gi >= rows - radius || gj < radius || gj >= cols - radius) next(i, j) = current(i, j);
  }
};

std::string split_text(const std::array<int, 2>& dims) {
  return std::to_string(dims[0]) + "x" + std::to_string(dims[1]);
}

// Why `dims` cannot split rows x cols, or empty.
std::string refusal(const std::array<int, 2>& dims, std::int64_t rows, std::int64_t cols, int least) {
  const std::int64_t extent[2] = {rows, cols};
  const char* what[2] = {"rows", "columns"};
  for (int axis = 0; axis < 2; ++axis) {
    if (dims[axis] > extent[axis])
      return "a " + split_text(dims) + " process grid has more ranks down than the image's " + std::to_string(rows) +
             "x" + std::to_string(cols) + " pixels allow";
    if (dims[axis] > 1 && extent[axis] / dims[axis] < least)
      return "a " + split_text(dims) + " process grid gives blocks of " + std::to_string(extent[axis] / dims[axis]) +
             " " + what[axis] + ", fewer than the " + std::to_string(least) +
             " the window needs over MPI ranks (a halo comes from the direct neighbours only)";
  }
  return {};
}

}  // namespace

int least_block(const SmoothingOptions& options) {
  const int r = kernel_radius(options);
  return std::max(1, options.border == BorderMode::mirror ? r + 1 : r);
}

std::array<int, 2> smoothing_process_grid(int ranks, std::int64_t rows, std::int64_t cols,
                                          const SmoothingOptions& options) {
  check(options, rows, cols);
  const int least = least_block(options);
  std::array<int, 2> best{0, 0};
  double best_edges = std::numeric_limits<double>::infinity();
  for (int down = 1; down <= ranks; ++down) {
    if (ranks % down != 0) continue;
    const std::array<int, 2> dims{down, ranks / down};
    if (!refusal(dims, rows, cols, least).empty()) continue;
    const double edges = static_cast<double>(dims[0] - 1) * static_cast<double>(cols) +
                         static_cast<double>(dims[1] - 1) * static_cast<double>(rows);
    if (edges < best_edges) best_edges = edges, best = dims;
  }
  if (best[0] == 0)
    throw std::invalid_argument(
        "a " + std::to_string(rows) + "x" + std::to_string(cols) + " image cannot be smoothed over " +
        std::to_string(ranks) + " MPI ranks: every split leaves a block thinner than the " + std::to_string(least) +
        " pixels the window (radius " + std::to_string(kernel_radius(options)) + ", border " + name_of(options.border) +
        ") needs, as its halo comes from the direct neighbours only; use fewer ranks");
  return best;
}

std::unique_ptr<pd::GridDecomposition> decompose_image(MPI_Comm comm, std::int64_t rows, std::int64_t cols,
                                                       const SmoothingOptions& options, std::array<int, 2> dims) {
  int size = 1;
  MPI_Comm_size(comm, &size);
  if (dims[0] == 0 && dims[1] == 0) {
    dims = smoothing_process_grid(size, rows, cols, options);
  } else {
    check(options, rows, cols);
    if (dims[0] < 1 || dims[1] < 1 || dims[0] * dims[1] != size)
      throw std::invalid_argument("a " + split_text(dims) + " process grid does not fit " + std::to_string(size) +
                                  " ranks");
    const std::string why = refusal(dims, rows, cols, least_block(options));
    if (!why.empty()) throw std::invalid_argument(why + "; use fewer ranks");
  }
  return std::make_unique<pd::GridDecomposition>(comm, rows + 2, cols + 2, dims, options.border == BorderMode::wrap);
}

ImageBlock image_block(const pd::GridDecomposition& grid, int rank) {
  const pd::Span rows = grid.rows_owned_by(rank), cols = grid.cols_owned_by(rank);
  return ImageBlock{rows.first - 1, rows.count, cols.first - 1, cols.count};
}

namespace {

// Fused passes over ranks: the passes a launch smooth() would fuse on one
// process, as many as a deep halo of (passes x r) from the direct neighbours
// allows; 1 means a pass at a time. Every rank finds the same number.
int deep_passes(const pd::GridDecomposition& grid, const SmoothingOptions& options, std::int64_t image_rows,
                std::int64_t image_cols) {
  const int r = kernel_radius(options);
  const std::int64_t wanted = std::min<std::int64_t>(fused_passes_per_launch(options), options.passes);
  if (r == 0 || wanted <= 1) return 1;
  int dims[2], periods[2], coords[2];
  MPI_Cart_get(grid.comm(), 2, dims, periods, coords);
  const std::int64_t extent[2] = {image_rows, image_cols};
  std::int64_t depth = std::numeric_limits<std::int64_t>::max();
  for (int axis = 0; axis < 2; ++axis)
    if (dims[axis] > 1 || periods[axis]) depth = std::min(depth, extent[axis] / dims[axis]);
  return static_cast<int>(std::max<std::int64_t>(1, std::min(wanted, depth / r)));
}

}  // namespace

// The fused path's local arrays and exchanges for one decomposition, block
// and ring (kept by a SmoothWorkspace between calls). `current` holds the
// block between calls (its input before, its result after).
template <class Pixel>
struct DeepRingArrays {
  const pd::GridDecomposition* grid;
  int depth;
  pd::RingWidths ring;
  std::pair<int, int> block_rows, block_cols;  // of the local arrays
  View2D<Pixel> current, next;
  // None for a window of radius 0: nothing to exchange.
  std::optional<pd::HaloExchange<Pixel>> across, down;
  // The rim's strips, for the rounds that smooth while the ring travels
  // (rim_strips.hpp); none for blocks too thin, nor on hosts
  // (overlap_exchanges).
  std::optional<pd::RimStrips<Pixel>> strips;
  std::int64_t calls = 0;  // smoothings run on these arrays

  DeepRingArrays(const pd::GridDecomposition& decomposition, int ring_depth, const pd::RingWidths& widths,
                 const ImageBlock& mine)
      : grid(&decomposition),
        depth(ring_depth),
        ring(widths),
        block_rows(widths.north, widths.north + static_cast<int>(mine.rows)),
        block_cols(widths.west, widths.west + static_cast<int>(mine.cols)),
        // Every pixel is written before it is read: the block by the caller
        // (or the copy in), the ring by the exchanges (it lies only where a
        // neighbour is), `next` whole by smooth().
        current(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("smoothing_local")), local_rows(mine),
                local_cols(mine)),
        next(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("smoothing_local_next")), local_rows(mine),
             local_cols(mine)) {
    if (ring_depth > 0) {
      across.emplace(decomposition, ring_depth, pd::HaloShape::across, widths);
      down.emplace(decomposition, ring_depth, pd::HaloShape::down_with_corners, widths);
      if (pd::overlap_exchanges())
        strips.emplace(pd::rim_strips(static_cast<int>(mine.rows), static_cast<int>(mine.cols), widths, ring_depth,
                                      pd::overlapped_sides(*across, *down)));
    }
  }

  std::size_t local_rows(const ImageBlock& mine) const {
    return static_cast<std::size_t>(mine.rows + ring.north + ring.south);
  }
  std::size_t local_cols(const ImageBlock& mine) const {
    return static_cast<std::size_t>(mine.cols + ring.west + ring.east);
  }
  bool fits(const pd::GridDecomposition& decomposition, int ring_depth, const ImageBlock& mine) const {
    return grid == &decomposition && depth == ring_depth && current.extent(0) == local_rows(mine) &&
           current.extent(1) == local_cols(mine);
  }
  LocalBlock<Pixel> block() const { return Kokkos::subview(current, block_rows, block_cols); }
  double halo_seconds() const { return across ? across->seconds() + down->seconds() : 0.0; }
  std::int64_t exchanges() const { return across ? across->exchanges() + down->exchanges() : 0; }
};

template <class Pixel>
int SmoothWorkspace<Pixel>::ring_depth() const {
  return deep ? deep->depth : 0;
}

template <class Pixel>
std::int64_t SmoothWorkspace<Pixel>::calls() const {
  return deep ? deep->calls : 0;
}

namespace {

// The deep-ringed arrays for k passes a round: the workspace's when they fit,
// else new ones (the old ones freed first).
template <class Pixel>
DeepRingArrays<Pixel>& deep_arrays(const pd::GridDecomposition& grid, const SmoothingOptions& options, int k,
                                   SmoothWorkspace<Pixel>& kept) {
  // k r pixels where a neighbour is; k is bounded there by the block (deep_passes).
  const int depth = static_cast<int>(
      std::min<std::int64_t>(std::int64_t{k} * kernel_radius(options), std::numeric_limits<int>::max()));
  const ImageBlock mine = image_block(grid);
  if (!kept.deep || !kept.deep->fits(grid, depth, mine)) {
    kept.deep.reset();  // its memory first
    const pd::RingWidths ring = pd::RingWidths::toward_neighbours(grid, depth, /*at_edges=*/0, /*edge_rows=*/false);
    kept.deep = std::make_shared<DeepRingArrays<Pixel>>(grid, depth, ring, mine);
  }
  return *kept.deep;
}

// k fused passes a round over ranks, in place on the arrays' `current`. The
// local array is the block plus a ring of k r where a neighbour is (none
// where the block meets the image's edge, so smooth() applies the border mode
// there as on one process). Each round exchanges the ring (west and east,
// then north and south the full width, which carries the corners) and runs
// smooth() for k passes on the whole local array with the real border mode:
// at the ring's outer edge that border reads the wrong pixels, and each pass
// carries the error r pixels further in, so after k passes it has not left
// the ring and the block is the same sum in the same order as on one process.
template <class Pixel>
SmoothReport smooth_rounds(DeepRingArrays<Pixel>& arrays, const SmoothingOptions& options, int k,
                           const PassCallback& on_pass, HaloStatistics* halo, double arrays_seconds) {
  ++arrays.calls;
  // A kept exchange's totals run on: this call's are the differences.
  const double halo_seconds_before = arrays.halo_seconds();
  const std::int64_t exchanges_before = arrays.exchanges();
  SmoothingOptions local = options;
  local.passes_per_launch = k;
  // The fused kernel is picked per local array (the ranks' arrays differ: a
  // streamed or register kernel asked for may not fit a thin edge block on
  // one rank only, which must not stop that rank alone); every fused kernel
  // gives the same bits.
  local.fused_kernel = FusedKernel::automatic;
  SmoothReport report;
  report.passes = options.passes;
  report.radius = kernel_radius(options);
  for (std::int64_t done = 0; done < options.passes;) {
    local.passes = std::min<std::int64_t>(k, options.passes - done);
    SmoothReport round;
    const auto smooth_all = [&] { round = smooth<Pixel>(arrays.current, arrays.next, local); };
    if (arrays.strips && !arrays.strips->empty()) {
      pd::exchange_around(*arrays.across, *arrays.down, arrays.current, smooth_all);
      arrays.strips->redo(
          arrays.current, arrays.next,
          [&](std::size_t, const View2D<Pixel>& in, const View2D<Pixel>& out) { smooth<Pixel>(in, out, local); });
    } else {
      if (arrays.across) {
        arrays.across->exchange(arrays.current);
        arrays.down->exchange(arrays.current);
      }
      smooth_all();
    }
    report.separable = round.separable;
    report.fused_kernel = round.fused_kernel;
    report.separable_kernel = round.separable_kernel;
    report.tile_rows = round.tile_rows;
    report.tile_cols = round.tile_cols;
    report.launches += round.launches;
    std::swap(arrays.current, arrays.next);
    done += local.passes;
    if (on_pass) on_pass(done);
  }
  report.passes_per_launch = k;
  if (halo) {
    const pd::HaloTransport transport = arrays.across
                                            ? pd::combined(arrays.across->transport(), arrays.down->transport())
                                            : pd::HaloTransport::no_neighbours;
    *halo = HaloStatistics{arrays.halo_seconds() - halo_seconds_before, arrays.exchanges() - exchanges_before,
                           transport, arrays_seconds};
  }
  return report;
}

// smooth_rounds() on the block copied into the local arrays and back out.
template <class Pixel>
SmoothReport smooth_deep(const pd::GridDecomposition& grid, const View2D<const Pixel>& block,
                         const View2D<Pixel>& output, const SmoothingOptions& options, int k,
                         const PassCallback& on_pass, HaloStatistics* halo, SmoothWorkspace<Pixel>* workspace) {
  Stopwatch arrays_watch;
  SmoothWorkspace<Pixel> this_call;  // without a caller's workspace, arrays for this call alone
  DeepRingArrays<Pixel>& arrays = deep_arrays(grid, options, k, workspace ? *workspace : this_call);
  copy_grid("smoothing_block_in", arrays.block(), block);
  const double arrays_seconds = arrays_watch.seconds();
  const SmoothReport report = smooth_rounds(arrays, options, k, on_pass, halo, arrays_seconds);
  arrays_watch.restart();
  copy_grid("smoothing_block_out", output, arrays.block());
  if (halo) halo->arrays_seconds += arrays_watch.seconds();
  return report;
}

int image_rows_of(const pd::GridDecomposition& grid) { return static_cast<int>(grid.global_rows() - 2); }
int image_cols_of(const pd::GridDecomposition& grid) { return static_cast<int>(grid.global_cols() - 2); }

// The checks every entry point makes: options, extents, the split and the
// process grid's periodicity for the border mode.
void check_distributed(const pd::GridDecomposition& grid, const SmoothingOptions& options) {
  const int image_rows = image_rows_of(grid), image_cols = image_cols_of(grid);
  check(options, image_rows, image_cols);
  const std::string why = refusal(grid.dims(), image_rows, image_cols, least_block(options));
  if (!why.empty()) throw std::invalid_argument(why + "; use fewer ranks");
  // wrap reads across the image's edges: from the opposite blocks where the
  // process grid is periodic (decompose_image's choice), from the block itself
  // along an unsplit direction; other borders must not wrap.
  int dims[2], periods[2], coords[2];
  MPI_Cart_get(grid.comm(), 2, dims, periods, coords);
  for (int axis = 0; axis < 2; ++axis)
    if (options.border == BorderMode::wrap ? (dims[axis] > 1 && !periods[axis]) : periods[axis] != 0)
      throw std::invalid_argument(std::string("smoothing over MPI ranks: border ") + name_of(options.border) +
                                  " needs a process grid that is " +
                                  (options.border == BorderMode::wrap ? "" : "not ") + "periodic (decompose_image)");
}

}  // namespace

template <class Pixel>
LocalBlock<Pixel> local_block(const pd::GridDecomposition& grid, const SmoothingOptions& options,
                              SmoothWorkspace<Pixel>& workspace) {
  check_distributed(grid, options);
  const int k = deep_passes(grid, options, image_rows_of(grid), image_cols_of(grid));
  return deep_arrays(grid, options, k, workspace).block();
}

template <class Pixel>
SmoothReport smooth_in_place(const pd::GridDecomposition& grid, const SmoothingOptions& options,
                             SmoothWorkspace<Pixel>& workspace, const PassCallback& on_pass, HaloStatistics* halo) {
  check_distributed(grid, options);
  const int k = deep_passes(grid, options, image_rows_of(grid), image_cols_of(grid));
  const int depth = k * kernel_radius(options);
  if (!workspace.deep || !workspace.deep->fits(grid, depth, image_block(grid)))
    throw std::invalid_argument(
        "smooth_in_place: the workspace holds no block for this decomposition and options; fill local_block() "
        "first");
  return smooth_rounds(*workspace.deep, options, k, on_pass, halo, 0.0);
}

template <class Pixel>
SmoothReport smooth_distributed(const pd::GridDecomposition& grid, const View2D<const Pixel>& block,
                                const View2D<Pixel>& output, const SmoothingOptions& options,
                                const PassCallback& on_pass, HaloStatistics* halo, SmoothWorkspace<Pixel>* workspace) {
  check_distributed(grid, options);
  const int image_rows = image_rows_of(grid), image_cols = image_cols_of(grid);
  const ImageBlock mine = image_block(grid);
  if (block.extent(0) != static_cast<std::size_t>(mine.rows) ||
      block.extent(1) != static_cast<std::size_t>(mine.cols) || output.extent(0) != block.extent(0) ||
      output.extent(1) != block.extent(1))
    throw std::invalid_argument("smoothing over MPI ranks: rank " + std::to_string(grid.rank()) + "'s block is " +
                                std::to_string(mine.rows) + "x" + std::to_string(mine.cols) + ", its input " +
                                std::to_string(block.extent(0)) + "x" + std::to_string(block.extent(1)) +
                                " and output " + std::to_string(output.extent(0)) + "x" +
                                std::to_string(output.extent(1)));
  if (output.data() == block.data()) throw std::invalid_argument("smoothing: the output must not alias the input");

  const int fused = deep_passes(grid, options, image_rows, image_cols);
  if (fused > 1) return smooth_deep<Pixel>(grid, block, output, options, fused, on_pass, halo, workspace);

  const int r = kernel_radius(options);
  const int rows = static_cast<int>(mine.rows), cols = static_cast<int>(mine.cols);
  const auto block_range = std::make_pair(r, r + rows);
  const auto block_cols = std::make_pair(r, r + cols);
  View2D<Pixel> current("smoothing_local", rows + 2 * r, cols + 2 * r);
  View2D<Pixel> next("smoothing_local_next", rows + 2 * r, cols + 2 * r);
  Kokkos::deep_copy(Kokkos::subview(current, block_range, block_cols), block);

  // One pass of the local array: its edges (the ring) are recomputed by the
  // next exchange, so any border that reads only the array does here.
  SmoothingOptions local = options;
  local.passes = 1;
  local.passes_per_launch = 1;
  local.fused_kernel = FusedKernel::automatic;
  local.border = BorderMode::nearest;

  pd::HaloExchange<Pixel> across(grid, r, pd::HaloShape::across), down(grid, r, pd::HaloShape::down_with_corners);
  const Pixel constant = constant_pixel<Pixel>(options.constant_value);
  const auto extend = [&](bool by_rows, int first_local, int count, int other_first, int other_count) {
    const ExtendByBorder<Pixel> fill{current,
                                     options.border,
                                     constant,
                                     r,
                                     static_cast<int>(by_rows ? mine.first_row : mine.first_col),
                                     by_rows ? image_rows : image_cols,
                                     by_rows};
    const GridRectangle ring = by_rows ? GridRectangle{first_local, other_first, count, other_count}
                                       : GridRectangle{other_first, first_local, other_count, count};
    for_rectangle("smoothing_ring_by_border", ring, fill);
  };

  // Blocks with an inner part (pixels r or more from the block's edges) smooth
  // the whole local array while the first exchange travels, then redo the
  // rim (pixels within r of the block's edges) from strips of 3r rows or
  // columns copied out of the local array once its ring is complete.
  const pd::RimStrips<Pixel> strips(
      pd::rim_strips(rows, cols, pd::RingWidths::uniform(r), r, pd::Sides{true, true, true, true}));
  const bool overlap = !strips.empty();

  SmoothReport report;
  report.passes = options.passes;
  report.radius = r;
  for (std::int64_t pass = 0; pass < options.passes; ++pass) {
    SmoothReport one;
    if (r > 0) {
      across.start(current);
      if (overlap) one = smooth<Pixel>(current, next, local);  // right r or more from the block's edges
      across.finish(current);
      if (grid.west() == MPI_PROC_NULL) extend(false, 0, r, r, rows);
      if (grid.east() == MPI_PROC_NULL) extend(false, r + cols, r, r, rows);
      down.exchange(current);
      if (grid.north() == MPI_PROC_NULL) extend(true, 0, r, 0, cols + 2 * r);
      if (grid.south() == MPI_PROC_NULL) extend(true, r + rows, r, 0, cols + 2 * r);
    }
    if (overlap)
      strips.redo(current, next, [&](std::size_t, const View2D<Pixel>& in, const View2D<Pixel>& out) {
        smooth<Pixel>(in, out, local);
      });
    else
      one = smooth<Pixel>(current, next, local);
    report.separable = one.separable;
    report.separable_kernel = one.separable_kernel;
    report.tile_rows = one.tile_rows;
    report.tile_cols = one.tile_cols;
    if (options.border == BorderMode::keep)
      for_rectangle("smoothing_keep_edges", GridRectangle{r, r, rows, cols},
                    KeepEdges<Pixel>{current, next, r, static_cast<int>(mine.first_row),
                                     static_cast<int>(mine.first_col), image_rows, image_cols});
    std::swap(current, next);
    ++report.launches;
    if (on_pass) on_pass(pass + 1);
  }
  Kokkos::deep_copy(output, Kokkos::subview(current, block_range, block_cols));
  if (halo)
    *halo = HaloStatistics{across.seconds() + down.seconds(), across.exchanges() + down.exchanges(),
                           pd::combined(across.transport(), down.transport())};
  return report;
}

template <class Pixel>
View2D<Pixel> block_to_device(const pd::GridDecomposition& grid, const HostImage<Pixel>& image) {
  const ImageBlock mine = image_block(grid);
  if (image.extent(0) != static_cast<std::size_t>(grid.global_rows() - 2) ||
      image.extent(1) != static_cast<std::size_t>(grid.global_cols() - 2))
    throw std::invalid_argument("smoothing over MPI ranks: the image's extents differ from the decomposition's");
  View2D<Pixel> block(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("smoothing_block")), mine.rows,
                      mine.cols);
  const auto host = Kokkos::create_mirror_view(block);
  Kokkos::deep_copy(host, Kokkos::subview(image, std::make_pair(mine.first_row, mine.first_row + mine.rows),
                                          std::make_pair(mine.first_col, mine.first_col + mine.cols)));
  Kokkos::deep_copy(block, host);
  return block;
}

// Blocks travel to the root rank by rank, in messages of at most this many
// bytes: MPI counts are ints, and a 32768^2 float image is 4 GiB.
constexpr std::int64_t gather_message_bytes = std::int64_t{1} << 30;

template <class Pixel>
std::vector<Pixel> gather_image(const pd::GridDecomposition& grid, const View2D<const Pixel>& block, int root) {
  if (!block.span_is_contiguous()) throw std::invalid_argument("gather_image: the block must be contiguous");
  const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), block);
  const int tag = 0;
  const auto pieces = [](std::int64_t bytes, auto&& move) {
    for (std::int64_t offset = 0; offset < bytes; offset += gather_message_bytes)
      move(offset, static_cast<int>(std::min(gather_message_bytes, bytes - offset)));
  };
  if (grid.rank() != root) {
    auto* bytes = reinterpret_cast<const char*>(host.data());
    pieces(static_cast<std::int64_t>(host.span() * sizeof(Pixel)),
           [&](std::int64_t offset, int count) { MPI_Send(bytes + offset, count, MPI_BYTE, root, tag, grid.comm()); });
    return {};
  }
  const std::int64_t image_cols = grid.global_cols() - 2;
  std::vector<Pixel> image(static_cast<std::size_t>((grid.global_rows() - 2) * image_cols));
  std::vector<Pixel> incoming;
  for (int rank = 0; rank < grid.size(); ++rank) {
    const ImageBlock b = image_block(grid, rank);
    const Pixel* from = host.data();
    if (rank != root) {
      incoming.resize(static_cast<std::size_t>(b.rows * b.cols));
      auto* bytes = reinterpret_cast<char*>(incoming.data());
      pieces(static_cast<std::int64_t>(incoming.size() * sizeof(Pixel)), [&](std::int64_t offset, int count) {
        MPI_Recv(bytes + offset, count, MPI_BYTE, rank, tag, grid.comm(), MPI_STATUS_IGNORE);
      });
      from = incoming.data();
    }
    for (std::int64_t i = 0; i < b.rows; ++i)
      std::copy(from + i * b.cols, from + (i + 1) * b.cols,
                image.data() + (b.first_row + i) * image_cols + b.first_col);
  }
  return image;
}

#define PORTASOLVE_SMOOTH_DISTRIBUTED(Pixel)                                                                          \
  template SmoothReport smooth_distributed<Pixel>(const pd::GridDecomposition&, const View2D<const Pixel>&,           \
                                                  const View2D<Pixel>&, const SmoothingOptions&, const PassCallback&, \
                                                  HaloStatistics*, SmoothWorkspace<Pixel>*);                          \
  template struct SmoothWorkspace<Pixel>;                                                                             \
  template LocalBlock<Pixel> local_block<Pixel>(const pd::GridDecomposition&, const SmoothingOptions&,                \
                                                SmoothWorkspace<Pixel>&);                                             \
  template SmoothReport smooth_in_place<Pixel>(const pd::GridDecomposition&, const SmoothingOptions&,                 \
                                               SmoothWorkspace<Pixel>&, const PassCallback&, HaloStatistics*);        \
  template View2D<Pixel> block_to_device<Pixel>(const pd::GridDecomposition&, const HostImage<Pixel>&);               \
  template std::vector<Pixel> gather_image<Pixel>(const pd::GridDecomposition&, const View2D<const Pixel>&, int);
PORTASOLVE_SMOOTH_DISTRIBUTED(std::uint8_t)
PORTASOLVE_SMOOTH_DISTRIBUTED(std::uint16_t)
PORTASOLVE_SMOOTH_DISTRIBUTED(std::int32_t)
PORTASOLVE_SMOOTH_DISTRIBUTED(float)
PORTASOLVE_SMOOTH_DISTRIBUTED(double)

}  // namespace portasolve::smoothing
