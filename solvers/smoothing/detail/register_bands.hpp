#pragma once
// Temporal blocking in registers, for 3x3 windows. A band is one warp (one
// thread on hosts); each lane owns `columns` adjacent image columns and
// carries all k passes of them down a strip of rows, one input row per step.
// Pass p's new row reaches pass p+1 in the same step through registers, and
// the single neighbour column a lane lacks on each side comes from the next
// lane by a shuffle: no team scratch and no barrier, where the streamed
// bands (streaming.hpp) exchange every level's row through scratch with a
// barrier per step.
//
// Level p finishes row y - p when level 0 takes row y, so a strip starts
// k rows above its first output row. The k columns at each side of a band
// are halo (they go stale one column per level) and are written by the
// neighbouring bands; at the image's left and right edges the border mode
// supplies the missing neighbour at every level instead, so a band there
// needs no halo beyond the edge (wrap, whose neighbour lies at the far edge,
// is left to the other kernels). The strips stay k rows inside the image:
// the launcher gives the top and bottom rows to the tile kernel. Sums are
// built as DeviceTaps::window_sum builds them, so results equal single
// passes bit for bit.
#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

#include "core/errors.hpp"
#include "core/lanes.hpp"
#include "core/spaces.hpp"
#include "core/unroll.hpp"
#include "solvers/smoothing/detail/launchers.hpp"
#include "solvers/smoothing/detail/single_pass.hpp"
#include "solvers/smoothing/detail/taps.hpp"

namespace portasolve::smoothing::detail {

struct RegisterBandGeometry : BandGeometry {
  int first_row = 0, last_row = 0;  // the streamed output rows [first_row, last_row)
};

template <class Pixel, int Levels>
struct RegisterBandSmoothing {
  // Measured on an H100 (BENCHMARKS.md): uncapped, a thread took 146
  // registers and an SM held 12 warps; capped at 128 (four teams of 128 an
  // SM), 16 warps and a launch 1.1x faster, results unchanged.
  enum { team_threads = 128 };
  using Policy = Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<team_threads, 4>>;
  using Member = typename Policy::member_type;
  using Sum = typename DeviceTaps<Pixel>::Sum;
  // Measured on an H100 (BENCHMARKS.md): 4 float columns a lane keep the
  // 2 x 8 x 4 pending sums of a full launch in registers; 8-byte sums take
  // two. Hosts walk wide bands in their caches.
  enum { columns = host_execution ? 64 : (sizeof(Sum) > 4 ? 2 : 4) };
  // Shuffles move 32-bit words at least.
  using Exchanged = std::conditional_t<(sizeof(Pixel) < 4), int, Pixel>;

  View2D<const Pixel> in;
  View2D<Pixel> out;
  DeviceTaps<Pixel> taps;
  Border<Pixel> border;
  RegisterBandGeometry geometry;
  int passes = 0;  // this launch's, 1..Levels

  // Where a band and its lane sit.
  struct Place {
    int first_col;    // image column of the lane's first column
    int band_col;     // its column within the band
    int first, last;  // output rows [first, last)
    int start;        // the row level 0 takes at step 0
    int cols;         // image width
  };

  // The pending window sums of one level: upper[c] is the output row above
  // the newest input row (two rows in), lower[c] the row below it (one).
  struct Pending {
    Sum upper[columns], lower[columns];
  };

  // Adds a row of the level below (x: the window's pixels in that row) to the
  // pending sums and returns the finished sum of the row above it.
  template <bool Unit>
  KOKKOS_INLINE_FUNCTION Sum feed(Sum& upper, Sum& lower, const Pixel left, const Pixel center,
                                  const Pixel right) const {
    const auto row_term = [&](const int a) {
      if constexpr (Unit) {
        return (static_cast<Sum>(left) + static_cast<Sum>(center)) + static_cast<Sum>(right);
      } else {
        Sum row = 0;  // from 0, as DeviceTaps::window_sum
        row += taps.term(a, -1, left);
        row += taps.term(a, 0, center);
        row += taps.term(a, 1, right);
        return row;
      }
    };
    if constexpr (Unit) {
      const Sum row = row_term(0);
      const Sum finished = upper + row;
      upper = lower + row;
      lower = row;
      return finished;
    } else {
      const Sum finished = upper + row_term(1);
      upper = lower + row_term(0);
      lower = row_term(-1);
      return finished;
    }
  }

  // The pixel past the image's edge next to `self`, whose other neighbour is
  // `inner` (keep: any, the pixel is replaced by the input's).
  KOKKOS_INLINE_FUNCTION Pixel past_edge(const Pixel self, const Pixel inner, const int cols) const {
    switch (border.mode) {
      case BorderMode::mirror:
        return cols > 1 ? inner : self;
      case BorderMode::constant:
        return border.constant;
      default:  // nearest, reflect (radius 1: both the edge pixel), keep
        return self;
    }
  }

  // One level: v holds the lane's pixels of the level below on entry and
  // this level's pixels of `row` on return. Edge: the band holds the image's
  // first or last column (a warp-wide choice, so that the bands inside the
  // image run without the border's checks).
  template <bool Unit, bool Edge>
  KOKKOS_INLINE_FUNCTION void level(Pixel (&v)[columns], Pending& pending, const Place& place, const int row) const {
    Pixel left[columns], right[columns];
    left[0] = static_cast<Pixel>(from_lane_below(static_cast<Exchanged>(v[columns - 1])));
    right[columns - 1] = static_cast<Pixel>(from_lane_above(static_cast<Exchanged>(v[0])));
    PORTASOLVE_UNROLL
    for (int c = 1; c < columns; ++c) {
      left[c] = v[c - 1];
      right[c - 1] = v[c];
    }
    if constexpr (Edge) {
      PORTASOLVE_UNROLL
      for (int c = 0; c < columns; ++c) {
        const int j = place.first_col + c;
        const Pixel l = left[c], r = right[c];
        if (j == 0) left[c] = past_edge(v[c], r, place.cols);
        if (j == place.cols - 1) right[c] = past_edge(v[c], l, place.cols);
      }
    }
    PORTASOLVE_UNROLL
    for (int c = 0; c < columns; ++c)
      v[c] = taps.finish(feed<Unit>(pending.upper[c], pending.lower[c], left[c], v[c], right[c]));
    if constexpr (Edge) {
      if (border.mode == BorderMode::keep && row >= 0) {
        PORTASOLVE_UNROLL
        for (int c = 0; c < columns; ++c) {
          const int j = place.first_col + c;
          if (j == 0 || j == place.cols - 1) v[c] = in(row, j);
        }
      }
    }
  }

  KOKKOS_INLINE_FUNCTION void load(Pixel (&v)[columns], const Place& place, const int row) const {
    PORTASOLVE_UNROLL
    for (int c = 0; c < columns; ++c) {
      const int j = place.first_col + c;
      v[c] = j >= 0 && j < place.cols ? in(row, j) : Pixel(0);
    }
  }

  KOKKOS_INLINE_FUNCTION void store(const Pixel (&v)[columns], const Place& place, const int row) const {
    PORTASOLVE_UNROLL
    for (int c = 0; c < columns; ++c) {
      const int j = place.first_col + c, b = place.band_col + c;
      if (b >= geometry.halo && b < geometry.band_cols() - geometry.halo && j < place.cols) out(row, j) = v[c];
    }
  }

  template <bool Unit, bool Edge>
  KOKKOS_INLINE_FUNCTION void walk(const Place& place) const {
    Pending pending[Levels];
    PORTASOLVE_UNROLL
    for (int p = 0; p < Levels; ++p) PORTASOLVE_UNROLL
    for (int c = 0; c < columns; ++c) pending[p].upper[c] = pending[p].lower[c] = 0;
    walk_strip<columns, Levels, Pixel>(
        place.start, place.last - place.first, passes, [&](Pixel(&row)[columns], const int r) { load(row, place, r); },
        [&](Pixel(&row)[columns], const int p, const int r) { level<Unit, Edge>(row, pending[p - 1], place, r); },
        [&](const Pixel(&row)[columns], const int r) { store(row, place, r); });
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const RegisterBandGeometry& g = geometry;
    const int item = team.league_rank() * team.team_size() + team.team_rank();
    if (item >= g.bands * g.strips) return;  // a whole band: no lane waits on a shuffle
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, band_lanes), [&](const int lane) {
      const int band = item % g.bands, strip = item / g.bands;
      Place place;
      place.band_col = lane * columns;
      place.first_col = band * g.output_cols() - g.halo + place.band_col;
      place.first = g.first_row + strip * g.strip_rows;
      place.last = place.first + g.strip_rows < g.last_row ? place.first + g.strip_rows : g.last_row;
      place.start = place.first - passes;
      place.cols = static_cast<int>(in.extent(1));
      const int band_first_col = place.first_col - place.band_col;
      const bool edge = band_first_col <= 0 || band_first_col + g.band_cols() >= place.cols;
      if (taps.unit_weights) {
        if (edge)
          walk<true, true>(place);
        else
          walk<true, false>(place);
      } else {
        if (edge)
          walk<false, true>(place);
        else
          walk<false, false>(place);
      }
    });
  }
};

// Bands streaming the rows k inside the top and bottom edges; tiles for
// those edge rows; every launch on the instance the constructor is given.
template <class Pixel>
class RegisterBandLauncher {
  using Kernel = RegisterBandSmoothing<Pixel, streamed_levels>;
  using Policy = typename Kernel::Policy;
  using Tiles = FusedLauncher<Pixel, 1>;

 public:
  // Output rows per band: measured on an H100 (BENCHMARKS.md: 64 and 128
  // alike, 256 1.09x slower, 512 1.4x uncapped; shorter strips recompute more halo rows).
  enum { preferred_strip = 128 };

  static bool applicable(std::int64_t rows, int k, BorderMode mode) {
    return k <= streamed_levels && rows > 2 * k && mode != BorderMode::wrap;
  }

  RegisterBandLauncher(const ExecSpace& exec, const Kernel& kernel, const FusedSmoothing<Pixel, 1>& tiles,
                       std::int64_t rows, std::int64_t cols, const SmoothingOptions& options, int k)
      : kernel_(kernel),
        top_(exec, tiles, cols, 0, 0, k, 0, k),
        bottom_(exec, tiles, cols, 0, 0, k, static_cast<int>(rows) - k, static_cast<int>(rows)) {
    RegisterBandGeometry& g = kernel_.geometry;
    g.columns = Kernel::columns;
    g.halo = k;
    if (g.output_cols() < 1)
      throw OptionError("passes_per_launch", "fused smoothing: a band of " + std::to_string(g.band_cols()) +
                                                 " columns cannot carry " + std::to_string(k) + " passes per launch");
    g.first_row = k;
    g.last_row = static_cast<int>(rows) - k;
    g.strip_rows = options.tile_rows > 0 ? options.tile_rows : preferred_strip;
    // Band 0's halo lanes on the left lie past the image (the border mode
    // serves column 0), as do the last band's columns past the right edge.
    g.bands = ceil_div(cols, g.output_cols());
    g.strips = ceil_div(g.last_row - g.first_row, g.strip_rows);
    const int team = host_execution ? 1 : Kernel::team_threads / band_lanes;
    policy_ = Policy(exec, ceil_div(static_cast<std::int64_t>(g.bands) * g.strips, team), team, band_lanes);
  }

  void launch(const View2D<const Pixel>& in, const View2D<Pixel>& out, int passes) {
    kernel_.in = in;
    kernel_.out = out;
    kernel_.passes = passes;
    Kokkos::parallel_for("smoothing_register_bands", policy_, kernel_);
    top_.launch(in, out, passes);
    bottom_.launch(in, out, passes);
  }
  const RegisterBandGeometry& geometry() const { return kernel_.geometry; }

 private:
  Kernel kernel_;
  Tiles top_, bottom_;
  Policy policy_;
};

}  // namespace portasolve::smoothing::detail
