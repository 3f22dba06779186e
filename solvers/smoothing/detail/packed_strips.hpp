#pragma once
// One pass of radius R over integer pixels, a thread per `lanes` adjacent
// columns of a strip of rows: each input row of the strip is read as one
// pack of `lanes` pixels (one wide load) plus the R pixels each side, and
// the packs of results are written as wide stores. A thread per column
// (Smooth2DStrips) reads and writes one pixel per access, which holds a
// GPU pass near the copy rate of 4-byte accesses, below the copy of 16-byte
// ones, and far below it for 1- and 2-byte pixels (BENCHMARKS.md, the
// integer passes).
//
// Integer sums are exact, so these give the scalar path's results bit for
// bit whatever the order of the terms.
#include <cstdint>
#include <type_traits>

#include "core/unroll.hpp"
#include "solvers/smoothing/detail/single_pass.hpp"
#include "solvers/smoothing/detail/taps.hpp"

namespace portasolve::smoothing::detail {

template <class Pixel>
struct PixelPack {
  enum { lanes = 4, bytes = lanes * sizeof(Pixel) };
  struct alignas(bytes) Values {
    Pixel v[lanes];
  };
};

// Whether packs of `lanes` pixels of every row of `view` lie on pack
// boundaries (rows of a multiple of lanes pixels from an aligned start).
template <class Pixel, class View>
bool rows_pack_aligned(const View& view) {
  using Pack = PixelPack<std::remove_const_t<Pixel>>;
  return reinterpret_cast<std::uintptr_t>(view.data()) % Pack::bytes == 0 &&
         (static_cast<std::uint64_t>(view.stride(0)) * sizeof(Pixel)) % Pack::bytes == 0 &&
         view.extent(1) % Pack::lanes == 0;
}

template <class Pixel, int R>
struct Smooth2DPackedStrips {
  static_assert(std::is_integral<Pixel>::value, "integer pixels: their sums are exact in any order");
  using Sum = typename DeviceTaps<Pixel>::Sum;
  using Pack = PixelPack<Pixel>;
  enum { lanes = Pack::lanes, window = 2 * R + 1, span = lanes + 2 * R };
  Smooth2D<Pixel, R> pass;
  int strip;

  // Strip s, pack p (columns lanes p .. lanes p + lanes - 1).
  KOKKOS_INLINE_FUNCTION void operator()(const int s, const int p) const {
    const int rows = static_cast<int>(pass.in.extent(0)), cols = static_cast<int>(pass.in.extent(1));
    const int first = s * strip, last = first + strip < rows ? first + strip : rows;
    const int j0 = p * lanes;
    if (first >= R && last <= rows - R && j0 >= R && j0 + lanes + R <= cols) {
      if (pass.taps.unit_weights)
        walk<true>(first, last, j0);
      else
        walk<false>(first, last, j0);
    } else {
      for (int i = first; i < last; ++i)
        for (int c = 0; c < lanes; ++c)
          if (j0 + c < cols) pass.pixel(i, j0 + c, R);
    }
  }

  // Input row y's pixels j0 - R .. j0 + lanes + R - 1.
  KOKKOS_INLINE_FUNCTION void load_row(Pixel (&row)[span], const int y, const int j0) const {
    const typename Pack::Values pack = *reinterpret_cast<const typename Pack::Values*>(&pass.in(y, j0));
    PORTASOLVE_UNROLL
    for (int c = 0; c < lanes; ++c) row[R + c] = pack.v[c];
    PORTASOLVE_UNROLL
    for (int b = 0; b < R; ++b) {
      row[b] = pass.in(y, j0 - R + b);
      row[R + lanes + b] = pass.in(y, j0 + lanes + b);
    }
  }

  // As walk_column_with, lanes columns at once: input rows are read in
  // groups of `window` (all loads of a group in flight together) and added to
  // the pending sums of the outputs whose windows hold them.
  template <bool Unit>
  KOKKOS_INLINE_FUNCTION void walk(const int first, const int last, const int j0) const {
    const DeviceTaps<Pixel>& taps = pass.taps;
    Sum pending[window][lanes] = {};
    for (int y0 = first - R; y0 < last + R; y0 += window) {
      Pixel rows[window][span];
      // Rows past the strip's last (its final group) repeat the last one,
      // read again from cache and never summed.
      PORTASOLVE_UNROLL
      for (int u = 0; u < window; ++u) load_row(rows[u], y0 + u < last + R ? y0 + u : last + R - 1, j0);
      PORTASOLVE_UNROLL
      for (int u = 0; u < window; ++u) {
        const int y = y0 + u;
        if (y >= last + R) break;
        Sum unit_row[lanes] = {};
        if constexpr (Unit) {
          PORTASOLVE_UNROLL
          for (int c = 0; c < lanes; ++c) PORTASOLVE_UNROLL
          for (int q = 0; q < window; ++q) unit_row[c] += static_cast<Sum>(rows[u][c + q]);
        }
        PORTASOLVE_UNROLL
        for (int a = -R; a <= R; ++a) {
          const int output = y - a;  // the row whose window has y at offset a
          if (output < first || output >= last) continue;
          const int slot = ((u - a) % window + window) % window;  // a constant once unrolled
          typename Pack::Values result;
          PORTASOLVE_UNROLL
          for (int c = 0; c < lanes; ++c) {
            Sum row_a = unit_row[c];
            if constexpr (!Unit) {
              row_a = 0;
              PORTASOLVE_UNROLL
              for (int q = 0; q < window; ++q) row_a += taps.term(a, q - R, rows[u][c + q]);
            }
            const Sum sum = a == -R ? row_a : pending[slot][c] + row_a;
            if (a == R)
              result.v[c] = taps.finish(sum);
            else
              pending[slot][c] = sum;
          }
          if (a == R) *reinterpret_cast<typename Pack::Values*>(&pass.out(output, j0)) = result;
        }
      }
    }
  }
};

}  // namespace portasolve::smoothing::detail
