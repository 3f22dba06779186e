#pragma once
// Both 1-D passes of a separable window in one launch, a thread per column:
// a team owns `columns` adjacent columns (one per thread) of a strip of
// `strip_rows` output rows and walks down the strip's input rows (r more
// above and below) a batch of rows at a time. Each batch (plus r halo
// columns each side, extended as the border mode defines) is copied into
// team scratch; a thread turns its column's row of the batch into the
// partial along rows (2r+1 scratch reads) and adds that partial, as the term
// it is, to each of the 2r+1 outputs of its column it belongs to, held in
// registers. An output is complete when its last row's partial arrives.
//
// Why (issue 25): the tiles of separable_tiles.hpp stage the whole tile and
// its partials in scratch (tens of KiB a team, few teams per SM) and load it
// in one latency-bound sweep before any arithmetic, which held a Gaussian of
// sigma 1 at 0.18 of the copy bandwidth on an H100. Here a team needs one
// batch of rows (about 5 KiB in float), the next batch's loads are in flight
// while the current one is summed, and the sums along columns never touch
// scratch. The taps are indexed by compile-time positions once the loops
// unroll for the radius tier, so they stay kernel constants.
//
// Each partial and each output is summed term by term in SmoothSeparable's
// order (from 0, left to right along rows, top to bottom along columns) from
// the same values in the same types, so results equal the two-launch path's
// bit for bit. Term q - r of a window is taps.near[q] (the launcher checks
// that taps.radius is r and the weights travel with the kernel).
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "core/errors.hpp"
#include "core/grid_range.hpp"
#include "core/spaces.hpp"
#include "core/unroll.hpp"
#include "solvers/smoothing/detail/border.hpp"
#include "solvers/smoothing/detail/single_pass.hpp"
#include "solvers/smoothing/detail/taps.hpp"

namespace portasolve::smoothing::detail {

struct SeparableColumnGeometry {
  int columns = 0;     // output columns a team writes: one per thread
  int strip_rows = 0;  // output rows a team writes
  int radius = 0;
  int strips_down = 0, strips_across = 0;
  KOKKOS_INLINE_FUNCTION int input_rows() const { return strip_rows + 2 * radius; }
  KOKKOS_INLINE_FUNCTION int region_cols() const { return columns + 2 * radius; }
};

// MaxRadius: the radius tier the loops unroll for (the window's radius is at
// most this; Exact: it is this, so no position needs a predicate, which on
// the H100 was a third of the instructions of a row);
// most this; positions past 2 radius are predicated off).
template <class Pixel, int MaxRadius, bool Exact>
struct SeparableColumns {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  using Sum = typename DeviceTaps<Pixel>::Sum;
  using Rows = Kokkos::View<Pixel**, Kokkos::LayoutRight, ExecSpace::scratch_memory_space,
                            Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  // Input rows a batch holds: a barrier pair per batch, and the batch's
  // loads fit in registers (a row each for the thread's own column, and
  // halo_slots for the 2r columns past the team's last).
  enum { batch_rows = 8, batch_shift = 3, halo_slots = 2, positions = 2 * MaxRadius + 1 };
  static_assert(1 << batch_shift == batch_rows, "batch_rows is 2^batch_shift");

  View2D<const Pixel> in;
  View2D<Pixel> out;
  DeviceTaps<Pixel> taps;
  Border<Pixel> border;
  SeparableColumnGeometry geometry{};

  static std::size_t scratch_bytes(const SeparableColumnGeometry& g) {
    return Rows::shmem_size(batch_rows, g.region_cols());
  }

  // A batch's pixels in flight: region column `rank` of each of its rows,
  // and halo element x = rank + m columns (m < halo_slots), which is row
  // x % batch_rows of region column columns + x / batch_rows (shifts, not
  // divisions).
  struct Prefetch {
    Pixel own[batch_rows];
    Pixel halo[halo_slots];
  };

  KOKKOS_INLINE_FUNCTION Pixel region_pixel(int row0, int col0, int a, int c) const {
    return extended_pixel<Pixel>(in, border, row0 + a, col0 + c, static_cast<int>(in.extent(0)),
                                 static_cast<int>(in.extent(1)));
  }

  // Whether the halo's loads fit the registers (GPU teams of many threads);
  // otherwise (host teams of a thread or two) the batch is copied directly.
  KOKKOS_INLINE_FUNCTION bool prefetched() const {
    return 2 * geometry.radius * batch_rows <= halo_slots * geometry.columns;
  }

  KOKKOS_INLINE_FUNCTION void load(Prefetch& regs, int rank, int row0, int col0, int batch_first, int count) const {
    PORTASOLVE_UNROLL
    for (int a = 0; a < batch_rows; ++a)
      if (a < count) regs.own[a] = region_pixel(row0, col0, batch_first + a, rank);
    PORTASOLVE_UNROLL
    for (int m = 0; m < halo_slots; ++m) {
      const int x = rank + m * geometry.columns, a = x & (batch_rows - 1), h = x >> batch_shift;
      if (h < 2 * geometry.radius && a < count)
        regs.halo[m] = region_pixel(row0, col0, batch_first + a, geometry.columns + h);
    }
  }

  KOKKOS_INLINE_FUNCTION void store(const Prefetch& regs, const Rows& rows, int rank, int count) const {
    PORTASOLVE_UNROLL
    for (int a = 0; a < batch_rows; ++a)
      if (a < count) rows(a, rank) = regs.own[a];
    PORTASOLVE_UNROLL
    for (int m = 0; m < halo_slots; ++m) {
      const int x = rank + m * geometry.columns, a = x & (batch_rows - 1), h = x >> batch_shift;
      if (h < 2 * geometry.radius && a < count) rows(a, geometry.columns + h) = regs.halo[m];
    }
  }

  KOKKOS_INLINE_FUNCTION void copy(const Rows& rows, int rank, int row0, int col0, int batch_first, int count) const {
    const int width = geometry.region_cols();
    for (int e = rank; e < count * width; e += geometry.columns)
      rows(e / width, e % width) = region_pixel(row0, col0, batch_first + e / width, e % width);
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const int image_rows = static_cast<int>(in.extent(0)), image_cols = static_cast<int>(in.extent(1));
    const int r = Exact ? MaxRadius : geometry.radius, last = 2 * r;
    const int first_row = (team.league_rank() / geometry.strips_across) * geometry.strip_rows;
    const int first_col = (team.league_rank() % geometry.strips_across) * geometry.columns;
    const int row0 = first_row - r, col0 = first_col - r;  // image position of input row 0, region column 0
    const int rows_left = image_rows - first_row + 2 * r;  // the last strip may end at the image's bottom
    const int input_rows = geometry.input_rows() < rows_left ? geometry.input_rows() : rows_left;
    const int rank = team.team_rank();
    const int j = first_col + rank;  // this thread's column
    const Rows rows(team.team_scratch(0), static_cast<int>(batch_rows), geometry.region_cols());
    const bool keep = border.mode == BorderMode::keep;
    const bool keep_column = keep && (j < r || j >= image_cols - r);

    // pending[q]: the output whose window gets the next partial as its
    // term q; pending[last] completes with it.
    Sum pending[positions];
    PORTASOLVE_UNROLL
    for (int q = 0; q < positions; ++q) pending[q] = 0;

    const int batches = (input_rows + batch_rows - 1) / batch_rows;
    const auto rows_in = [&](int batch) {
      const int left = input_rows - batch * batch_rows;
      return left < batch_rows ? left : static_cast<int>(batch_rows);
    };
    const bool in_registers = prefetched();
    Prefetch regs;
    if (in_registers) {
      load(regs, rank, row0, col0, 0, rows_in(0));
      store(regs, rows, rank, rows_in(0));
    } else {
      copy(rows, rank, row0, col0, 0, rows_in(0));
    }
    team.team_barrier();
    for (int batch = 0; batch < batches; ++batch) {
      const int batch_first = batch * batch_rows;
      const bool more = batch + 1 < batches;
      const int next_count = more ? rows_in(batch + 1) : 0;
      if (more && in_registers) load(regs, rank, row0, col0, batch_first + batch_rows, next_count);

      const int count = rows_in(batch);
      for (int a = 0; a < count; ++a) {
        // Along the row: SmoothSeparable::row_sum's terms, from 0, left first.
        Sum sum = 0;
        PORTASOLVE_UNROLL
        for (int q = 0; q < positions; ++q)
          if (q <= last) sum += taps.near[q] * static_cast<Sum>(rows(a, rank + q));  // term q - r
        const Sum partial = taps.partial(sum);
        // Down the column: this partial is term q of the output q rows above
        // the newest; terms arrive in q order, each sum from 0.
        Sum complete = 0;
        PORTASOLVE_UNROLL
        for (int q = 0; q < positions; ++q) {
          if (q <= last) pending[q] += taps.near[q] * partial;
          if (q == last) complete = pending[q];
        }
        PORTASOLVE_UNROLL
        for (int q = positions - 1; q > 0; --q) pending[q] = pending[q - 1];
        pending[0] = 0;
        const int i = first_row + batch_first + a - last;  // the completed output's row
        if (i >= first_row && j < image_cols) {
          if (keep && (keep_column || i < r || i >= image_rows - r))
            out(i, j) = in(i, j);
          else
            out(i, j) = taps.finish(complete);
        }
      }
      if (!more) break;
      team.team_barrier();  // every thread is done with this batch
      if (in_registers)
        store(regs, rows, rank, next_count);
      else
        copy(rows, rank, row0, col0, batch_first + batch_rows, next_count);
      team.team_barrier();
    }
  }
};

// Strips covering the image, launched on `exec` with the kernel of the radius' tier.
template <class Pixel>
class SeparableColumnLauncher {
 public:
  // Threads (columns) of a GPU team: four warps, coalesced rows of 512 bytes
  // in float with a halo of 2r columns on 128. Output rows of a strip: the
  // r halo rows above and below are read by two strips each (1.125x the
  // input for r = 4 at 64 rows).
  enum { gpu_columns = 128, default_strip_rows = 64, largest_radius = 12 };

  static bool applicable(int radius) { return radius <= largest_radius; }

  SeparableColumnLauncher(const ExecSpace& exec, const DeviceTaps<Pixel>& taps, const Border<Pixel>& border, int radius,
                          std::int64_t rows, std::int64_t cols, int strip_rows, int columns)
      : exec_(exec), taps_(taps), border_(border) {
    if (!applicable(radius))
      throw OptionError("separable_kernel", "separable_kernel columns: radius " + std::to_string(radius) +
                                                " is above " + std::to_string(largest_radius) +
                                                "; use tiles or two_launches");
    if (!taps.all_inline || taps.radius != radius)
      throw std::logic_error("separable columns: the taps must travel with the kernel, radius " +
                             std::to_string(radius));
    SeparableColumnGeometry& g = geometry_;
    g.radius = radius;
    g.strip_rows = strip_rows > 0 ? strip_rows : default_strip_rows;
    const int team_max = team_size_max(radius);
    g.columns = columns > 0 ? columns : std::min<int>(gpu_columns, team_max);
    if (g.columns > team_max)
      throw OptionError("tile_cols", "separable_kernel columns: " + std::to_string(g.columns) +
                                         " columns a team (one thread each), this backend allows " +
                                         std::to_string(team_max));
    g.strips_down = ceil_div(rows, g.strip_rows);
    g.strips_across = ceil_div(cols, g.columns);
  }

  void launch(const View2D<const Pixel>& in, const View2D<Pixel>& out) const {
    const int r = geometry_.radius;
    // Tiers 2, 4, 8 and 12 (Gaussians of sigma 0.5, 1, 2 and 3 at truncate 4) exactly.
    if (r < 2)
      run<2, false>(in, out);
    else if (r == 2)
      run<2, true>(in, out);
    else if (r < 4)
      run<4, false>(in, out);
    else if (r == 4)
      run<4, true>(in, out);
    else if (r < 8)
      run<8, false>(in, out);
    else if (r == 8)
      run<8, true>(in, out);
    else if (r < 12)
      run<12, false>(in, out);
    else
      run<12, true>(in, out);
  }
  const SeparableColumnGeometry& geometry() const { return geometry_; }

 private:
  template <int Tier, bool Exact>
  SeparableColumns<Pixel, Tier, Exact> kernel(const View2D<const Pixel>& in, const View2D<Pixel>& out) const {
    SeparableColumns<Pixel, Tier, Exact> k;
    k.in = in;
    k.out = out;
    k.taps = taps_;
    k.border = border_;
    k.geometry = geometry_;
    return k;
  }

  template <int Tier, bool Exact>
  void run(const View2D<const Pixel>& in, const View2D<Pixel>& out) const {
    using Kernel = SeparableColumns<Pixel, Tier, Exact>;
    const auto policy =
        typename Kernel::Policy(exec_, geometry_.strips_down * geometry_.strips_across, geometry_.columns, 1)
            .set_scratch_size(0, Kokkos::PerTeam(Kernel::scratch_bytes(geometry_)));
    Kokkos::parallel_for("smoothing_separable_columns", policy, kernel<Tier, Exact>(in, out));
  }

  // The largest team the kernel of this radius' tier may launch with.
  int team_size_max(int radius) const {
    if (radius <= 2) return tier_team_max<2>();
    if (radius <= 4) return tier_team_max<4>();
    if (radius <= 8) return tier_team_max<8>();
    return tier_team_max<12>();  // the predicated kernels, which use the most registers
  }
  template <int Tier>
  int tier_team_max() const {
    using Kernel = SeparableColumns<Pixel, Tier, false>;
    return typename Kernel::Policy(1, Kokkos::AUTO).team_size_max(Kernel{}, Kokkos::ParallelForTag());
  }

  ExecSpace exec_;
  DeviceTaps<Pixel> taps_;
  Border<Pixel> border_;
  SeparableColumnGeometry geometry_{};
};

}  // namespace portasolve::smoothing::detail
