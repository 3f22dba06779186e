#pragma once
// The dirichlet spectral solve's tridiagonal systems down the columns, one
// per row mode q (spectral.cpp): the Thomas algorithm's factors, a thread per
// mode on GPUs (ColumnSolve) and blocks of modes along the rows on hosts
// (ColumnBlocks, the same operations in the same order: the same bits).
#include <cstdint>

#include "core/grid_range.hpp"
#include "core/spaces.hpp"

namespace portasolve::poisson::detail {

// Rows each thread of the column solve loads before its sequential
// recurrence: independent loads in flight hide the latency of walking down a
// column, which alone would leave the memory system idle.
constexpr int column_chunk = 16;

// The Thomas algorithm's factors c_i = 1 / (b_q - c_{i-1}), c_{-1} = 0,
// b_q = lambda_q - 2, for every mode q: they depend on the shape alone, so a
// workspace computes them once (in double, stored in T).
template <class T>
struct ThomasFactors {
  View2D<T> factors;
  View1D<const double> eigenvalues;
  KOKKOS_INLINE_FUNCTION void operator()(const int q) const {
    const double b = eigenvalues(q) - 2;
    double c = 0;
    for (int i = 0; i < int(factors.extent(0)); ++i) {
      c = 1 / (b - c);
      factors(i, q) = T(c);
    }
  }
};

// Mode q's tridiagonal system down its column: forward d_i = (g_i - d_{i-1})
// c_i into eliminated(i, q), backward u_i = d_i - c_i u_{i+1}, in double,
// each u_i handed to store(i, u). rhs(i) gives g_i; rows are read in chunks.
template <class T, class Rhs, class Store>
KOKKOS_INLINE_FUNCTION void thomas_walk(const int q, const View2D<const T>& factors, const View2D<T>& eliminated,
                                        const Rhs& rhs, const Store& store) {
  const int m = int(eliminated.extent(0));
  T g[column_chunk], c[column_chunk];
  double d = 0;
  for (int first = 0; first < m; first += column_chunk) {
    const int count = m - first < column_chunk ? m - first : column_chunk;
    for (int k = 0; k < column_chunk; ++k)
      if (k < count) {
        g[k] = rhs(first + k);
        c[k] = factors(first + k, q);
      }
    for (int k = 0; k < column_chunk; ++k)
      if (k < count) {
        d = (double(g[k]) - d) * double(c[k]);
        eliminated(first + k, q) = T(d);
      }
  }
  double u = 0;
  for (int last = m - 1; last >= 0; last -= column_chunk) {
    const int count = last + 1 < column_chunk ? last + 1 : column_chunk;
    for (int k = 0; k < column_chunk; ++k)
      if (k < count) {
        g[k] = eliminated(last - k, q);
        c[k] = factors(last - k, q);
      }
    for (int k = 0; k < column_chunk; ++k)
      if (k < count) {
        u = double(g[k]) - double(c[k]) * u;
        store(last - k, u);
      }
  }
}

// The column solves of one transform of the rows, per mode q (a thread
// each). SolveModes: in place on the modes, u scaled by `scale` (the inverse
// transform's 1 / (2(n'+1))) when stored. AddSourceResponse (embedded
// solves): modes(:, q) += weight_q scale (L_m + lambda_q)^-1 s, the
// elimination kept in `scratch`.
struct SolveModes {};
struct AddSourceResponse {};

template <class T>
struct ColumnSolve {
  View2D<T> modes;
  View2D<const T> factors;
  double scale;
  View1D<const double> source, weights;
  View2D<T> scratch;
  KOKKOS_INLINE_FUNCTION void operator()(SolveModes, const int q) const {
    const View2D<T>& u = modes;
    thomas_walk<T>(
        q, factors, modes, [&](const int i) { return u(i, q); },
        [&](const int i, const double value) { u(i, q) = T(value * scale); });
  }
  KOKKOS_INLINE_FUNCTION void operator()(AddSourceResponse, const int q) const {
    const View2D<T>& u = modes;
    const View1D<const double>& s = source;
    const double weight = weights(q) * scale;
    thomas_walk<T>(
        q, factors, scratch, [&](const int i) { return T(s(i)); },
        [&](const int i, const double value) { u(i, q) += T(weight * value); });
  }
};

// The same column solves on hosts, a block of consecutive modes per thread
// walking the rows: each row's block is contiguous (the modes innermost,
// vectorised), where a thread per mode reads a cache line per row. The same
// operations in the same order as ColumnSolve: the same bits.
constexpr int host_mode_block = 64;

template <class T>
struct ColumnBlocks {
  ColumnSolve<T> columns;

  // Modes first .. first + count - 1 of block `block`.
  struct Range {
    int first, count;
  };
  Range range(const int block) const {
    const int first = block * host_mode_block, width = int(columns.modes.extent(1));
    return {first, width - first < host_mode_block ? width - first : host_mode_block};
  }

  void operator()(SolveModes, const int block) const {
    const auto [first, count] = range(block);
    const int m = int(columns.modes.extent(0));
    double d[host_mode_block] = {};
    for (int i = 0; i < m; ++i) {
      T* row = &columns.modes(i, first);
      const T* c = &columns.factors(i, first);
      for (int k = 0; k < count; ++k) {
        d[k] = (double(row[k]) - d[k]) * double(c[k]);
        row[k] = T(d[k]);
      }
    }
    double u[host_mode_block] = {};
    for (int i = m - 1; i >= 0; --i) {
      T* row = &columns.modes(i, first);
      const T* c = &columns.factors(i, first);
      for (int k = 0; k < count; ++k) {
        u[k] = double(row[k]) - double(c[k]) * u[k];
        row[k] = T(u[k] * columns.scale);
      }
    }
  }

  void operator()(AddSourceResponse, const int block) const {
    const auto [first, count] = range(block);
    const int m = int(columns.modes.extent(0));
    double d[host_mode_block] = {}, weight[host_mode_block];
    for (int k = 0; k < count; ++k) weight[k] = columns.weights(first + k) * columns.scale;
    for (int i = 0; i < m; ++i) {
      const double g = double(T(columns.source(i)));
      T* row = &columns.scratch(i, first);
      const T* c = &columns.factors(i, first);
      for (int k = 0; k < count; ++k) {
        d[k] = (g - d[k]) * double(c[k]);
        row[k] = T(d[k]);
      }
    }
    double u[host_mode_block] = {};
    for (int i = m - 1; i >= 0; --i) {
      const T* eliminated = &columns.scratch(i, first);
      const T* c = &columns.factors(i, first);
      T* row = &columns.modes(i, first);
      for (int k = 0; k < count; ++k) {
        u[k] = double(eliminated[k]) - double(c[k]) * u[k];
        row[k] += T(weight[k] * u[k]);
      }
    }
  }
};

// Runs the column solves of phase Tag: a thread per mode on GPUs, blocks of
// modes on hosts.
template <class Tag, class T>
void solve_columns(const ExecSpace& exec, const char* name, const ColumnSolve<T>& columns) {
  const int width = int(columns.modes.extent(1));
  if constexpr (host_execution) {
    const int blocks = (width + host_mode_block - 1) / host_mode_block;
    Kokkos::parallel_for(name, Kokkos::RangePolicy<ExecSpace, Tag>(exec, 0, blocks), ColumnBlocks<T>{columns});
  } else {
    Kokkos::parallel_for(name, Kokkos::RangePolicy<ExecSpace, Tag>(exec, 0, width), columns);
  }
}

}  // namespace portasolve::poisson::detail
