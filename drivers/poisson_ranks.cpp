#include "drivers/poisson_ranks.hpp"

#if PORTASOLVE_HAVE_MPI
#include <mpi.h>

#include <climits>
#include <string>
#include <vector>

#include "core/errors.hpp"

namespace portasolve::drivers {

namespace {

// Rank `rank`'s written part: its block, widened by the ring on the sides
// where it meets the grid's edge.
struct PartRectangle {
  std::size_t first_row, first_col, rows, cols;
};

PartRectangle part_of(const distributed::GridDecomposition& grid, int rank) {
  const distributed::Span rows = grid.rows_owned_by(rank), cols = grid.cols_owned_by(rank);
  const bool north = rows.first == 1, south = rows.first + rows.count == grid.global_rows() - 1;
  const bool west = cols.first == 1, east = cols.first + cols.count == grid.global_cols() - 1;
  return PartRectangle{static_cast<std::size_t>(rows.first - (north ? 1 : 0)),
                       static_cast<std::size_t>(cols.first - (west ? 1 : 0)),
                       static_cast<std::size_t>(rows.count + (north ? 1 : 0) + (south ? 1 : 0)),
                       static_cast<std::size_t>(cols.count + (west ? 1 : 0) + (east ? 1 : 0))};
}

}  // namespace

poisson::GridWindow rank_window(const distributed::GridDecomposition& grid) {
  const distributed::Span rows = grid.rows_owned(), cols = grid.cols_owned();
  return poisson::GridWindow{static_cast<std::size_t>(rows.first - 1), static_cast<std::size_t>(rows.count + 2),
                             static_cast<std::size_t>(cols.first - 1), static_cast<std::size_t>(cols.count + 2)};
}

WrittenBlock written_part(const distributed::GridDecomposition& grid, const poisson::HostGrid& window) {
  const poisson::GridWindow whole = rank_window(grid);
  if (window.rows != whole.rows || window.cols != whole.cols)
    throw std::invalid_argument("written_part: rank " + std::to_string(grid.rank()) + "'s window is " +
                                std::to_string(whole.rows) + "x" + std::to_string(whole.cols) + ", the grid given " +
                                std::to_string(window.rows) + "x" + std::to_string(window.cols));
  const PartRectangle part = part_of(grid, grid.rank());
  WrittenBlock block{part.first_row, part.first_col, poisson::HostGrid(part.rows, part.cols)};
  const std::size_t top = part.first_row - whole.first_row, left = part.first_col - whole.first_col;
  for (std::size_t i = 0; i < part.rows; ++i)
    for (std::size_t j = 0; j < part.cols; ++j) block.values(i, j) = window(top + i, left + j);
  return block;
}

poisson::HostGrid gather_parts(const distributed::GridDecomposition& grid, const WrittenBlock& mine, int root) {
  const std::size_t rows = static_cast<std::size_t>(grid.global_rows()),
                    cols = static_cast<std::size_t>(grid.global_cols());
  std::vector<int> counts(static_cast<std::size_t>(grid.size())), offsets(counts.size());
  std::size_t total = 0;
  for (int rank = 0; rank < grid.size(); ++rank) {
    const PartRectangle part = part_of(grid, rank);
    if (total + part.rows * part.cols > static_cast<std::size_t>(INT_MAX))
      throw SolverError("a " + std::to_string(rows) + "x" + std::to_string(cols) +
                        " grid is too large to gather on one rank (at most 2^31 - 1 points); use parallel HDF5 "
                        "(each rank writes its block) and no output.pgm");
    counts[rank] = static_cast<int>(part.rows * part.cols);
    offsets[rank] = static_cast<int>(total);
    total += part.rows * part.cols;
  }
  std::vector<double> parts(grid.rank() == root ? total : 0);
  MPI_Gatherv(mine.values.values.data(), static_cast<int>(mine.values.values.size()), MPI_DOUBLE, parts.data(),
              counts.data(), offsets.data(), MPI_DOUBLE, root, grid.comm());
  poisson::HostGrid whole(rows, cols);
  if (grid.rank() != root) return whole;
  for (int rank = 0; rank < grid.size(); ++rank) {
    const PartRectangle part = part_of(grid, rank);
    const double* from = parts.data() + offsets[rank];
    for (std::size_t i = 0; i < part.rows; ++i)
      for (std::size_t j = 0; j < part.cols; ++j)
        whole(part.first_row + i, part.first_col + j) = from[i * part.cols + j];
  }
  return whole;
}

}  // namespace portasolve::drivers
#endif
