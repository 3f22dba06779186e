#pragma once
// One smoothing pass, one launch: every pixel's window summed straight from
// device memory (neighbours come from cache). Pixels whose window lies inside
// the image take the branch-free path; the rest read through the border mode.
#include <type_traits>

#include "core/grid_range.hpp"
#include "core/spaces.hpp"
#include "core/unroll.hpp"
#include "solvers/smoothing/detail/border.hpp"
#include "solvers/smoothing/detail/column_walk.hpp"
#include "solvers/smoothing/detail/taps.hpp"

namespace portasolve::smoothing::detail {

// The border handling a kernel needs, by value.
template <class Pixel>
struct Border {
  BorderMode mode;
  Pixel constant;
};

// FixedRadius > 0 lets the compiler unroll the window; 0 reads taps.radius.
template <class Pixel, int FixedRadius>
struct Smooth2D {
  using Sum = typename DeviceTaps<Pixel>::Sum;
  View2D<const Pixel> in;
  View2D<Pixel> out;
  DeviceTaps<Pixel> taps;
  Border<Pixel> border;

  KOKKOS_INLINE_FUNCTION void operator()(const int i, const int j) const {
    const int r = FixedRadius > 0 ? FixedRadius : taps.radius;
    pixel(i, j, r);
  }

  KOKKOS_INLINE_FUNCTION void pixel(const int i, const int j, const int r) const {
    const int rows = static_cast<int>(in.extent(0)), cols = static_cast<int>(in.extent(1));
    if (i >= r && i < rows - r && j >= r && j < cols - r) {
      out(i, j) = taps.finish(taps.template window_sum<FixedRadius>([&](int a, int b) { return in(i + a, j + b); }));
    } else if (border.mode == BorderMode::keep) {
      out(i, j) = in(i, j);
    } else {
      out(i, j) = taps.finish(taps.template window_sum<FixedRadius>([&](int a, int b) {
        const int y = i + a, x = j + b;
        if (border.mode == BorderMode::constant && (y < 0 || y >= rows || x < 0 || x >= cols)) return border.constant;
        return in(fold_index(y, rows, border.mode), fold_index(x, cols, border.mode));
      }));
    }
  }
};

// The same pass with radius R, a thread per column strip of `strip` rows:
// strips whose windows lie inside the image walk their column reading each
// input row once (walk_column), the rest go pixel by pixel. On GPUs this cuts
// the loads per pixel from (2R+1)^2 to about 2R+1, which is what keeps a 3x3
// pass at the memory bandwidth.
template <class Pixel, int R>
struct Smooth2DStrips {
  Smooth2D<Pixel, R> pass;
  int strip;

  KOKKOS_INLINE_FUNCTION void operator()(const int s, const int j) const {
    const int rows = static_cast<int>(pass.in.extent(0)), cols = static_cast<int>(pass.in.extent(1));
    const int first = s * strip, last = first + strip < rows ? first + strip : rows;
    if (first >= R && last <= rows - R && j >= R && j < cols - R) {
      walk_column<R>(
          pass.taps, j, first, last, [&](const int y, const int x) { return pass.in(y, x); },
          [&](const int row, const Pixel value) { pass.out(row, j) = value; });
    } else {
      for (int i = first; i < last; ++i) pass.pixel(i, j, R);
    }
  }
};

// The same pass on host backends, a row per call: the columns whose windows
// lie inside the image run as one branch-free loop over row pointers, which
// compilers vectorise; the rest go pixel by pixel. Same sums as `window`.
template <class Pixel, int R>
struct Smooth2DRows {
  using Sum = typename DeviceTaps<Pixel>::Sum;
  Smooth2D<Pixel, R> pass;

  KOKKOS_INLINE_FUNCTION void operator()(const int i) const {
    const int rows = static_cast<int>(pass.in.extent(0)), cols = static_cast<int>(pass.in.extent(1));
    if (i < R || i >= rows - R || cols < 2 * R + 1) {
      for (int j = 0; j < cols; ++j) pass.pixel(i, j, R);
      return;
    }
    for (int j = 0; j < R; ++j) pass.pixel(i, j, R);
    for (int j = cols - R; j < cols; ++j) pass.pixel(i, j, R);
    const Pixel* above[2 * R + 1];
    for (int a = -R; a <= R; ++a) above[a + R] = &pass.in(i + a, 0);
    Pixel* const target = &pass.out(i, 0);
    const DeviceTaps<Pixel>& taps = pass.taps;
    if (taps.unit_weights) {
      for (int j = R; j < cols - R; ++j) {
        Sum sum = 0;
        for (int a = 0; a <= 2 * R; ++a) {
          Sum row = above[a][j - R];
          for (int b = -R + 1; b <= R; ++b) row += static_cast<Sum>(above[a][j + b]);
          sum = a == 0 ? row : sum + row;
        }
        target[j] = taps.finish(sum);
      }
    } else {
      for (int j = R; j < cols - R; ++j) {
        Sum sum = 0;
        for (int a = 0; a <= 2 * R; ++a) {
          Sum row = 0;  // from 0, as DeviceTaps::window_sum
          for (int b = -R; b <= R; ++b) row += taps.term(a - R, b, above[a][j + b]);
          sum = a == 0 ? row : sum + row;
        }
        target[j] = taps.finish(sum);
      }
    }
  }
};

// A separable kernel's two 1-D passes: along each row into `partial` (Sum,
// integers unnormalised), then along each column into `out`.
struct AlongRows {};
struct AlongColumns {};

template <class Pixel>
struct SmoothSeparable {
  using Sum = typename DeviceTaps<Pixel>::Sum;
  View2D<const Pixel> in;
  View2D<Sum> partial;
  View2D<Pixel> out;
  DeviceTaps<Pixel> taps;
  Border<Pixel> border;

  KOKKOS_INLINE_FUNCTION Sum row_sum(const int i, const int j) const {
    const int r = taps.radius, cols = static_cast<int>(in.extent(1));
    Sum sum = 0;
    if (j >= r && j < cols - r) {
      for (int b = -r; b <= r; ++b) sum += taps.term(b, static_cast<Sum>(in(i, j + b)));
    } else {
      for (int b = -r; b <= r; ++b) {
        const int x = j + b;
        const Pixel p = (border.mode == BorderMode::constant && (x < 0 || x >= cols))
                            ? border.constant
                            : in(i, fold_index(x, cols, border.mode));
        sum += taps.term(b, static_cast<Sum>(p));
      }
    }
    return taps.partial(sum);
  }

  // A row of the constant extension, summed the way row_sum sums real rows.
  KOKKOS_INLINE_FUNCTION Sum constant_row() const {
    Sum sum = 0;
    for (int b = -taps.radius; b <= taps.radius; ++b) sum += taps.term(b, static_cast<Sum>(border.constant));
    return taps.partial(sum);
  }

  KOKKOS_INLINE_FUNCTION void operator()(AlongRows, const int i, const int j) const { partial(i, j) = row_sum(i, j); }

  KOKKOS_INLINE_FUNCTION void operator()(AlongColumns, const int i, const int j) const {
    const int r = taps.radius, rows = static_cast<int>(in.extent(0)), cols = static_cast<int>(in.extent(1));
    const bool inside = i >= r && i < rows - r;
    if (border.mode == BorderMode::keep && !(inside && j >= r && j < cols - r)) {
      out(i, j) = in(i, j);
      return;
    }
    Sum sum = 0;
    if (inside) {
      for (int a = -r; a <= r; ++a) sum += taps.term(a, partial(i + a, j));
    } else {
      const Sum outside = border.mode == BorderMode::constant ? constant_row() : Sum(0);
      for (int a = -r; a <= r; ++a) {
        const int y = i + a;
        const Sum p = (border.mode == BorderMode::constant && (y < 0 || y >= rows))
                          ? outside
                          : partial(fold_index(y, rows, border.mode), j);
        sum += taps.term(a, p);
      }
    }
    out(i, j) = taps.finish(sum);
  }
};

// The separable passes on host backends, a row per call: interior columns
// run tap by tap over whole rows (the loop over columns vectorises), each
// pixel's sum still built tap by tap in SmoothSeparable's order.
template <class Pixel>
struct SeparableRows {
  using Sum = typename DeviceTaps<Pixel>::Sum;
  enum { chunk = 256 };
  SmoothSeparable<Pixel> pass;

  KOKKOS_INLINE_FUNCTION void operator()(AlongRows, const int i) const {
    const int r = pass.taps.radius, cols = static_cast<int>(pass.in.extent(1));
    const bool keep = pass.border.mode == BorderMode::keep;
    if (!keep)
      for (int j = 0; j < cols; ++j)
        if (j < r || j >= cols - r) pass.partial(i, j) = pass.row_sum(i, j);
    Sum* const target = &pass.partial(i, 0);
    const Pixel* const source = &pass.in(i, 0);
    for (int j = r; j < cols - r; ++j) target[j] = 0;
    for (int b = -r; b <= r; ++b) {
      const auto weight = pass.taps.weight(b + r);
      for (int j = r; j < cols - r; ++j) target[j] += weight * static_cast<Sum>(source[j + b]);
    }
    for (int j = r; j < cols - r; ++j) target[j] = pass.taps.partial(target[j]);
  }

  KOKKOS_INLINE_FUNCTION void operator()(AlongColumns, const int i) const {
    const int r = pass.taps.radius, rows = static_cast<int>(pass.in.extent(0));
    const int cols = static_cast<int>(pass.in.extent(1));
    if (i < r || i >= rows - r) {
      for (int j = 0; j < cols; ++j) pass(AlongColumns{}, i, j);
      return;
    }
    const bool keep = pass.border.mode == BorderMode::keep;
    const int first = keep ? r : 0, last = keep ? cols - r : cols;
    for (int j = 0; j < first; ++j) pass.out(i, j) = pass.in(i, j);
    for (int j = last; j < cols; ++j) pass.out(i, j) = pass.in(i, j);
    Pixel* const target = &pass.out(i, 0);
    for (int j0 = first; j0 < last; j0 += chunk) {
      const int width = last - j0 < chunk ? last - j0 : chunk;
      Sum sums[chunk];
      for (int q = 0; q < width; ++q) sums[q] = 0;
      for (int a = -r; a <= r; ++a) {
        const auto weight = pass.taps.weight(a + r);
        const Sum* const row = &pass.partial(i + a, j0);
        for (int q = 0; q < width; ++q) sums[q] += weight * row[q];
      }
      for (int q = 0; q < width; ++q) target[j0 + q] = pass.taps.finish(sums[q]);
    }
  }
};

// Adapts a tagged functor to for_rectangle's functor(i, j).
template <class Functor, class Tag>
struct WithTag {
  Functor functor;
  KOKKOS_INLINE_FUNCTION void operator()(const int i, const int j) const { functor(Tag{}, i, j); }
};

}  // namespace portasolve::smoothing::detail
