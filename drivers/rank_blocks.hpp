#pragma once
// Experiments whose items (series, members; or a table's columns, such as
// lombscargle's frequencies) split into contiguous blocks over MPI ranks:
// rank r owns block_span(items, ranks, r); results come back together in
// item order on every rank, so each rank runs the same writing code (rank
// 0's file is the real one).
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "drivers/experiment.hpp"
#if PORTASOLVE_HAVE_MPI
#include <mpi.h>

#include <climits>

#include "core/errors.hpp"
#include "distributed/grid_decomposition.hpp"
#endif

namespace portasolve::drivers {

struct ItemBlock {
  std::int64_t first = 0, count = 0;
};

// This rank's block of `items`: all of them on one rank.
inline ItemBlock my_block(const Ranks& ranks, std::int64_t items) {
#if PORTASOLVE_HAVE_MPI
  if (ranks.size > 1) {
    const distributed::Span span = distributed::block_span(items, ranks.size, ranks.rank);
    return {span.first, span.count};
  }
#endif
  (void)ranks;
  return {0, items};
}

// Every rank's rows (`row_length` values per item of its block) in item
// order, on every rank; `mine` itself on one rank.
inline std::vector<double> gather_rows(const Ranks& ranks, std::int64_t items, std::int64_t row_length,
                                       const std::vector<double>& mine) {
#if PORTASOLVE_HAVE_MPI
  if (ranks.size > 1) {
    std::vector<int> counts(static_cast<std::size_t>(ranks.size)), displacements(counts.size());
    for (int r = 0; r < ranks.size; ++r) {
      const distributed::Span span = distributed::block_span(items, ranks.size, r);
      const std::int64_t count = span.count * row_length, first = span.first * row_length;
      if (first + count > INT_MAX)
        throw SolverError("a result of " + std::to_string(items * row_length) +
                          " values is too large to gather over MPI ranks (at most 2^31 - 1)");
      counts[r] = static_cast<int>(count);
      displacements[r] = static_cast<int>(first);
    }
    std::vector<double> all(static_cast<std::size_t>(items * row_length));
    MPI_Allgatherv(mine.data(), counts[ranks.rank], MPI_DOUBLE, all.data(), counts.data(), displacements.data(),
                   MPI_DOUBLE, MPI_COMM_WORLD);
    return all;
  }
#endif
  (void)ranks, (void)items, (void)row_length;
  return mine;
}

// Every rank's block of the columns of a rows x `columns` table (rank r's:
// columns block_span(columns, ranks, r), held row-major as rows x its
// count) put together: the whole table, row-major, on every rank; `mine`
// itself on one rank. The lombscargle driver's frequency split: a rank's
// range of the grid for every series of the chunk.
inline std::vector<double> gather_columns(const Ranks& ranks, std::int64_t rows, std::int64_t columns,
                                          const std::vector<double>& mine) {
#if PORTASOLVE_HAVE_MPI
  if (ranks.size > 1) {
    std::vector<int> counts(static_cast<std::size_t>(ranks.size)), displacements(counts.size());
    std::vector<distributed::Span> spans(counts.size());
    for (int r = 0; r < ranks.size; ++r) {
      spans[r] = distributed::block_span(columns, ranks.size, r);
      const std::int64_t count = spans[r].count * rows, first = spans[r].first * rows;
      if (first + count > INT_MAX)
        throw SolverError("a result of " + std::to_string(rows * columns) +
                          " values is too large to gather over MPI ranks (at most 2^31 - 1)");
      counts[r] = static_cast<int>(count);
      displacements[r] = static_cast<int>(first);
    }
    // The blocks one after another in rank order, then each block's rows
    // put in their place.
    std::vector<double> blocks(static_cast<std::size_t>(rows * columns)), all(blocks.size());
    MPI_Allgatherv(mine.data(), counts[ranks.rank], MPI_DOUBLE, blocks.data(), counts.data(), displacements.data(),
                   MPI_DOUBLE, MPI_COMM_WORLD);
    for (int r = 0; r < ranks.size; ++r)
      for (std::int64_t row = 0; row < rows; ++row)
        std::copy_n(blocks.begin() + displacements[r] + row * spans[r].count, spans[r].count,
                    all.begin() + row * columns + spans[r].first);
    return all;
  }
#endif
  (void)ranks, (void)rows, (void)columns;
  return mine;
}

// The largest of every rank's `values` (as many on each), element by
// element, on every rank (max is exact: any order gives the same bits).
inline void max_over_ranks(const Ranks& ranks, std::vector<double>& values) {
#if PORTASOLVE_HAVE_MPI
  if (ranks.size > 1) {
    if (values.size() > INT_MAX)
      throw SolverError("a result of " + std::to_string(values.size()) +
                        " values is too large to reduce over MPI ranks (at most 2^31 - 1)");
    MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  }
#endif
  (void)ranks, (void)values;
}

// A failure that one rank met at item `index` (of the items all ranks work
// through; INT64_MAX: none on this rank), described by `message`: every rank
// gets the one at the lowest index and its message, so every rank reports
// what a single process, meeting the items in order, reports first.
struct ItemFailure {
  std::int64_t index = INT64_MAX;
  std::string message;
  bool failed() const { return index != INT64_MAX; }
};

inline ItemFailure first_failure(const Ranks& ranks, const ItemFailure& mine) {
#if PORTASOLVE_HAVE_MPI
  if (ranks.size > 1) {
    // The lowest index, and the lowest rank holding it (one rank owns an item).
    std::int64_t index = mine.index;
    MPI_Allreduce(MPI_IN_PLACE, &index, 1, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD);
    int owner = mine.index == index ? ranks.rank : ranks.size;
    MPI_Allreduce(MPI_IN_PLACE, &owner, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (index == INT64_MAX) return {};
    ItemFailure agreed{index, ranks.rank == owner ? mine.message : std::string()};
    unsigned long long length = agreed.message.size();
    MPI_Bcast(&length, 1, MPI_UNSIGNED_LONG_LONG, owner, MPI_COMM_WORLD);
    agreed.message.resize(static_cast<std::size_t>(length));
    MPI_Bcast(agreed.message.data(), static_cast<int>(length), MPI_CHAR, owner, MPI_COMM_WORLD);
    return agreed;
  }
#endif
  (void)ranks;
  return mine;
}

}  // namespace portasolve::drivers
