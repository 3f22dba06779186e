#pragma once
// Where an index past an edge reads from, for the border modes that extend the
// image by its own pixels (options.hpp draws each mode).
#include <Kokkos_Core.hpp>

#include "solvers/smoothing/options.hpp"

namespace portasolve::smoothing::detail {

// Folds any i into 0..n-1 (n >= 1) as `mode` extends the row; several folds
// are allowed, so it holds however far i lies outside. keep and constant
// never read outside and return i.
KOKKOS_INLINE_FUNCTION int fold_index(const int i, const int n, const BorderMode mode) {
  if (i >= 0 && i < n) return i;
  const auto positive_mod = [](int a, int period) {
    const int m = a % period;
    return m < 0 ? m + period : m;
  };
  switch (mode) {
    case BorderMode::nearest:
      return i < 0 ? 0 : n - 1;
    case BorderMode::wrap:
      return positive_mod(i, n);
    case BorderMode::reflect: {  // period 2n: a b c d d c b a
      const int m = positive_mod(i, 2 * n);
      return m < n ? m : 2 * n - 1 - m;
    }
    case BorderMode::mirror: {  // period 2n-2: a b c d c b
      if (n == 1) return 0;
      const int m = positive_mod(i, 2 * n - 2);
      return m < n ? m : 2 * n - 2 - m;
    }
    default:
      return i;
  }
}

// The pixel at (i, j) of `in` (rows x cols) as `border` extends the image;
// keep reads nothing past the edges and gives 0 there, which no kept window
// sums. For kernels that copy a region with its halo into team scratch.
template <class Pixel, class Image, class Border>
KOKKOS_INLINE_FUNCTION Pixel extended_pixel(const Image& in, const Border& border, const int i, const int j,
                                            const int rows, const int cols) {
  if (i >= 0 && i < rows && j >= 0 && j < cols) return in(i, j);
  if (border.mode == BorderMode::constant) return border.constant;
  if (border.mode == BorderMode::keep) return Pixel(0);
  return in(fold_index(i, rows, border.mode), fold_index(j, cols, border.mode));
}

}  // namespace portasolve::smoothing::detail
