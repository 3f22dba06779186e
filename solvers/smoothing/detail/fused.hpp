#pragma once
// Temporal blocking: each team copies its tile plus a halo of k*r pixels into
// team scratch, runs up to k passes there and writes back only the tile.
// After s passes the pixels within s*r of the region's edges inside the image
// are stale, so a halo of k*r leaves the tile exact. Past the image's edges
// the region holds the extension the border mode defines, refreshed after
// every pass (wrap: loaded periodically, so the region is a piece of the
// periodic image and needs no refresh). Each pixel is computed with the same
// operations in the same order as the single-pass kernels, so k fused passes
// equal k single passes bit for bit.
#include <cstdint>

#include "core/spaces.hpp"
#include "solvers/smoothing/detail/border.hpp"
#include "solvers/smoothing/detail/column_walk.hpp"
#include "solvers/smoothing/detail/single_pass.hpp"
#include "solvers/smoothing/detail/taps.hpp"

namespace portasolve::smoothing::detail {

struct FusedGeometry {
  int tile_rows, tile_cols;  // pixels each team writes
  int halo;                  // k * r
  int tiles_down, tiles_across;
  int segment_rows;         // rows one thread walks per column (2-D kernels)
  int first_row, last_row;  // the output rows the launch covers
  KOKKOS_INLINE_FUNCTION int region_rows() const { return tile_rows + 2 * halo; }
  KOKKOS_INLINE_FUNCTION int region_cols() const { return tile_cols + 2 * halo; }
};

// The region's points a pass updates, [row_begin, row_end) x [col_begin, col_end).
struct UpdateRectangle {
  int row_begin, row_end, col_begin, col_end;
};

template <class Pixel, int FixedRadius>
struct FusedSmoothing {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = Policy::member_type;
  using Sum = typename DeviceTaps<Pixel>::Sum;
  template <class Value, class Shape>
  using Scratch = Kokkos::View<Shape, Kokkos::LayoutRight, ExecSpace::scratch_memory_space,
                               Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using Planes = Scratch<Pixel, Pixel***>;  // 2-D kernels: ping-pong; separable: one, updated in place
  using Partials = Scratch<Sum, Sum**>;     // separable: the pass along rows

  View2D<const Pixel> in;
  View2D<Pixel> out;
  DeviceTaps<Pixel> taps;
  Border<Pixel> border;
  bool separable = false;
  FusedGeometry geometry{};
  int passes = 0;  // this launch's, at most halo / r

  static std::size_t scratch_bytes(const FusedGeometry& g, bool separable) {
    const std::size_t planes = Planes::shmem_size(separable ? 1 : 2, g.region_rows(), g.region_cols());
    return planes + (separable ? Partials::shmem_size(g.region_rows(), g.region_cols()) : 0);
  }

  KOKKOS_INLINE_FUNCTION UpdateRectangle update_rectangle(int r, int row0, int col0) const {
    const int rows = static_cast<int>(in.extent(0)), cols = static_cast<int>(in.extent(1));
    const int region_rows = geometry.region_rows(), region_cols = geometry.region_cols();
    UpdateRectangle u{r, region_rows - r, r, region_cols - r};
    if (border.mode != BorderMode::wrap) {  // only pixels of the image (keep: those whose window is inside)
      const int margin = border.mode == BorderMode::keep ? r : 0;
      u.row_begin = u.row_begin > margin - row0 ? u.row_begin : margin - row0;
      u.row_end = u.row_end < rows - margin - row0 ? u.row_end : rows - margin - row0;
      u.col_begin = u.col_begin > margin - col0 ? u.col_begin : margin - col0;
      u.col_end = u.col_end < cols - margin - col0 ? u.col_end : cols - margin - col0;
    }
    return u;
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const int rows = static_cast<int>(in.extent(0)), cols = static_cast<int>(in.extent(1));
    const int region_rows = geometry.region_rows(), region_cols = geometry.region_cols();
    const int r = FixedRadius > 0 ? FixedRadius : taps.radius;
    const int row0 =
        geometry.first_row + (team.league_rank() / geometry.tiles_across) * geometry.tile_rows - geometry.halo;
    const int col0 = (team.league_rank() % geometry.tiles_across) * geometry.tile_cols - geometry.halo;
    const Planes planes(team.team_scratch(0), separable ? 1 : 2, region_rows, region_cols);
    const Partials partials(team.team_scratch(0), separable ? region_rows : 0, separable ? region_cols : 0);
    const BorderMode mode = border.mode;

    // Pixels no pass writes (outside the updated rectangle) go into both
    // planes, so passes need no per-pixel branches.
    for_region(team, 0, region_rows, 0, region_cols, [&](const int a, const int b) {
      const Pixel value = extended_pixel<Pixel>(in, border, row0 + a, col0 + b, rows, cols);
      planes(0, a, b) = value;
      if (!separable) planes(1, a, b) = value;
    });
    team.team_barrier();

    const UpdateRectangle u = update_rectangle(r, row0, col0);
    // Only regions reaching past the image's edges hold an extension to refresh.
    const bool crosses_edge = row0 < 0 || col0 < 0 || row0 + region_rows > rows || col0 + region_cols > cols;
    const bool refresh =
        crosses_edge && (mode == BorderMode::nearest || mode == BorderMode::reflect || mode == BorderMode::mirror);
    int current = 0;
    for (int s = 0; s < passes; ++s) {
      if (separable) {
        for_region(team, u.row_begin - r, u.row_end + r, u.col_begin, u.col_end, [&](const int a, const int b) {
          Sum sum = 0;
          for (int q = -r; q <= r; ++q) sum += taps.term(q, static_cast<Sum>(planes(0, a, b + q)));
          partials(a, b) = taps.partial(sum);
        });
        team.team_barrier();
        for_region(team, u.row_begin, u.row_end, u.col_begin, u.col_end, [&](const int a, const int b) {
          Sum sum = 0;
          for (int q = -r; q <= r; ++q) sum += taps.term(q, partials(a + q, b));
          planes(0, a, b) = taps.finish(sum);
        });
      } else {
        sweep_2d(team, planes, u, current, current ^ 1);
        current ^= 1;
      }
      team.team_barrier();
      if (refresh) {
        for_region(team, 0, region_rows, 0, region_cols, [&](const int a, const int b) {
          const int i = row0 + a, j = col0 + b;
          if (i >= 0 && i < rows && j >= 0 && j < cols) return;
          const int from_a = fold_index(i, rows, mode) - row0, from_b = fold_index(j, cols, mode) - col0;
          if (from_a >= 0 && from_a < region_rows && from_b >= 0 && from_b < region_cols)
            planes(current, a, b) = planes(current, from_a, from_b);
        });
        team.team_barrier();
      }
    }

    const int halo = geometry.halo;
    for_region(team, halo, halo + geometry.tile_rows, halo, halo + geometry.tile_cols, [&](const int a, const int b) {
      const int i = row0 + a, j = col0 + b;
      if (i < geometry.last_row && j < cols) out(i, j) = planes(current, a, b);
    });
  }

  template <class Body>
  KOKKOS_INLINE_FUNCTION static void for_region(const Member& team, int row_begin, int row_end, int col_begin,
                                                int col_end, const Body& body) {
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, row_begin, row_end), [&](const int a) {
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, col_begin, col_end), [&](const int b) { body(a, b); });
    });
  }

  // One 2-D pass from plane `from` to plane `to`.
  KOKKOS_INLINE_FUNCTION void sweep_2d(const Member& team, const Planes& planes, const UpdateRectangle& u,
                                       const int from, const int to) const {
    if constexpr (FixedRadius > 0) {
      // Each thread walks a column segment keeping the pending sums of 2r+1
      // output rows in registers: every input row is read from scratch once
      // per column instead of 2r+1 times.
      const int width = u.col_end - u.col_begin, height = u.row_end - u.row_begin;
      if (width <= 0 || height <= 0) return;
      const int segment = geometry.segment_rows;
      const int segments = (height + segment - 1) / segment;
      Kokkos::parallel_for(Kokkos::TeamVectorRange(team, width * segments), [&](const int t) {
        const int b = u.col_begin + t % width;
        const int first = u.row_begin + (t / width) * segment;
        const int last = first + segment < u.row_end ? first + segment : u.row_end;
        walk_column<FixedRadius>(
            taps, b, first, last, [&](const int y, const int x) { return planes(from, y, x); },
            [&](const int row, const Pixel value) { planes(to, row, b) = value; });
      });
    } else {
      for_region(team, u.row_begin, u.row_end, u.col_begin, u.col_end, [&](const int a, const int b) {
        planes(to, a, b) =
            taps.finish(taps.window_sum([&](const int p, const int q) { return planes(from, a + p, b + q); }));
      });
    }
  }
};

}  // namespace portasolve::smoothing::detail
