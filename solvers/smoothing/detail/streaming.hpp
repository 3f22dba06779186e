#pragma once
// Temporal blocking by streaming, for windows of fixed radius R: a team owns
// a band of columns, one column per thread, and walks a strip of rows down,
// one row per step. Level 0 is the input; level p (1..k) is the output of
// pass p. At step t level 0 takes row s + t, and every level p reads the row
// level p-1 wrote at step t-1 (team scratch, two slots per level), adds it
// to its column's pending window sums (registers) and finishes row
// s + t - p (R + 1). One barrier a step serves all k levels, and a pixel of a
// pass costs 2R scratch reads and one write, where the tile kernel
// (fused.hpp) reads whole windows from scratch with a barrier per pass.
//
// The k R columns at each side of a band and the k R rows at each end of a
// strip are halo, computed again by the neighbouring teams. Past the image's
// left and right edges a column evaluates the window of the column the border
// mode folds it onto (wrap: the band is a piece of the periodic image). The
// strips stay k R rows inside the image: the launcher gives the top and
// bottom rows to the tile kernel. Sums are built as in walk_column, so the
// results equal single passes bit for bit.
#include "core/spaces.hpp"
#include "core/unroll.hpp"
#include "solvers/smoothing/detail/border.hpp"
#include "solvers/smoothing/detail/single_pass.hpp"
#include "solvers/smoothing/detail/taps.hpp"

namespace portasolve::smoothing::detail {

struct StreamGeometry {
  int band_cols = 0;                // threads per team: output columns plus 2 halo
  int halo = 0;                     // k R
  int levels = 0;                   // k: scratch rows are kept for levels 0..k-1
  int strip_rows = 0;               // output rows per team
  int first_row = 0, last_row = 0;  // the streamed output rows [first_row, last_row)
  int bands = 0, strips = 0;
  KOKKOS_INLINE_FUNCTION int output_cols() const { return band_cols - 2 * halo; }
};

template <class Pixel, int R, int MaxLevels>
struct StreamingSmoothing {
  // No launch bounds: measured on an H100, capping registers for two teams
  // of 512 an SM (64 a thread) spilled and ran 1.17x slower.
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  using Sum = typename DeviceTaps<Pixel>::Sum;
  template <class Shape>
  using Scratch = Kokkos::View<Shape, Kokkos::LayoutRight, ExecSpace::scratch_memory_space,
                               Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using Rows = Scratch<Pixel***>;  // level, slot (step parity), band column
  enum { window = 2 * R + 1 };

  // compute: evaluates the window at band column `position`; keep: a pixel
  // the keep mode never changes; fixed: the constant extension; idle: level 0
  // only (band edges, whose windows leave the band, and keep's outside).
  enum class Role { compute, keep, fixed, idle };
  struct Plan {
    Role role;
    int position;  // band column whose window a compute column evaluates
    int source;    // image column level 0 comes from; -1: none
  };

  // A column's state between steps: registers on GPUs (a thread per column;
  // measured on an H100, two columns a thread needed 128 registers and ran
  // 1.7x slower), level-1 scratch on hosts (a team is one thread walking
  // every column of the band).
  struct Column {
    Plan plan;
    Pixel center[MaxLevels];        // newest pixel of levels 0..k-1
    Sum pending[MaxLevels][2 * R];  // pass p+1's unfinished window sums, oldest first
    Pixel incoming;                 // the next input pixel, loaded a step ahead
  };
  using Columns = Scratch<Column*>;

  View2D<const Pixel> in;
  View2D<Pixel> out;
  DeviceTaps<Pixel> taps;
  Border<Pixel> border;
  StreamGeometry geometry;
  int passes = 0;  // this launch's, 1..levels

  static std::size_t rows_bytes(const StreamGeometry& g) { return Rows::shmem_size(g.levels, 2, g.band_cols); }
  static std::size_t columns_bytes(const StreamGeometry& g) {
    return host_execution ? Columns::shmem_size(g.band_cols) : 0;
  }

  KOKKOS_INLINE_FUNCTION Plan plan(const int c, const int c0) const {
    const int cols = static_cast<int>(in.extent(1)), j = c0 + c;
    const BorderMode mode = border.mode;
    Plan p{Role::compute, c, j};
    if (j >= 0 && j < cols) {
      if (mode == BorderMode::keep && (j < R || j >= cols - R)) p.role = Role::keep;
    } else if (mode == BorderMode::constant) {
      p.role = Role::fixed;
      p.source = -1;
    } else if (mode == BorderMode::keep) {
      p.role = Role::idle;
      p.source = -1;
    } else {
      p.source = fold_index(j, cols, mode);
      if (mode != BorderMode::wrap) p.position = p.source - c0;
    }
    if (p.role == Role::compute && (p.position < R || p.position >= geometry.band_cols - R)) p.role = Role::idle;
    return p;
  }

  KOKKOS_INLINE_FUNCTION Pixel input(const Plan& p, const int row) const {
    if (p.role == Role::fixed) return border.constant;
    return p.source >= 0 ? in(row, p.source) : Pixel(0);
  }

  // Adds a row of the level below (x: the window's pixels in that row) to the
  // pending sums; returns the finished sum of the output row R above it. The
  // sums grow as DeviceTaps::window_sum's: row sums, top row first.
  template <bool Unit>
  KOKKOS_INLINE_FUNCTION Sum feed(Sum (&pending)[2 * R], const Pixel (&x)[window]) const {
    Sum unit_row{};
    if constexpr (Unit) {
      PORTASOLVE_UNROLL
      for (int q = 0; q < window; ++q) unit_row = q == 0 ? static_cast<Sum>(x[q]) : unit_row + static_cast<Sum>(x[q]);
    }
    const auto row_term = [&](const int offset) {
      if constexpr (Unit) {
        return unit_row;
      } else {
        Sum row = 0;  // from 0, as DeviceTaps::window_sum
        PORTASOLVE_UNROLL
        for (int q = 0; q < window; ++q) row += taps.term(offset, q - R, x[q]);
        return row;
      }
    };
    const Sum finished = pending[0] + row_term(R);
    PORTASOLVE_UNROLL
    for (int i = 1; i < 2 * R; ++i) pending[i - 1] = pending[i] + row_term(R - i);
    pending[2 * R - 1] = row_term(-R);
    return finished;
  }

  struct Strip {
    int c0, first, last, start;  // band's first image column; output rows [first, last); level 0's first row
  };

  KOKKOS_INLINE_FUNCTION void emit(const Strip& strip, const int c, const int y, const Pixel value) const {
    const int j = strip.c0 + c;
    if (y >= strip.first && y < strip.last && c >= geometry.halo && c < geometry.band_cols - geometry.halo &&
        j < static_cast<int>(in.extent(1)))
      out(y, j) = value;
  }

  // One step of column c. Levels from the last down, so each reads the pixel
  // its lower level wrote last step before that level replaces it; then
  // level 0 takes the pixel loaded last step and loads the next one.
  template <bool Unit>
  KOKKOS_INLINE_FUNCTION void step(Column& column, const Rows& rows, const Strip& strip, const int c,
                                   const int t) const {
    const Plan& plan = column.plan;
    const int current = t & 1, previous = current ^ 1;
    PORTASOLVE_UNROLL
    for (int p = MaxLevels; p >= 1; --p) {
      if (p > passes) continue;
      const int y = strip.start + t - p * (R + 1);  // the row level p finishes
      Pixel value;
      if (plan.role == Role::compute) {
        Pixel x[window];
        PORTASOLVE_UNROLL
        for (int q = 0; q < window; ++q)
          x[q] = q == R ? column.center[p - 1] : rows(p - 1, previous, plan.position - R + q);
        value = taps.finish(feed<Unit>(column.pending[p - 1], x));
      } else if (plan.role == Role::keep) {
        value = y >= 0 && y < static_cast<int>(in.extent(0)) ? in(y, strip.c0 + c) : Pixel(0);
      } else if (plan.role == Role::fixed) {
        value = border.constant;
      } else {
        value = column.center[p - 1];  // idle: never read by a kept pixel
      }
      if (p == passes || p == MaxLevels) {  // (passes <= MaxLevels)
        emit(strip, c, y, value);
      } else {
        rows(p, current, c) = value;
        column.center[p] = value;
      }
    }
    rows(0, current, c) = column.center[0] = column.incoming;
    const int next = strip.start + t + 1;
    if (next < strip.last + geometry.halo) column.incoming = input(plan, next);
  }

  KOKKOS_INLINE_FUNCTION void start(Column& column, const Rows& rows, const Strip& strip, const int c) const {
    column.plan = plan(c, strip.c0);
    PORTASOLVE_UNROLL
    for (int p = 0; p < MaxLevels; ++p) {
      column.center[p] = 0;
      PORTASOLVE_UNROLL
      for (int i = 0; i < 2 * R; ++i) column.pending[p][i] = 0;
    }
    for (int level = 0; level < geometry.levels; ++level) rows(level, 0, c) = rows(level, 1, c) = 0;
    column.incoming = input(column.plan, strip.start);
  }

  template <bool Unit>
  KOKKOS_INLINE_FUNCTION void walk(const Member& team, const Strip& strip) const {
    const Rows rows(team.team_scratch(0), geometry.levels, 2, geometry.band_cols);
    const int steps = (strip.last - strip.first) + geometry.halo + passes * (R + 1);
    if constexpr (host_execution) {
      const Columns columns(team.team_scratch(1), geometry.band_cols);
      for (int c = 0; c < geometry.band_cols; ++c) start(columns(c), rows, strip, c);
      for (int t = 0; t < steps; ++t)
        for (int c = 0; c < geometry.band_cols; ++c) step<Unit>(columns(c), rows, strip, c, t);
    } else {
      const int c = team.team_rank();
      Column column;
      start(column, rows, strip, c);
      team.team_barrier();
      for (int t = 0; t < steps; ++t) {
        step<Unit>(column, rows, strip, c, t);
        team.team_barrier();
      }
    }
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const int band = team.league_rank() % geometry.bands, index = team.league_rank() / geometry.bands;
    Strip strip;
    strip.c0 = band * geometry.output_cols() - geometry.halo;
    strip.first = geometry.first_row + index * geometry.strip_rows;
    strip.last =
        strip.first + geometry.strip_rows < geometry.last_row ? strip.first + geometry.strip_rows : geometry.last_row;
    strip.start = strip.first - geometry.halo;
    if (taps.unit_weights)
      walk<true>(team, strip);
    else
      walk<false>(team, strip);
  }
};

}  // namespace portasolve::smoothing::detail
