#pragma once
// A rows x cols grid whose outer ring holds fixed values (the Poisson
// solvers' layout), its interior split into a process grid of blocks, one per
// rank. A rank's local array is its block plus a ring of `halo` points: the
// grid's own boundary where the block touches it, copies of the neighbours'
// points (filled by HaloExchange) elsewhere. Local (halo, halo) is global
// (rows_owned.first, cols_owned.first).
#include <mpi.h>

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

namespace portasolve::distributed {

struct Span {
  std::int64_t first = 0, count = 0;
};

// Part `index` of `parts` of [0, extent): the first extent % parts parts get
// one point more, so parts differ by at most one.
Span block_span(std::int64_t extent, int parts, int index);

// The process grid (ranks down, ranks across) for `ranks` ranks on an
// interior of rows x cols points: the factorisation with the shortest cuts
// (the fewest halo points exchanged), each block at least one point each way.
// Throws std::invalid_argument when no factorisation fits (more ranks than
// interior points).
std::array<int, 2> process_grid(int ranks, std::int64_t interior_rows, std::int64_t interior_cols);

class GridDecomposition {
 public:
  // Collective over `comm`. dims {0, 0} chooses process_grid(); otherwise
  // dims[0] * dims[1] must be comm's size. periodic: the Cartesian
  // communicator wraps both ways, so the blocks on opposite edges are
  // neighbours (smoothing's wrap border) instead of MPI_PROC_NULL.
  GridDecomposition(MPI_Comm comm, std::int64_t rows, std::int64_t cols, std::array<int, 2> dims = {0, 0},
                    bool periodic = false);
  ~GridDecomposition();
  GridDecomposition(const GridDecomposition&) = delete;
  GridDecomposition& operator=(const GridDecomposition&) = delete;

  MPI_Comm comm() const noexcept { return cart_; }
  int rank() const noexcept { return rank_; }
  int size() const noexcept { return dims_[0] * dims_[1]; }
  const std::array<int, 2>& dims() const noexcept { return dims_; }
  const std::array<int, 2>& coords() const noexcept { return coords_; }
  std::int64_t global_rows() const noexcept { return rows_; }
  std::int64_t global_cols() const noexcept { return cols_; }
  // Global indices of the interior points this rank owns (first >= 1).
  const Span& rows_owned() const noexcept { return rows_owned_; }
  const Span& cols_owned() const noexcept { return cols_owned_; }
  // The same for any rank of this decomposition.
  Span rows_owned_by(int rank) const;
  Span cols_owned_by(int rank) const;
  // Neighbouring ranks; MPI_PROC_NULL where the block touches the grid's ring
  // (unless periodic).
  int north() const noexcept { return north_; }
  int south() const noexcept { return south_; }
  int west() const noexcept { return west_; }
  int east() const noexcept { return east_; }

  // The block plus a ring of `halo` copied out of a global row-major array.
  std::vector<double> local_block(const double* global, int halo) const;
  // Every rank's owned points (row-major, rows_owned x cols_owned) gathered
  // into `global` (row-major rows x cols) on every rank; the ring of
  // `global` is left as it was.
  void all_gather_owned(const std::vector<double>& owned, double* global) const;

  // The next coarser grid of vertex-centred multigrid (a direction coarsened
  // keeps the interior points at even positions 2, 4, ...: fine point 2c
  // becomes coarse point c) over the same ranks: each rank owns the coarse
  // points whose fine positions it owned, so its block may be empty. Same
  // process grid and neighbours, on a duplicate of comm(). Collective.
  std::unique_ptr<GridDecomposition> coarsened(bool rows, bool cols) const;
  // The fewest points any rank owns down (0) or across (1).
  std::int64_t thinnest_block(int dim) const;

 private:
  GridDecomposition(MPI_Comm cart, std::int64_t rows, std::int64_t cols, std::array<int, 2> dims,
                    std::vector<std::int64_t> row_starts, std::vector<std::int64_t> col_starts);
  void find_place();

  std::int64_t rows_, cols_;
  std::array<int, 2> dims_{1, 1}, coords_{0, 0};
  // Where each process row's (column's) block starts, global interior
  // indices, with the end (rows - 1, cols - 1) last: dims + 1 entries.
  std::vector<std::int64_t> row_starts_, col_starts_;
  MPI_Comm cart_ = MPI_COMM_NULL;
  int rank_ = 0;
  Span rows_owned_, cols_owned_;
  int north_ = MPI_PROC_NULL, south_ = MPI_PROC_NULL, west_ = MPI_PROC_NULL, east_ = MPI_PROC_NULL;
};

}  // namespace portasolve::distributed
