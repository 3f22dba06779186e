#pragma once
// Overlapping a halo exchange with the update that needs it. The update runs
// on the whole local array while the ring travels: right at `depth` or more
// (the update's reach: sweeps, or passes times the window's radius) from the
// sides whose ring is in flight. Once the ring has arrived the rim (the
// block's points within `depth` of those sides) is updated again from strips
// copied out of the local array: on each such side the ring, the rim and
// `depth` more points across, the whole length along. The strip's cut edge
// spoils at most `depth` points inward, which stay beyond the rim, and its
// ends are the local array's own, so the rim gets the whole array's values.
#include <array>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "core/grid_range.hpp"
#include "core/spaces.hpp"
#include "distributed/halo_exchange.hpp"

namespace portasolve::distributed {

// Sides in HaloExchange's order: north, south, west, east.
using Sides = std::array<bool, 4>;

// Whether deep rounds (jacobi_blocked, fused smoothing) and multigrid's
// half sweeps overlap their exchange: on devices, whose update runs while the
// host waits on MPI. A host runs the update itself and MPI moves little
// meanwhile, so there the extra work (strips, split launches) is a loss (2 CPU
// ranks: 2% slower jacobi_blocked, 10% slower fused smoothing;
// BENCHMARKS.md). PORTASOLVE_HALO_OVERLAP=1 or 0 (on every rank) turns it on
// or off anywhere (1 also for blocks of any size: overlap_forced): the tests
// run both.
inline bool overlap_forced() {
  const char* setting = std::getenv("PORTASOLVE_HALO_OVERLAP");
  return setting && std::string(setting) == "1";
}
inline bool overlap_exchanges() {
  const char* setting = std::getenv("PORTASOLVE_HALO_OVERLAP");
  return overlap_forced() || (!portasolve::host_execution && !(setting && std::string(setting) == "0"));
}

// The sides whose ring exchange_around() leaves stale for its update.
// exchange_around(): runs `update` on the whole local array x while the second of the two
// exchanges that fill its ring travels (across: west and east; then down:
// north and south the full width, which carries the corners); the sides
// whose ring `update` saw stale are overlapped_sides'. Down is the one overlapped where it
// has neighbours (across completes first: its ring is fresh for the update),
// else across (a process grid one rank tall: down moves nothing).
template <class T>
Sides overlapped_sides(const HaloExchange<T>& across, const HaloExchange<T>& down) {
  const Sides down_sides = down.neighbours(), across_sides = across.neighbours();
  if (down_sides[0] || down_sides[1]) return Sides{down_sides[0], down_sides[1], false, false};
  return Sides{false, false, across_sides[2], across_sides[3]};
}

template <class T, class Update>
void exchange_around(HaloExchange<T>& across, HaloExchange<T>& down, const View2D<T>& x, Update&& update) {
  const Sides stale = overlapped_sides(across, down);
  if (stale[0] || stale[1]) {
    across.exchange(x);
    down.start(x);
    update();
    down.finish(x);
  } else {
    across.start(x);
    update();
    across.finish(x);
    down.exchange(x);
  }
}

struct StripGeometry {
  std::pair<int, int> source_rows, source_cols;  // of the local array, copied into the strip
  std::pair<int, int> rim_rows, rim_cols;        // of the local array, taken from the strip's result
};

// The strips of a local array (its block plus a ring of `ring`) for the
// sides in `sides`; none unless every one of them fits (the block at least
// 2 depth + 1 across those sides, so that the overlapped update left some
// points right).
inline std::vector<StripGeometry> rim_strips(int block_rows, int block_cols, const RingWidths& ring, int depth,
                                             const Sides& sides) {
  const int rows = block_rows + ring.north + ring.south, cols = block_cols + ring.west + ring.east;
  const auto block_row_span = std::make_pair(ring.north, ring.north + block_rows);
  const auto block_col_span = std::make_pair(ring.west, ring.west + block_cols);
  if (depth < 1 || block_rows <= 2 * depth || block_cols <= 2 * depth) return {};
  std::vector<StripGeometry> strips;
  if (sides[0])
    strips.push_back({{0, ring.north + 2 * depth}, {0, cols}, {ring.north, ring.north + depth}, block_col_span});
  if (sides[1])
    strips.push_back({{rows - ring.south - 2 * depth, rows},
                      {0, cols},
                      {rows - ring.south - depth, rows - ring.south},
                      block_col_span});
  if (sides[2])
    strips.push_back({{0, rows}, {0, ring.west + 2 * depth}, block_row_span, {ring.west, ring.west + depth}});
  if (sides[3])
    strips.push_back({{0, rows},
                      {cols - ring.east - 2 * depth, cols},
                      block_row_span,
                      {cols - ring.east - depth, cols - ring.east}});
  return strips;
}

// The strips' arrays, kept between rounds.
template <class T>
class RimStrips {
 public:
  struct Strip {
    StripGeometry where;
    View2D<T> in, out;
  };

  explicit RimStrips(std::vector<StripGeometry> geometry) {
    for (const StripGeometry& g : geometry) {
      const int rows = g.source_rows.second - g.source_rows.first, cols = g.source_cols.second - g.source_cols.first;
      strips_.push_back(
          Strip{g, View2D<T>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("rim_in")), rows, cols),
                View2D<T>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("rim_out")), rows, cols)});
    }
  }

  bool empty() const noexcept { return strips_.empty(); }
  const std::vector<Strip>& strips() const noexcept { return strips_; }

  // A copy of strip s's part of another array of the local array's shape
  // (what the update also reads there, such as the right-hand side).
  View2D<T> cut(const View2D<T>& from, std::size_t s) const {
    const StripGeometry& g = strips_[s].where;
    View2D<T> part(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("rim_part")),
                   g.source_rows.second - g.source_rows.first, g.source_cols.second - g.source_cols.first);
    Kokkos::deep_copy(part, Kokkos::subview(from, g.source_rows, g.source_cols));
    return part;
  }

  // For every strip: its source copied out of `from`, update(s, in, out),
  // and the rim copied from out into `to`.
  template <class Update>
  void redo(const View2D<T>& from, const View2D<T>& to, Update&& update) const {
    for (std::size_t s = 0; s < strips_.size(); ++s) {
      const Strip& strip = strips_[s];
      const StripGeometry& g = strip.where;
      // On the default instance, in order with the update's launches there: no fence.
      Kokkos::deep_copy(ExecSpace(), strip.in, Kokkos::subview(from, g.source_rows, g.source_cols));
      update(s, strip.in, strip.out);
      const auto rows = std::make_pair(g.rim_rows.first - g.source_rows.first, g.rim_rows.second - g.source_rows.first);
      const auto cols = std::make_pair(g.rim_cols.first - g.source_cols.first, g.rim_cols.second - g.source_cols.first);
      Kokkos::deep_copy(ExecSpace(), Kokkos::subview(to, g.rim_rows, g.rim_cols),
                        Kokkos::subview(strip.out, rows, cols));
    }
  }

 private:
  std::vector<Strip> strips_;
};

}  // namespace portasolve::distributed
