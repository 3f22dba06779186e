#pragma once
// A 2-D window of fixed radius R walked down one column: each input row is
// read once (2R+1 pixels) and added to the pending sums of the 2R+1 output
// rows whose windows hold it, instead of every output reading its whole
// window. Sums build as DeviceTaps::window_sum (row sums, top row first),
// so the results are bit for bit those of the other 2-D paths.
#include "core/unroll.hpp"
#include "solvers/smoothing/detail/taps.hpp"

namespace portasolve::smoothing::detail {

// Output rows [first, last) of column b: read(y, x) gives input pixels,
// write(row, pixel) takes results. Unit: all weights 1 (one row sum serves
// every pending output).
template <int R, bool Unit, class Pixel, class Read, class Write>
KOKKOS_INLINE_FUNCTION void walk_column_with(const DeviceTaps<Pixel>& taps, const int b, const int first,
                                             const int last, const Read& read, const Write& write) {
  using Sum = typename DeviceTaps<Pixel>::Sum;
  constexpr int W = 2 * R + 1;
  Sum pending[W] = {};
  for (int y0 = first - R; y0 < last + R; y0 += W) {
    // All of the group's loads first, so they are in flight together.
    Pixel rows[W][W];
    PORTASOLVE_UNROLL
    for (int u = 0; u < W; ++u) {
      PORTASOLVE_UNROLL
      for (int q = 0; q < W; ++q) rows[u][q] = y0 + u < last + R ? read(y0 + u, b - R + q) : Pixel(0);
    }
    PORTASOLVE_UNROLL
    for (int u = 0; u < W; ++u) {
      const int y = y0 + u;
      if (y >= last + R) break;
      Sum unit_row{};
      if constexpr (Unit) {
        PORTASOLVE_UNROLL
        for (int q = 0; q < W; ++q)
          unit_row = q == 0 ? static_cast<Sum>(rows[u][q]) : unit_row + static_cast<Sum>(rows[u][q]);
      }
      PORTASOLVE_UNROLL
      for (int p = -R; p <= R; ++p) {
        const int output = y - p;  // the row whose window has y at offset p
        if (output >= first && output < last) {
          const int slot = ((u - p) % W + W) % W;  // a constant once unrolled
          Sum row_p = unit_row;
          if constexpr (!Unit) {
            row_p = 0;  // from 0, as DeviceTaps::window_sum
            PORTASOLVE_UNROLL
            for (int q = 0; q < W; ++q) row_p += taps.term(p, q - R, rows[u][q]);
          }
          const Sum sum = p == -R ? row_p : pending[slot] + row_p;
          if (p == R)
            write(output, taps.finish(sum));
          else
            pending[slot] = sum;
        }
      }
    }
  }
}

template <int R, class Pixel, class Read, class Write>
KOKKOS_INLINE_FUNCTION void walk_column(const DeviceTaps<Pixel>& taps, const int b, const int first, const int last,
                                        const Read& read, const Write& write) {
  if (taps.unit_weights)
    walk_column_with<R, true>(taps, b, first, last, read, write);
  else
    walk_column_with<R, false>(taps, b, first, last, read, write);
}

}  // namespace portasolve::smoothing::detail
