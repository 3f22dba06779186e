#include "distributed/grid_decomposition.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>

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
  for (int dim = 0; dim < 2; ++dim) {
    std::vector<std::int64_t>& starts = dim == 0 ? row_starts_ : col_starts_;
    const std::int64_t interior = (dim == 0 ? rows : cols) - 2;
    for (int part = 0; part < dims_[dim]; ++part) starts.push_back(1 + block_span(interior, dims_[dim], part).first);
    starts.push_back(1 + interior);
  }
  find_place();
}

GridDecomposition::GridDecomposition(MPI_Comm cart, std::int64_t rows, std::int64_t cols, std::array<int, 2> dims,
                                     std::vector<std::int64_t> row_starts, std::vector<std::int64_t> col_starts)
    : rows_(rows), cols_(cols), dims_(dims), row_starts_(std::move(row_starts)), col_starts_(std::move(col_starts)) {
  MPI_Comm_dup(cart, &cart_);  // keeps the Cartesian topology
  find_place();
}

void GridDecomposition::find_place() {
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

// The span of part `part` between consecutive starts.
Span part_of(const std::vector<std::int64_t>& starts, int part) {
  return Span{starts[part], starts[part + 1] - starts[part]};
}

// Coarse point c keeps fine point 2c: the first coarse point at or after
// fine point g is ceil(g / 2).
std::vector<std::int64_t> coarse_starts(const std::vector<std::int64_t>& fine_starts) {
  std::vector<std::int64_t> starts;
  for (const std::int64_t g : fine_starts) starts.push_back((g + 1) / 2);
  return starts;
}

}  // namespace

Span GridDecomposition::rows_owned_by(int rank) const {
  int coords[2];
  MPI_Cart_coords(cart_, rank, 2, coords);
  return part_of(row_starts_, coords[0]);
}

Span GridDecomposition::cols_owned_by(int rank) const {
  int coords[2];
  MPI_Cart_coords(cart_, rank, 2, coords);
  return part_of(col_starts_, coords[1]);
}

std::unique_ptr<GridDecomposition> GridDecomposition::coarsened(bool rows, bool cols) const {
  const auto coarse_extent = [](std::int64_t extent, bool coarsen) {
    return coarsen ? (extent - 2) / 2 + 2 : extent;  // interior n -> floor(n / 2)
  };
  return std::unique_ptr<GridDecomposition>(new GridDecomposition(
      cart_, coarse_extent(rows_, rows), coarse_extent(cols_, cols), dims_,
      rows ? coarse_starts(row_starts_) : row_starts_, cols ? coarse_starts(col_starts_) : col_starts_));
}

std::int64_t GridDecomposition::thinnest_block(int dim) const {
  const std::vector<std::int64_t>& starts = dim == 0 ? row_starts_ : col_starts_;
  std::int64_t thinnest = starts.back() - starts.front();
  for (int part = 0; part < dims_[dim]; ++part) thinnest = std::min(thinnest, part_of(starts, part).count);
  return thinnest;
}

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
