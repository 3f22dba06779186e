#pragma once
// Launch geometry of the fused kernels: tiles (fused.hpp) for any window, and
// streamed bands (streaming.hpp) for 2-D windows of fixed radius, whose top
// and bottom rows go to tiles.
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "core/errors.hpp"
#include "core/grid_range.hpp"
#include "core/spaces.hpp"
#include "solvers/smoothing/detail/fused.hpp"
#include "solvers/smoothing/detail/streaming.hpp"
#include "solvers/smoothing/options.hpp"

namespace portasolve::smoothing::detail {

[[noreturn]] inline void scratch_too_small(const std::string& what, std::size_t bytes, std::size_t limit) {
  throw OptionError("passes_per_launch", "fused smoothing: " + what + " needs " + std::to_string(bytes) +
                                             " bytes of team scratch, this backend allows " + std::to_string(limit) +
                                             ": use a smaller tile or fewer passes per launch");
}

// Tiles covering output rows [first_row, last_row), every column, launched
// on `exec` (the launchers below take the instance the same way: their
// policies carry it, so every launch is ordered on it).
template <class Pixel, int FixedRadius>
class FusedLauncher {
  using Kernel = FusedSmoothing<Pixel, FixedRadius>;
  using Policy = typename Kernel::Policy;

 public:
  // tile_rows, tile_cols: 0 = automatic (as tall as the span allows, then
  // as wide as the team scratch allows).
  FusedLauncher(const ExecSpace& exec, Kernel kernel, std::int64_t cols, int tile_rows, int tile_cols, int k,
                int first_row, int last_row)
      : kernel_(kernel) {
    const int r = kernel.taps.radius, halo = k * r, span = last_row - first_row;
    const std::size_t limit = static_cast<std::size_t>(Policy::scratch_size_max(0));
    const auto fits = [&](int rows, int columns) {
      return Kernel::scratch_bytes(geometry(rows, columns, halo, cols, first_row, last_row), kernel.separable) <= limit;
    };
    if (tile_rows == 0) {
      int side = 1;
      while (side < span && fits(side + 1, tile_cols > 0 ? tile_cols : side + 1)) ++side;
      tile_rows = side;
    }
    if (tile_cols == 0) {
      tile_cols = 1;
      while (tile_cols < cols && fits(tile_rows, tile_cols + 1)) ++tile_cols;
    }
    kernel_.geometry = geometry(tile_rows, tile_cols, halo, cols, first_row, last_row);
    const std::size_t scratch = Kernel::scratch_bytes(kernel_.geometry, kernel.separable);
    if (scratch > limit)
      scratch_too_small("a " + std::to_string(kernel_.geometry.region_rows()) + "x" +
                            std::to_string(kernel_.geometry.region_cols()) + " region (tile plus halo " +
                            std::to_string(halo) + ")",
                        scratch, limit);
    const int vector = host_execution ? 1 : std::min(Policy::vector_length_max(), 32);
    const int team = host_execution ? 1 : 8;
    const int height = kernel_.geometry.region_rows() - 2 * r, width = kernel_.geometry.region_cols() - 2 * r;
    const int segments = std::max(1, std::min(height, team * vector / std::max(1, width)));
    kernel_.geometry.segment_rows = std::max(1, (height + segments - 1) / segments);
    policy_ = Policy(exec, kernel_.geometry.tiles_down * kernel_.geometry.tiles_across, team, vector)
                  .set_scratch_size(0, Kokkos::PerTeam(scratch));
  }

  void launch(const View2D<const Pixel>& in, const View2D<Pixel>& out, int passes) {
    kernel_.in = in;
    kernel_.out = out;
    kernel_.passes = passes;
    Kokkos::parallel_for("smoothing_fused", policy_, kernel_);
  }
  const FusedGeometry& geometry() const { return kernel_.geometry; }

 private:
  static FusedGeometry geometry(int tile_rows, int tile_cols, int halo, std::int64_t cols, int first_row,
                                int last_row) {
    return FusedGeometry{
        tile_rows, tile_cols, halo,    ceil_div(last_row - first_row, tile_rows), ceil_div(cols, tile_cols),
        1,         first_row, last_row};
  }

  Kernel kernel_;
  Policy policy_;
};

// Passes a streamed launch can carry (registers per column grow with it).
constexpr int streamed_levels = 8;

// Bands streaming the rows k R inside the top and bottom edges; tiles for
// those edge rows.
template <class Pixel, int R>
class StreamingLauncher {
  using Kernel = StreamingSmoothing<Pixel, R, streamed_levels>;
  using Policy = typename Kernel::Policy;
  using Tiles = FusedLauncher<Pixel, R>;

 public:
  // Columns per band (a thread each) unless the scratch or registers allow
  // fewer, and output rows per team: measured on an H100 (BENCHMARKS.md).
  enum { preferred_band = 512, preferred_strip = 256 };

  static bool applicable(std::int64_t rows, int k) { return k <= streamed_levels && rows > 2 * k * R; }

  StreamingLauncher(const ExecSpace& exec, const Kernel& kernel, const FusedSmoothing<Pixel, R>& tiles,
                    std::int64_t rows, std::int64_t cols, const SmoothingOptions& options, int k)
      : kernel_(kernel),
        top_(exec, tiles, cols, 0, 0, k, 0, k * R),
        bottom_(exec, tiles, cols, 0, 0, k, static_cast<int>(rows) - k * R, static_cast<int>(rows)) {
    StreamGeometry& g = kernel_.geometry;
    g.halo = k * R;
    g.levels = k;
    g.first_row = g.halo;
    g.last_row = static_cast<int>(rows) - g.halo;
    const std::size_t limit = static_cast<std::size_t>(Policy::scratch_size_max(0));
    if (options.tile_cols > 0) {
      g.band_cols = options.tile_cols + 2 * g.halo;
    } else {
      const int needed = static_cast<int>((cols + 2 * g.halo + 63) / 64 * 64);
      g.band_cols = std::min<int>(preferred_band, needed);
      while (g.band_cols > 2 * g.halo + 64 && Kernel::rows_bytes(g) > limit) g.band_cols -= 64;
    }
    if (Kernel::rows_bytes(g) > limit)
      scratch_too_small("a band of " + std::to_string(g.band_cols) + " columns and " + std::to_string(k) + " levels",
                        Kernel::rows_bytes(g), limit);
    int team = 1;
    if constexpr (!host_execution) {
      team = g.band_cols;
      const int most = Policy(1, 1)
                           .set_scratch_size(0, Kokkos::PerTeam(Kernel::rows_bytes(g)))
                           .team_size_max(kernel_, Kokkos::ParallelForTag());
      if (team > most) {
        if (options.tile_cols > 0)
          throw OptionError("tile_cols", "fused smoothing: a band of " + std::to_string(g.band_cols) +
                                             " columns (tile plus halo) needs a thread each, this backend allows " +
                                             std::to_string(most) + " threads per team: use a smaller tile");
        team = g.band_cols = most / 32 * 32;
      }
    }
    g.strip_rows = options.tile_rows > 0 ? options.tile_rows : preferred_strip;
    g.bands = ceil_div(cols, g.output_cols());
    g.strips = ceil_div(g.last_row - g.first_row, g.strip_rows);
    policy_ = Policy(exec, g.bands * g.strips, team, 1).set_scratch_size(0, Kokkos::PerTeam(Kernel::rows_bytes(g)));
    if (host_execution) policy_.set_scratch_size(1, Kokkos::PerTeam(Kernel::columns_bytes(g)));
  }

  void launch(const View2D<const Pixel>& in, const View2D<Pixel>& out, int passes) {
    kernel_.in = in;
    kernel_.out = out;
    kernel_.passes = passes;
    Kokkos::parallel_for("smoothing_streamed", policy_, kernel_);
    top_.launch(in, out, passes);
    bottom_.launch(in, out, passes);
  }
  const StreamGeometry& geometry() const { return kernel_.geometry; }

 private:
  Kernel kernel_;
  Tiles top_, bottom_;
  Policy policy_;
};

}  // namespace portasolve::smoothing::detail
