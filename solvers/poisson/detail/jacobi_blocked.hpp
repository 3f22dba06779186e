#pragma once
// Temporal blocking: each team copies its tile plus a halo of width k into
// team scratch, runs up to k sweeps there and writes back only the tile. After
// s sweeps the points within s of the region's edge are stale, so a halo of k
// leaves the tile exact: the same values, rounded the same way, as k launches
// of JacobiSweep, for k times fewer launches and about k times less traffic to
// device memory, at the price of recomputing the halo.
#include <cstdint>

#include "core/spaces.hpp"
#include "solvers/poisson/detail/stencil.hpp"

namespace portasolve::poisson::detail {

struct BlockGeometry {
  int tile_rows, tile_cols;  // points each team writes
  int halo;                  // k: the most sweeps one launch may run
  int tiles_down, tiles_across;
  KOKKOS_INLINE_FUNCTION int region_rows() const { return tile_rows + 2 * halo; }
  KOKKOS_INLINE_FUNCTION int region_cols() const { return tile_cols + 2 * halo; }
};

inline BlockGeometry block_geometry(std::int64_t rows, std::int64_t cols, int tile_rows, int tile_cols, int halo) {
  return BlockGeometry{tile_rows, tile_cols, halo, ceil_div(rows - 2, tile_rows), ceil_div(cols - 2, tile_cols)};
}

template <class T>
struct BlockedJacobi {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = Policy::member_type;
  // Two planes (ping-pong) of the region, picked by sweep parity.
  using Scratch =
      Kokkos::View<T***, Kokkos::LayoutRight, ExecSpace::scratch_memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

  View2D<const T> x;
  View2D<T> x_next;
  View2D<const T> rhs;
  T omega;
  bool weighted;
  BlockGeometry geometry;
  int sweeps;  // this launch's, <= geometry.halo

  static std::size_t scratch_bytes(const BlockGeometry& g) {
    return Scratch::shmem_size(2, g.region_rows(), g.region_cols());
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const int rows = static_cast<int>(x.extent(0)), cols = static_cast<int>(x.extent(1));
    const int region_rows = geometry.region_rows(), region_cols = geometry.region_cols();
    const int tile_down = team.league_rank() / geometry.tiles_across;
    const int tile_across = team.league_rank() % geometry.tiles_across;
    // Grid coordinates of the region's corner (may lie outside the grid).
    const int row0 = 1 + tile_down * geometry.tile_rows - geometry.halo;
    const int col0 = 1 + tile_across * geometry.tile_cols - geometry.halo;
    const Scratch buffer(team.team_scratch(0), 2, region_rows, region_cols);

    // Points that never change (the grid's ring, outside the grid, the
    // region's edge) are loaded into both buffers, so sweeps only write the
    // rectangle of points they update and need no per-point branches there.
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, region_rows), [&](const int a) {
      const int i = row0 + a;
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, region_cols), [&](const int b) {
        const int j = col0 + b;
        const T value = (i >= 0 && i < rows && j >= 0 && j < cols) ? x(i, j) : T(0);
        buffer(0, a, b) = value;
        buffer(1, a, b) = value;
      });
    });
    team.team_barrier();

    const auto larger = [](int p, int q) { return p > q ? p : q; };
    const auto smaller = [](int p, int q) { return p < q ? p : q; };
    // The updated rectangle [first, last): inside the region's edge and the grid's ring.
    const int first_row = larger(1, 1 - row0), last_row = smaller(region_rows - 1, rows - 1 - row0);
    const int first_col = larger(1, 1 - col0), last_col = smaller(region_cols - 1, cols - 1 - col0);
    for (int s = 0; s < sweeps; ++s) {
      const int from = s & 1, to = from ^ 1;
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, first_row, last_row), [&](const int a) {
        const int i = row0 + a;
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, first_col, last_col), [&](const int b) {
          buffer(to, a, b) =
              jacobi_update(buffer(from, a, b), buffer(from, a - 1, b), buffer(from, a + 1, b), buffer(from, a, b - 1),
                            buffer(from, a, b + 1), rhs(i, col0 + b), omega, weighted);
        });
      });
      team.team_barrier();
    }

    const int result = sweeps & 1;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, geometry.tile_rows), [&](const int a) {
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, geometry.tile_cols), [&](const int b) {
        const int i = row0 + geometry.halo + a, j = col0 + geometry.halo + b;
        if (i < rows - 1 && j < cols - 1) x_next(i, j) = buffer(result, geometry.halo + a, geometry.halo + b);
      });
    });
  }
};

}  // namespace portasolve::poisson::detail
