#pragma once
// The poisson driver over MPI ranks: each rank holds a window of the
// problem, its block and a ring of 1 (the local arrays' layout), and writes
// its part of whole-grid datasets; rank 0 gathers the parts where a dataset
// or a PGM needs the whole grid.
#if PORTASOLVE_HAVE_MPI
#include <cstddef>

#include "distributed/grid_decomposition.hpp"
#include "solvers/poisson/problem.hpp"

namespace portasolve::drivers {

// This rank's block and its ring of 1, in global grid indices.
poisson::GridWindow rank_window(const distributed::GridDecomposition& grid);

// What a rank writes of a whole-grid dataset: its block, plus the ring where
// the block touches the grid's edge, so the ranks' parts tile the grid once.
struct WrittenBlock {
  std::size_t first_row = 0, first_col = 0;  // global indices of values(0, 0)
  poisson::HostGrid values;
};
// That part of `window`, a grid laid out as rank_window() (a local array).
WrittenBlock written_part(const distributed::GridDecomposition& grid, const poisson::HostGrid& window);

// Every rank's written_part() put together on `root`: the whole grid there,
// a grid of the whole size holding zeros on the other ranks (whose result
// files are discarded). Collective.
poisson::HostGrid gather_parts(const distributed::GridDecomposition& grid, const WrittenBlock& mine, int root);

}  // namespace portasolve::drivers
#endif
