#pragma once
// Resident tiles: for grids small enough that one tile per multiprocessor
// covers them (the talk's 400x266 image), where launches, not bandwidth, set
// the pace. One launch runs every sweep up to the next residual check. Each
// team owns a tile plus a halo of k and keeps the whole region in registers:
// a lane holds `columns` adjacent columns of `rows_per_warp` rows of its
// warp's slab, takes its left and right neighbours from the next lanes by
// shuffles and the rows above and below its warp's slab from the adjacent
// warps through team scratch (one barrier a sweep). After k sweeps (a round)
// the tile goes back to device memory and the halo is reloaded from the
// neighbouring tiles' (up to 8): float tiles store each point with the round
// that wrote it and poll until the stamps they need appear; double tiles
// announce the round in a per-tile flag and wait for their neighbours'
// flags. No grid-wide barrier and no launch between rounds.
//
// The waits (resident_wait.hpp) need every team resident at once: the
// launcher asks for at most one team per multiprocessor (GPUs) or per thread
// (hosts, one-thread teams).
//
// Updates are jacobi_update_quartered on the same neighbours as JacobiSweep,
// so the result equals the plain sweeps bit for bit.
#include <cstdint>
#include <cstring>

#include "core/lanes.hpp"
#include "core/spaces.hpp"
#include "core/unroll.hpp"
#include "solvers/poisson/detail/resident_wait.hpp"
#include "solvers/poisson/detail/stencil.hpp"

namespace portasolve::poisson::detail {

// A region is 64 columns wide: two a lane on CUDA, one on HIP, all 64 in a
// host thread, whose team is that one thread. GPU teams stack up to
// 64 / rows_per_warp warps of rows_per_warp rows each.
struct ResidentShape {
  static constexpr int region_cols = 64;
  static constexpr int max_region_rows = 64;
  static constexpr int columns = host_execution ? 64 : 64 / band_lanes;
};

// Rows a lane holds on GPUs: 6. The talk's case on an H100 at k = 13 (BENCHMARKS.md): 6 rows 39.5 ms,
// 5 rows 41.4, 7 rows 46.6, 8 rows 47.3; 4 rows 41.4 against 40.6 for 6 in an earlier run.
constexpr int resident_rows_per_warp = host_execution ? 64 : 6;

struct ResidentGeometry {
  int halo = 0;   // k: sweeps a round
  int warps = 0;  // a team's slabs of rows (its team size)
  int rows_per_warp = 0;
  int tiles_down = 0, tiles_across = 0;
  KOKKOS_INLINE_FUNCTION int region_rows() const { return warps * rows_per_warp; }
  KOKKOS_INLINE_FUNCTION int region_cols() const { return ResidentShape::region_cols; }
  KOKKOS_INLINE_FUNCTION int tile_rows() const { return region_rows() - 2 * halo; }
  KOKKOS_INLINE_FUNCTION int tile_cols() const { return region_cols() - 2 * halo; }
  KOKKOS_INLINE_FUNCTION int tiles() const { return tiles_down * tiles_across; }
};

// The fewest warps a team whose tiles, at most `capacity` of them, cover a
// rows x cols grid with a halo of `halo`; a halo reaches no further than the
// next tile. tiles() == 0 where none does.
inline ResidentGeometry resident_geometry(std::int64_t rows, std::int64_t cols, int halo, int capacity,
                                          int rows_per_warp = resident_rows_per_warp) {
  for (int warps = 1; warps * rows_per_warp <= ResidentShape::max_region_rows; ++warps) {
    ResidentGeometry g;
    g.halo = halo;
    g.warps = warps;
    g.rows_per_warp = rows_per_warp;
    if (g.tile_rows() < halo || g.tile_cols() < halo || halo < 1) continue;
    const int down = ceil_div(rows - 2, g.tile_rows()), across = ceil_div(cols - 2, g.tile_cols());
    if (static_cast<std::int64_t>(down) * across > capacity) continue;
    g.tiles_down = down;
    g.tiles_across = across;
    return g;
  }
  return ResidentGeometry{};
}

template <class T, int RowsPerWarp>
struct JacobiResidentTiles {
  enum { columns = ResidentShape::columns, rows_per_warp = RowsPerWarp };
  enum { max_warps = ResidentShape::max_region_rows / RowsPerWarp };
  using Policy = Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<max_warps * band_lanes, 1>>;
  using Member = typename Policy::member_type;
  // A lane's share of one row, aligned so that it moves as one access where it fits one.
  struct alignas(sizeof(T) * columns <= 16 ? sizeof(T) * columns : alignof(T)) Chunk {
    T value[columns];
  };
  // [sweep parity][warp][top row, bottom row] x lanes
  using Edges = Kokkos::View<Chunk**, Kokkos::LayoutRight, ExecSpace::scratch_memory_space,
                             Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using Block = T[rows_per_warp][columns];  // a lane's points

  // The launch starts from `first`. Float rounds trade through `stamped` and
  // the result goes to `second`; double rounds alternate (round r reads first
  // when r is even, second when odd). result_in_second() says where it ends.
  View2D<T> first, second;
  View2D<const T> rhs;
  Kokkos::View<int*, MemSpace> flags;  // per tile: the last round it finished (flag exchange)
  // Stamped exchange: [round parity] x the grid, each point's value and the round that wrote it.
  Kokkos::View<std::uint64_t***, Kokkos::LayoutRight, MemSpace> stamped;
  Kokkos::View<int, MemSpace> stalled;
  long long patience;  // polls before a wait gives up (resident_wait.hpp)
  T omega;
  bool weighted;
  ResidentGeometry geometry;
  int first_round;  // rounds finished before this launch (flags count on across launches)
  int sweeps;       // this launch's

  static std::size_t scratch_bytes(const ResidentGeometry& g) { return Edges::shmem_size(4 * g.warps, band_lanes); }
  KOKKOS_INLINE_FUNCTION int rounds() const { return (sweeps + geometry.halo - 1) / geometry.halo; }

  struct Place {
    int tile_down, tile_across;
    int warp, lane;
    int row0, col0;                                   // grid coordinates of the lane's first point
    int rows, cols;                                   // the grid's
    bool free_row[rows_per_warp], free_col[columns];  // interior points, updated by sweeps
  };

  KOKKOS_INLINE_FUNCTION bool inside(const Place& p, const int i, const int j) const {
    return i >= 0 && i < p.rows && j >= 0 && j < p.cols;
  }

  KOKKOS_INLINE_FUNCTION void load(Block& v, const Place& p, const View2D<T>& from) const {
    const T* data = from.data();  // atomic loads: neighbours wrote these on other multiprocessors
    const std::int64_t stride = from.stride(0);
    PORTASOLVE_UNROLL
    for (int h = 0; h < rows_per_warp; ++h) PORTASOLVE_UNROLL
    for (int c = 0; c < columns; ++c) {
      const int i = p.row0 + h, j = p.col0 + c;
      v[h][c] = inside(p, i, j) ? load_shared_word(data + i * stride + j) : T(0);
    }
  }

  KOKKOS_INLINE_FUNCTION bool in_tile(const Place& p, const int h, const int c) const {
    const int a = p.warp * rows_per_warp + h, b = p.lane * columns + c, halo = geometry.halo;
    return a >= halo && a < halo + geometry.tile_rows() && b >= halo && b < halo + geometry.tile_cols();
  }

  // The tile's interior points, not its halo.
  KOKKOS_INLINE_FUNCTION void store(const Block& v, const Place& p, const View2D<T>& to) const {
    PORTASOLVE_UNROLL
    for (int h = 0; h < rows_per_warp; ++h) PORTASOLVE_UNROLL
    for (int c = 0; c < columns; ++c)
      if (in_tile(p, h, c) && p.free_row[h] && p.free_col[c]) to(p.row0 + h, p.col0 + c) = v[h][c];
  }

  // Where a lane's share of its warp's top and bottom rows goes for the
  // adjacent warps, and where it finds theirs, for each sweep parity. The
  // first and last warps read their own rows there instead: rows past the
  // region's edge do not exist, so its edge rows go stale, as the halo allows.
  struct EdgeSlots {
    Chunk* top[2];
    Chunk* bottom[2];
    const Chunk* above[2];
    const Chunk* below[2];
  };

  KOKKOS_INLINE_FUNCTION EdgeSlots edge_slots(const Edges& edges, const Place& p) const {
    EdgeSlots e;
    for (int parity = 0; parity < 2; ++parity) {
      const int slot = 2 * (parity * geometry.warps + p.warp);
      e.top[parity] = &edges(slot, p.lane);
      e.bottom[parity] = &edges(slot + 1, p.lane);
      e.above[parity] = p.warp > 0 ? &edges(slot - 1, p.lane) : e.top[parity];
      e.below[parity] = p.warp + 1 < geometry.warps ? &edges(slot + 2, p.lane) : e.bottom[parity];
    }
    return e;
  }

  KOKKOS_INLINE_FUNCTION static Chunk chunk_of(const T (&row)[columns]) {
    Chunk chunk;
    PORTASOLVE_UNROLL
    for (int c = 0; c < columns; ++c) chunk.value[c] = row[c];
    return chunk;
  }

  // Row h of one sweep from `v` into `out`, `up` and `down` its rows above and below.
  template <bool Weighted, bool FixedRows, bool FixedCols>
  KOKKOS_INLINE_FUNCTION void sweep_row(const Block& v, Block& out, const Block& b, const Place& p, const int h,
                                        const T (&up)[columns], const T (&down)[columns]) const {
    const T left_of_first = from_lane_below(v[h][columns - 1]);
    const T right_of_last = from_lane_above(v[h][0]);
    PORTASOLVE_UNROLL
    for (int c = 0; c < columns; ++c) {
      const T left = c == 0 ? left_of_first : v[h][c - 1];
      const T right = c == columns - 1 ? right_of_last : v[h][c + 1];
      T value = jacobi_update_quartered(v[h][c], up[c], down[c], left, right, b[h][c], omega, Weighted);
      if constexpr (FixedCols) value = p.free_col[c] ? value : v[h][c];
      if constexpr (FixedRows) value = p.free_row[h] ? value : v[h][c];
      out[h][c] = value;
    }
  }

  // One sweep from `v` into `out`. FixedRows, FixedCols: some of the team's
  // rows, some of its columns hold points sweeps keep (the grid's ring,
  // points past it); teams inside the grid skip the masks. The rows between
  // the slab's first and last need nothing from other warps and go before
  // the barrier, so its wait overlaps them; the edges go out just before it
  // (on an H100, 0.5 ms faster in the talk's case than before those rows).
  template <bool Weighted, bool FixedRows, bool FixedCols>
  KOKKOS_INLINE_FUNCTION void sweep(const Block& v, Block& out, const Block& b, const Place& p, const Member& team,
                                    const EdgeSlots& e, const int parity) const {
    PORTASOLVE_UNROLL
    for (int h = 1; h + 1 < rows_per_warp; ++h)
      sweep_row<Weighted, FixedRows, FixedCols>(v, out, b, p, h, v[h - 1], v[h + 1]);
    *e.top[parity] = chunk_of(v[0]);
    *e.bottom[parity] = chunk_of(v[rows_per_warp - 1]);
    team.team_barrier();
    const Chunk above = *e.above[parity], below = *e.below[parity];
    if constexpr (rows_per_warp == 1) {
      sweep_row<Weighted, FixedRows, FixedCols>(v, out, b, p, 0, above.value, below.value);
    } else {
      sweep_row<Weighted, FixedRows, FixedCols>(v, out, b, p, 0, above.value, v[1]);
      sweep_row<Weighted, FixedRows, FixedCols>(v, out, b, p, rows_per_warp - 1, v[rows_per_warp - 2], below.value);
    }
  }

  // The slots as seen from a sweep of the other parity. Selects, not an
  // index: a runtime index would put the slots in local memory.
  KOKKOS_INLINE_FUNCTION static EdgeSlots flipped_if(const EdgeSlots& e, const bool flip) {
    EdgeSlots f;
    PORTASOLVE_UNROLL
    for (int parity = 0; parity < 2; ++parity) {
      f.top[parity] = flip ? e.top[parity ^ 1] : e.top[parity];
      f.bottom[parity] = flip ? e.bottom[parity ^ 1] : e.bottom[parity];
      f.above[parity] = flip ? e.above[parity ^ 1] : e.above[parity];
      f.below[parity] = flip ? e.below[parity ^ 1] : e.below[parity];
    }
    return f;
  }

  // `count` sweeps of v, ping-ponging between v and a second block so no
  // values move between registers. Edge slots alternate with every sweep of
  // the launch (the caller flips them for rounds that start on an odd
  // sweep), so that one barrier a sweep suffices across rounds too.
  template <bool Weighted, bool FixedRows, bool FixedCols>
  KOKKOS_INLINE_FUNCTION void sweeps_of(Block& v, const Block& b, const Place& p, const Member& team,
                                        const EdgeSlots& edges, const int count) const {
    Block w;
    for (int s = 0; s + 1 < count; s += 2) {
      sweep<Weighted, FixedRows, FixedCols>(v, w, b, p, team, edges, 0);
      sweep<Weighted, FixedRows, FixedCols>(w, v, b, p, team, edges, 1);
    }
    if (count % 2 == 1) {
      sweep<Weighted, FixedRows, FixedCols>(v, w, b, p, team, edges, 0);
      PORTASOLVE_UNROLL
      for (int h = 0; h < rows_per_warp; ++h) PORTASOLVE_UNROLL
      for (int c = 0; c < columns; ++c) v[h][c] = w[h][c];
    }
  }

  // Float tiles trade points through `stamped`: a point and the round that
  // wrote it share one 64-bit word, stored and loaded as one atomic access
  // (load_stamped_word, store_stamped_word), so a reader that sees the round
  // it needs sees its value too, with no fence, flag or barrier: the value
  // travels in the word that synchronizes. Round r's words lie in plane
  // r % 2: a writer two rounds ahead would need this reader's next round
  // first.
  static constexpr bool stamped_exchange = sizeof(T) == 4;

  KOKKOS_INLINE_FUNCTION static std::uint64_t with_stamp(const T value, const int round) {
    std::uint32_t bits = 0;
    memcpy(&bits, &value, sizeof(bits));
    return std::uint64_t(std::uint32_t(round)) << 32 | bits;
  }
  KOKKOS_INLINE_FUNCTION static T value_of(const std::uint64_t word) {
    const std::uint32_t bits = static_cast<std::uint32_t>(word);
    T value = 0;
    memcpy(&value, &bits, sizeof(bits));
    return value;
  }

  KOKKOS_INLINE_FUNCTION void store_stamped(const Block& v, const Place& p, const int round) const {
    std::uint64_t* plane = &stamped(round & 1, 0, 0);
    PORTASOLVE_UNROLL
    for (int h = 0; h < rows_per_warp; ++h) PORTASOLVE_UNROLL
    for (int c = 0; c < columns; ++c)
      if (in_tile(p, h, c) && p.free_row[h] && p.free_col[c])
        store_stamped_word(plane + (p.row0 + h) * p.cols + p.col0 + c, with_stamp(v[h][c], round));
  }

  // The halo's interior points as the neighbouring tiles left them after
  // `round`; the tile's own points, and fixed ones, stay as they are.
  KOKKOS_INLINE_FUNCTION void load_stamped(Block& v, const Place& p, const int round) const {
    const std::uint64_t* plane = &stamped(round & 1, 0, 0);
    std::uint64_t words[rows_per_warp][columns];
    let_cycles_pass(resident_publish_lead);
    PORTASOLVE_UNROLL
    for (int h = 0; h < rows_per_warp; ++h) PORTASOLVE_UNROLL
    for (int c = 0; c < columns; ++c)
      words[h][c] = !in_tile(p, h, c) && p.free_row[h] && p.free_col[c]
                        ? load_stamped_word(plane + (p.row0 + h) * p.cols + p.col0 + c)
                        : with_stamp(v[h][c], round);
    // Each poll reloads every stale word at once: one round trip a poll.
    for (long long polls = 0;;) {
      bool fresh = true;
      PORTASOLVE_UNROLL
      for (int h = 0; h < rows_per_warp; ++h) PORTASOLVE_UNROLL
      for (int c = 0; c < columns; ++c) fresh = fresh && int(words[h][c] >> 32) == round;
      if (fresh || !keep_polling(polls, StallWatch{stalled.data(), patience})) break;
      PORTASOLVE_UNROLL
      for (int h = 0; h < rows_per_warp; ++h) PORTASOLVE_UNROLL
      for (int c = 0; c < columns; ++c)
        if (int(words[h][c] >> 32) != round)
          words[h][c] = load_stamped_word(plane + (p.row0 + h) * p.cols + p.col0 + c);
    }
    PORTASOLVE_UNROLL
    for (int h = 0; h < rows_per_warp; ++h) PORTASOLVE_UNROLL
    for (int c = 0; c < columns; ++c) v[h][c] = value_of(words[h][c]);
  }

  // Announces round `round` done (the tile is in device memory) and waits
  // until the neighbouring tiles have done it too. After the team barrier,
  // one thread's fence orders the whole team's stores before the flag
  // (release; fences are cumulative); each wait ends with a fence (acquire),
  // and the last barrier hands that ordering to the team's next loads.
  KOKKOS_INLINE_FUNCTION void exchange(const Member& team, const Place& p, const int round) const {
    team.team_barrier();
    int* flag = flags.data();
    const int tile = p.tile_down * geometry.tiles_across + p.tile_across;
    if (p.warp == 0) {
      if (p.lane == 0) {
        Kokkos::memory_fence();
        store_shared_word(flag + tile, round);
      }
      for (int n = p.lane; n < 9; n += band_lanes) {
        const int down = p.tile_down + n / 3 - 1, across = p.tile_across + n % 3 - 1;
        if (n == 4 || down < 0 || down >= geometry.tiles_down || across < 0 || across >= geometry.tiles_across)
          continue;
        const int neighbour = down * geometry.tiles_across + across;
        wait_until_reaches(flag + neighbour, round, StallWatch{stalled.data(), patience});
      }
    }
    converge_warp();
    team.team_barrier();
  }

  template <bool Weighted, bool FixedRows, bool FixedCols>
  KOKKOS_INLINE_FUNCTION void rounds_of(const Member& team, const Place& p, const Block& b) const {
    const EdgeSlots edges = edge_slots(Edges(team.team_scratch(0), 4 * geometry.warps, band_lanes), p);
    Block v;
    const int count = rounds(), halo = geometry.halo;
    load(v, p, first);
    for (int r = 0; r < count; ++r) {
      const bool last = r + 1 == count;
      sweeps_of<Weighted, FixedRows, FixedCols>(v, b, p, team, flipped_if(edges, (r * halo) % 2 == 1),
                                                last ? sweeps - r * halo : halo);
      const int round = first_round + r + 1;
      if constexpr (stamped_exchange) {
        if (last) {
          store(v, p, second);
        } else {
          store_stamped(v, p, round);
          load_stamped(v, p, round);
        }
      } else {
        store(v, p, r % 2 == 0 ? second : first);
        if (!last) {
          exchange(team, p, round);
          load(v, p, r % 2 == 0 ? second : first);
        }
      }
    }
  }

  // Where the launch leaves its result.
  KOKKOS_INLINE_FUNCTION bool result_in_second() const { return stamped_exchange || rounds() % 2 == 1; }

  KOKKOS_INLINE_FUNCTION void run(const Member& team, const int lane) const {
    const ResidentGeometry& g = geometry;
    Place p;
    p.tile_down = team.league_rank() / g.tiles_across;
    p.tile_across = team.league_rank() % g.tiles_across;
    p.warp = team.team_rank();
    p.lane = lane;
    p.rows = static_cast<int>(rhs.extent(0));
    p.cols = static_cast<int>(rhs.extent(1));
    p.row0 = 1 + p.tile_down * g.tile_rows() - g.halo + p.warp * rows_per_warp;
    const int team_col0 = 1 + p.tile_across * g.tile_cols() - g.halo;
    p.col0 = team_col0 + lane * columns;
    PORTASOLVE_UNROLL
    for (int h = 0; h < rows_per_warp; ++h) p.free_row[h] = p.row0 + h >= 1 && p.row0 + h < p.rows - 1;
    PORTASOLVE_UNROLL
    for (int c = 0; c < columns; ++c) p.free_col[c] = p.col0 + c >= 1 && p.col0 + c < p.cols - 1;
    // Whole-team choices, so that every warp meets the same barriers.
    const int team_row0 = p.row0 - p.warp * rows_per_warp;
    const bool fixed_rows = team_row0 < 1 || team_row0 + g.region_rows() > p.rows - 1;
    const bool fixed_cols = team_col0 < 1 || team_col0 + g.region_cols() > p.cols - 1;
    Block b;  // B / 4
    PORTASOLVE_UNROLL
    for (int h = 0; h < rows_per_warp; ++h) PORTASOLVE_UNROLL
    for (int c = 0; c < columns; ++c)
      b[h][c] = p.free_row[h] && p.free_col[c] ? quarter(rhs(p.row0 + h, p.col0 + c)) : T(0);

    if (weighted)
      dispatch<true>(team, p, b, fixed_rows, fixed_cols);
    else
      dispatch<false>(team, p, b, fixed_rows, fixed_cols);
  }

  template <bool Weighted>
  KOKKOS_INLINE_FUNCTION void dispatch(const Member& team, const Place& p, const Block& b, const bool fixed_rows,
                                       const bool fixed_cols) const {
    if (fixed_rows && fixed_cols)
      rounds_of<Weighted, true, true>(team, p, b);
    else if (fixed_rows)
      rounds_of<Weighted, true, false>(team, p, b);
    else if (fixed_cols)
      rounds_of<Weighted, false, true>(team, p, b);
    else
      rounds_of<Weighted, false, false>(team, p, b);
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, band_lanes), [&](const int lane) { run(team, lane); });
  }
};

}  // namespace portasolve::poisson::detail
