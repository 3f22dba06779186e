#pragma once
// Both 1-D passes of a separable window in one launch, a team per tile: the
// tile's input plus a halo of r pixels on every side is copied into team
// scratch (past the image's edges: the extension the border mode defines),
// the pass along rows turns the tile's rows plus r above and below into
// partial sums in scratch, and the pass along columns finishes the tile from
// there. No full-size intermediate image: the two-launch path
// (SmoothSeparable) writes and reads back one of 8 bytes a pixel (integers),
// which with its strided loads held a Gaussian of sigma 1 at 0.17 of the copy
// bandwidth on an H100 (issue 25).
//
// Each partial and each output is summed term by term in SmoothSeparable's
// order (from 0, left to right along rows, top to bottom along columns) from
// the same values in the same types (the partials are Sum, as the
// two-launch path stores them), so results equal it bit for bit.
#include <algorithm>
#include <cstdint>
#include <string>

#include "core/errors.hpp"
#include "core/grid_range.hpp"
#include "core/spaces.hpp"
#include "core/unroll.hpp"
#include "solvers/smoothing/detail/border.hpp"
#include "solvers/smoothing/detail/single_pass.hpp"
#include "solvers/smoothing/detail/taps.hpp"

namespace portasolve::smoothing::detail {

struct SeparableTileGeometry {
  int tile_rows = 0, tile_cols = 0;  // output pixels a team writes
  int radius = 0;
  int tiles_down = 0, tiles_across = 0;
  KOKKOS_INLINE_FUNCTION int region_rows() const { return tile_rows + 2 * radius; }
  KOKKOS_INLINE_FUNCTION int region_cols() const { return tile_cols + 2 * radius; }
};

template <class Pixel>
struct SeparableTiles {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  using Sum = typename DeviceTaps<Pixel>::Sum;
  template <class Shape>
  using Scratch = Kokkos::View<Shape, Kokkos::LayoutRight, ExecSpace::scratch_memory_space,
                               Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using Pixels = Scratch<Pixel**>;  // the region: tile plus halo
  using Partials = Scratch<Sum**>;  // the pass along rows: region rows x tile columns
  // Output rows a thread finishes down one column: each partial it reads
  // from scratch serves up to this many pending sums (registers), instead of
  // every output reading its 2r+1 partials.
  enum { column_rows = 8 };

  View2D<const Pixel> in;
  View2D<Pixel> out;
  DeviceTaps<Pixel> taps;
  Border<Pixel> border;
  SeparableTileGeometry geometry{};

  static std::size_t scratch_bytes(const SeparableTileGeometry& g) {
    return Pixels::shmem_size(g.region_rows(), g.region_cols()) + Partials::shmem_size(g.region_rows(), g.tile_cols);
  }

  template <class Body>
  KOKKOS_INLINE_FUNCTION static void for_region(const Member& team, int row_begin, int row_end, int col_begin,
                                                int col_end, const Body& body) {
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, row_begin, row_end), [&](const int a) {
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, col_begin, col_end), [&](const int b) { body(a, b); });
    });
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const int rows = static_cast<int>(in.extent(0)), cols = static_cast<int>(in.extent(1));
    const int r = geometry.radius, tile_rows = geometry.tile_rows, tile_cols = geometry.tile_cols;
    const int region_rows = geometry.region_rows(), region_cols = geometry.region_cols();
    const int first_row = (team.league_rank() / geometry.tiles_across) * tile_rows;
    const int first_col = (team.league_rank() % geometry.tiles_across) * tile_cols;
    const int row0 = first_row - r, col0 = first_col - r;  // image position of the region's (0, 0)
    const Pixels pixels(team.team_scratch(0), region_rows, region_cols);
    const Partials partials(team.team_scratch(0), region_rows, tile_cols);
    const BorderMode mode = border.mode;

    // The region as the border mode extends the image (keep never reads
    // past the edges: zeros there, which no kept window sums).
    for_region(team, 0, region_rows, 0, region_cols, [&](const int a, const int c) {
      const Pixel value = extended_pixel<Pixel>(in, border, row0 + a, col0 + c, rows, cols);
      pixels(a, c) = value;
    });
    team.team_barrier();

    // Along rows: SmoothSeparable::row_sum's terms, from 0, left first.
    const int side = 2 * r + 1;
    for_region(team, 0, region_rows, 0, tile_cols, [&](const int a, const int b) {
      Sum sum = 0;
      for (int q = 0; q < side; ++q) sum += taps.term(q - r, static_cast<Sum>(pixels(a, b + q)));
      partials(a, b) = taps.partial(sum);
    });
    team.team_barrier();

    // Along columns: a thread walks column_rows outputs of one column; the
    // partial at offset t from the first window's top is term q = t - k of
    // output k, added in SmoothSeparable's order (q ascending, from 0).
    const int segments = (tile_rows + column_rows - 1) / column_rows;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, segments), [&](const int s) {
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, tile_cols), [&](const int b) {
        const int j = first_col + b, top = s * column_rows;
        const int count = tile_rows - top < column_rows ? tile_rows - top : column_rows;
        if (j >= cols || first_row + top >= rows) return;
        Sum pending[column_rows];
        PORTASOLVE_UNROLL
        for (int k = 0; k < column_rows; ++k) pending[k] = 0;
        for (int t = 0; t < count + 2 * r; ++t) {
          const Sum x = partials(top + t, b);
          PORTASOLVE_UNROLL
          for (int k = 0; k < column_rows; ++k) {
            const int q = t - k;
            if (q >= 0 && q < side) pending[k] += taps.term(q - r, x);
          }
        }
        const bool keep = mode == BorderMode::keep;
        PORTASOLVE_UNROLL
        for (int k = 0; k < column_rows; ++k) {
          const int i = first_row + top + k;
          if (k < count && i < rows) {
            if (keep && (i < r || i >= rows - r || j < r || j >= cols - r))
              out(i, j) = in(i, j);
            else
              out(i, j) = taps.finish(pending[k]);
          }
        }
      });
    });
  }
};

}  // namespace portasolve::smoothing::detail

namespace portasolve::smoothing::detail {

// Tiles covering the image, launched on `exec`. tile_rows, tile_cols: 0 =
// automatic (preferred_cols columns, as many rows as the team scratch allows,
// at most most_rows).
template <class Pixel>
class SeparableTileLauncher {
  using Kernel = SeparableTiles<Pixel>;
  using Policy = typename Kernel::Policy;

 public:
  // Two warps of columns a tile (coalesced rows, 2r halo columns on 64), and
  // rows up to the scratch limit: the r halo rows above and below are loaded
  // by two tiles each.
  enum { preferred_cols = 64, most_rows = 128 };

  // The automatic tile for this window, or tile_rows 0 when none fits.
  static SeparableTileGeometry automatic_geometry(int radius, std::int64_t rows, std::int64_t cols) {
    SeparableTileGeometry g;
    g.radius = radius;
    g.tile_cols = static_cast<int>(std::min<std::int64_t>(preferred_cols, cols));
    const std::size_t limit = static_cast<std::size_t>(Policy::scratch_size_max(0));
    const int tallest = static_cast<int>(std::min<std::int64_t>(most_rows, rows));
    for (g.tile_rows = 1; g.tile_rows < tallest; ++g.tile_rows) {
      SeparableTileGeometry taller = g;
      ++taller.tile_rows;
      if (Kernel::scratch_bytes(taller) > limit) break;
    }
    if (Kernel::scratch_bytes(g) > limit) g.tile_rows = 0;
    return g;
  }

  SeparableTileLauncher(const ExecSpace& exec, const Kernel& kernel, int radius, std::int64_t rows, std::int64_t cols,
                        int tile_rows, int tile_cols)
      : kernel_(kernel) {
    SeparableTileGeometry& g = kernel_.geometry;
    g = automatic_geometry(radius, rows, cols);
    if (tile_cols > 0) g.tile_cols = tile_cols;
    if (tile_rows > 0) g.tile_rows = tile_rows;
    if (g.tile_rows == 0) g.tile_rows = 1;
    const std::size_t limit = static_cast<std::size_t>(Policy::scratch_size_max(0));
    const std::size_t bytes = Kernel::scratch_bytes(g);
    if (bytes > limit)
      throw OptionError(tile_rows > 0 || tile_cols > 0 ? "tile_rows" : "separable_kernel",
                        "separable smoothing in one launch: a " + std::to_string(g.region_rows()) + "x" +
                            std::to_string(g.region_cols()) + " region (tile plus halo " + std::to_string(radius) +
                            ") needs " + std::to_string(bytes) + " bytes of team scratch, this backend allows " +
                            std::to_string(limit) + ": use a smaller tile or separable_kernel two_launches");
    g.tiles_down = ceil_div(rows, g.tile_rows);
    g.tiles_across = ceil_div(cols, g.tile_cols);
    const int vector = host_execution ? 1 : std::min(Policy::vector_length_max(), 32);
    const int team = host_execution ? 1 : 8;
    policy_ = Policy(exec, g.tiles_down * g.tiles_across, team, vector).set_scratch_size(0, Kokkos::PerTeam(bytes));
  }

  void launch(const View2D<const Pixel>& in, const View2D<Pixel>& out) {
    kernel_.in = in;
    kernel_.out = out;
    Kokkos::parallel_for("smoothing_separable_tiles", policy_, kernel_);
  }
  const SeparableTileGeometry& geometry() const { return kernel_.geometry; }

 private:
  Kernel kernel_;
  Policy policy_;
};

}  // namespace portasolve::smoothing::detail
