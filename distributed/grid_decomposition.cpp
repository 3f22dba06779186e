#include "distributed/grid_decomposition.hpp"

#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

namespace portasolve::distributed {

Span block_span(std::int64_t extent, int parts, int index) {
  const std::int64_t base = extent / parts, extra = extent % parts;
  return Span{index * base + std::min<std::int64_t>(index, extra), base + (index < extra ? 1 : 0)};
}

std::array<int, 2> process_grid(int ranks, std::int64_t interior_rows, std::int64_t interior_cols) {
  std::array<int, 2> best{0, 0};
  double best_edges = std::numeric_limits<double>::infinity();
  for (int down = 1; down <= ranks; ++down) {
    if (ranks % down != 0) continue;
    const int across = ranks / down;
    if (down > interior_rows || across > interior_cols) continue;
    // Points along the cuts: what all ranks exchange per halo row.
    const double edges = static_cast<double>(down - 1) * static_cast<double>(interior_cols) +
                         static_cast<double>(across - 1) * static_cast<double>(interior_rows);
    if (edges < best_edges) best_edges = edges, best = {down, across};
  }
  if (best[0] == 0)
    throw std::invalid_argument("a grid interior of " + std::to_string(interior_rows) + "x" +
                                std::to_string(interior_cols) + " points cannot be split over " +
                                std::to_string(ranks) + " ranks (each needs at least one point): use fewer ranks");
  return best;
}

GridDecomposition::GridDecomposition(MPI_Comm comm, std::int64_t rows, std::int64_t cols, std::array<int, 2> dims,
                                     bool periodic)
    : rows_(rows), cols_(cols) {
  int size = 1;
  MPI_Comm_size(comm, &size);
  if (rows < 3 || cols < 3)
    throw std::invalid_argument("grid " + std::to_string(rows) + "x" + std::to_string(cols) +
                                " has no interior: it needs at least 3x3 points");
  if (dims[0] == 0 && dims[1] == 0) dims = process_grid(size, rows - 2, cols - 2);
  if (dims[0] < 1 || dims[1] < 1 || dims[0] * dims[1] != size || dims[0] > rows - 2 || dims[1] > cols - 2)
    throw std::invalid_argument("process grid " + std::to_string(dims[0]) + "x" + std::to_string(dims[1]) +
                                " does not fit " + std::to_string(size) + " ranks on a " + std::to_string(rows - 2) +
                                "x" + std::to_string(cols - 2) + " interior");
  dims_ = dims;
  const int periods[2] = {periodic ? 1 : 0, periodic ? 1 : 0};
  // No reordering: rank r's block is the same whatever the MPI library, so
  // files and logs name the same block for the same rank.
  MPI_Cart_create(comm, 2, dims_.data(), periods, /*reorder=*/0, &cart_);
  MPI_Comm_rank(cart_, &rank_);
  MPI_Cart_coords(cart_, rank_, 2, coords_.data());
  MPI_Cart_shift(cart_, 0, 1, &north_, &south_);
  MPI_Cart_shift(cart_, 1, 1, &west_, &east_);
  rows_owned_ = rows_owned_by(rank_);
  cols_owned_ = cols_owned_by(rank_);
}

GridDecomposition::~GridDecomposition() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (cart_ != MPI_COMM_NULL && !finalized) MPI_Comm_free(&cart_);
}

namespace {

// The interior points (all but the first and last of `points`) along
// dimension `dim` (0 rows, 1 columns) that `rank` of `cart` owns.
Span interior_owned_by(MPI_Comm cart, int rank, int dim, std::int64_t points, int parts) {
  int coords[2];
  MPI_Cart_coords(cart, rank, 2, coords);
  Span span = block_span(points - 2, parts, coords[dim]);
  span.first += 1;
  return span;
}

}  // namespace

Span GridDecomposition::rows_owned_by(int rank) const { return interior_owned_by(cart_, rank, 0, rows_, dims_[0]); }

Span GridDecomposition::cols_owned_by(int rank) const { return interior_owned_by(cart_, rank, 1, cols_, dims_[1]); }

std::vector<double> GridDecomposition::local_block(const double* global, int halo) const {
  const std::int64_t local_rows = rows_owned_.count + 2 * halo, local_cols = cols_owned_.count + 2 * halo;
  std::vector<double> block(static_cast<std::size_t>(local_rows * local_cols), 0.0);
  for (std::int64_t i = 0; i < local_rows; ++i) {
    const std::int64_t gi = rows_owned_.first - halo + i;
    if (gi < 0 || gi >= rows_) continue;
    for (std::int64_t j = 0; j < local_cols; ++j) {
      const std::int64_t gj = cols_owned_.first - halo + j;
      if (gj >= 0 && gj < cols_) block[i * local_cols + j] = global[gi * cols_ + gj];
    }
  }
  return block;
}

void GridDecomposition::all_gather_owned(const std::vector<double>& owned, double* global) const {
  const int ranks = size();
  std::vector<int> counts(ranks), offsets(ranks);
  for (int r = 0; r < ranks; ++r) counts[r] = static_cast<int>(rows_owned_by(r).count * cols_owned_by(r).count);
  std::exclusive_scan(counts.begin(), counts.end(), offsets.begin(), 0);
  if (static_cast<int>(owned.size()) != counts[rank_])
    throw std::invalid_argument("all_gather_owned: " + std::to_string(owned.size()) + " values, the block has " +
                                std::to_string(counts[rank_]));
  std::vector<double> all(static_cast<std::size_t>(offsets.back()) + counts.back());
  MPI_Allgatherv(owned.data(), counts[rank_], MPI_DOUBLE, all.data(), counts.data(), offsets.data(), MPI_DOUBLE, cart_);
  for (int r = 0; r < ranks; ++r) {
    const Span rs = rows_owned_by(r), cs = cols_owned_by(r);
    const double* block = all.data() + offsets[r];
    for (std::int64_t i = 0; i < rs.count; ++i)
      for (std::int64_t j = 0; j < cs.count; ++j)
        global[(rs.first + i) * cols_ + cs.first + j] = block[i * cs.count + j];
  }
}

}  // namespace portasolve::distributed
