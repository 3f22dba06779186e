#pragma once
// Temporal blocking in registers: a band of columns is one warp (one thread
// on hosts); each lane owns `columns` adjacent grid columns and carries up
// to `Levels` sweeps of them down a strip of rows, one input row per step.
// Sweep p's new row reaches sweep p+1 in the same step through registers,
// and the neighbour column a lane lacks at each side comes from the next lane
// by a shuffle: no team scratch, no barrier (the tile kernel,
// jacobi_blocked.hpp, keeps two scratch planes and a barrier per sweep).
//
// Sweep p finishes row y - p when sweep 0 (the input) takes row y. The
// `sweeps` columns at each side of a band are halo, going stale one column
// per sweep, and are written by the neighbouring bands. The grid's ring
// (Dirichlet values) never changes, so every sweep reads it from the input:
// bands and strips at the grid's edges need no halo past it. Each point is
// updated by jacobi_update from the same neighbours as JacobiSweep, so the
// result equals `sweeps` plain sweeps bit for bit.
#include <cstdint>

#include "core/lanes.hpp"
#include "core/spaces.hpp"
#include "core/unroll.hpp"
#include "solvers/poisson/detail/stencil.hpp"

namespace portasolve::poisson::detail {

template <class T, int Levels>
struct JacobiRegisterBands {
  // 2 x Levels x columns values of state a lane; capped like smoothing's
  // register bands (128 registers, four teams of 128 an SM).
  enum { team_threads = 128 };
  using Policy = Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<team_threads, 4>>;
  using Member = typename Policy::member_type;
  enum { columns = host_execution ? 64 : (sizeof(T) > 4 ? 2 : 4) };

  View2D<const T> x;
  View2D<T> x_next;
  View2D<const T> rhs;
  T omega;
  bool weighted;
  BandGeometry geometry;
  int sweeps = 0;  // this launch's, 1..Levels

  struct Place {
    int first_col;    // grid column of the lane's first column
    int band_col;     // its column within the band
    int first, last;  // interior rows written, [first, last)
    int start;        // the row sweep 0 takes at step 0
    int rows, cols;   // the grid's
  };

  // A level's two rows before the newest: up (row r-1) and centre (row r),
  // whose update waits for row r+1.
  struct Rows {
    T up[columns], centre[columns];
  };

  // One sweep: v holds the lane's values of row r+1 of the sweep before on
  // entry and this sweep's values of row r on return. Edge: the band holds
  // the grid's first or last column (a warp-wide choice).
  template <bool Edge>
  KOKKOS_INLINE_FUNCTION void level(T (&v)[columns], Rows& state, const Place& place, const int row) const {
    const T below = from_lane_below(state.centre[columns - 1]);
    const T above = from_lane_above(state.centre[0]);
    const bool ring_row = row <= 0 || row >= place.rows - 1;  // the same for the whole band
    T result[columns];
    PORTASOLVE_UNROLL
    for (int c = 0; c < columns; ++c) {
      const T left = c == 0 ? below : state.centre[c - 1];
      const T right = c == columns - 1 ? above : state.centre[c + 1];
      const int j = place.first_col + c;
      const T b = !ring_row && j >= 0 && j < place.cols ? rhs(row, j) : T(0);
      result[c] = jacobi_update(state.centre[c], state.up[c], v[c], left, right, b, omega, weighted);
    }
    if (ring_row) {
      PORTASOLVE_UNROLL
      for (int c = 0; c < columns; ++c) {
        const int j = place.first_col + c;
        result[c] = row >= 0 && row < place.rows && j >= 0 && j < place.cols ? x(row, j) : T(0);
      }
    } else if constexpr (Edge) {
      PORTASOLVE_UNROLL
      for (int c = 0; c < columns; ++c) {
        const int j = place.first_col + c;
        if (j == 0 || j == place.cols - 1) result[c] = x(row, j);
      }
    }
    PORTASOLVE_UNROLL
    for (int c = 0; c < columns; ++c) {
      state.up[c] = state.centre[c];
      state.centre[c] = v[c];
      v[c] = result[c];
    }
  }

  KOKKOS_INLINE_FUNCTION void load(T (&v)[columns], const Place& place, const int row) const {
    PORTASOLVE_UNROLL
    for (int c = 0; c < columns; ++c) {
      const int j = place.first_col + c;
      v[c] = row >= 0 && row < place.rows && j >= 0 && j < place.cols ? x(row, j) : T(0);
    }
  }

  KOKKOS_INLINE_FUNCTION void store(const T (&v)[columns], const Place& place, const int row) const {
    PORTASOLVE_UNROLL
    for (int c = 0; c < columns; ++c) {
      const int j = place.first_col + c, b = place.band_col + c;
      if (b >= geometry.halo && b < geometry.band_cols() - geometry.halo && j >= 1 && j < place.cols - 1)
        x_next(row, j) = v[c];
    }
  }

  template <bool Edge>
  KOKKOS_INLINE_FUNCTION void walk(const Place& place) const {
    Rows state[Levels];
    PORTASOLVE_UNROLL
    for (int p = 0; p < Levels; ++p) PORTASOLVE_UNROLL
    for (int c = 0; c < columns; ++c) state[p].up[c] = state[p].centre[c] = 0;
    walk_strip<columns, Levels, T>(
        place.start, place.last - place.first, sweeps, [&](T(&row)[columns], const int r) { load(row, place, r); },
        [&](T(&row)[columns], const int p, const int r) { level<Edge>(row, state[p - 1], place, r); },
        [&](const T(&row)[columns], const int r) { store(row, place, r); });
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const BandGeometry& g = geometry;
    const int item = team.league_rank() * team.team_size() + team.team_rank();
    if (item >= g.bands * g.strips) return;  // a whole band: no lane waits on a shuffle
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, band_lanes), [&](const int lane) {
      const int band = item % g.bands, strip = item / g.bands;
      Place place;
      place.rows = static_cast<int>(x.extent(0));
      place.cols = static_cast<int>(x.extent(1));
      place.band_col = lane * columns;
      // Band 0 starts its output at column 1: its halo lanes reach the ring and past it.
      place.first_col = 1 + band * g.output_cols() - g.halo + place.band_col;
      place.first = 1 + strip * g.strip_rows;
      place.last = place.first + g.strip_rows < place.rows - 1 ? place.first + g.strip_rows : place.rows - 1;
      place.start = place.first - sweeps;
      const int band_first_col = place.first_col - place.band_col;
      if (band_first_col <= 0 || band_first_col + g.band_cols() >= place.cols)
        walk<true>(place);
      else
        walk<false>(place);
    });
  }
};

}  // namespace portasolve::poisson::detail
