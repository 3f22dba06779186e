#pragma once
// A 2-D window of fixed radius R walked down one column: each input row is
// read once (2R+1 pixels) and added to the pending sums of the 2R+1 output
// rows whose windows hold it, instead of every output reading its whole
// window. Sums build as DeviceTaps::window_sum's (row sums, top row first),
// so the results are bit for bit those of the other 2-D paths.
#include "core/unroll.hpp"
#include "solvers/smoothing/taps.hpp"

namespace portasolve::smoothing {

// Output rows [first, last) of column b: read(y, x) gives input pixels,
// write(row, pixel) takes results.
template <int R, class Pixel, class Read, class Write>
KOKKOS_INLINE_FUNCTION void walk_column(const DeviceTaps<Pixel>& taps, const int b, const int first, const int last,
                                        const Read& read, const Write& write) {
  using Sum = typename DeviceTaps<Pixel>::Sum;
  constexpr int W = 2 * R + 1;
  Sum pending[W] = {};
  for (int y0 = first - R; y0 < last + R; y0 += W) {
    PORTASOLVE_UNROLL
    for (int u = 0; u < W; ++u) {
      const int y = y0 + u;
      if (y < last + R) {
        Pixel row[W];
        PORTASOLVE_UNROLL
        for (int q = 0; q < W; ++q) row[q] = read(y, b - R + q);
        Sum unit_row = 0;  // with unit weights one row sum serves every pending output
        if (taps.unit_weights) {
          PORTASOLVE_UNROLL
          for (int q = 0; q < W; ++q) unit_row += static_cast<Sum>(row[q]);
        }
        PORTASOLVE_UNROLL
        for (int p = -R; p <= R; ++p) {
          const int output = y - p;  // the row whose window has y at offset p
          if (output >= first && output < last) {
            const int slot = ((u - p) % W + W) % W;  // a constant once unrolled
            Sum row_p = unit_row;
            if (!taps.unit_weights) {
              row_p = 0;
              PORTASOLVE_UNROLL
              for (int q = 0; q < W; ++q) row_p += taps.term(p, q - R, row[q]);
            }
            const Sum sum = (p == -R ? Sum(0) : pending[slot]) + row_p;
            if (p == R) write(output, taps.finish(sum));
            else pending[slot] = sum;
          }
        }
      }
    }
  }
}

}  // namespace portasolve::smoothing
