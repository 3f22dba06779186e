#pragma once
// The statistics' pairwise sums over members (statistics.hpp) on the device.
// A pass climbs pass_shift levels of the tree at once: a thread sums the
// 2^pass_shift children of one node at one point as a small tree in
// registers, the children loaded together first. Passes run from the leaves
// (the members' values) up to the highest level a wanted node needs; each
// wanted node is then summed from the children it has in the highest pass
// level at or below it (fewer than 2^pass_shift of them). Only additions of
// aligned halves, so the bits are those of the tree however it is cut.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "core/spaces.hpp"
#include "core/unroll.hpp"
#include "solvers/lorenz05/detail/rounding.hpp"

namespace portasolve::lorenz05::detail {

// 16 children a pass: loads enough in flight per thread on GPUs, few passes
// (five for 10^6 members), and each pass level 1/16 of the one below.
constexpr int pass_shift = 4;
constexpr int pass_fan = 1 << pass_shift;

// The tree over positions 0..2^Shift-1 of children first..first+count-1 (1
// <= count <= 2^Shift) at point i: a node its left half plus its right
// half, a half starting at or past count absent (the node its left half).
// Rounded as written (rounding.hpp), so a square feeding an add is never
// fused into it.
template <int Shift, class Children>
KOKKOS_INLINE_FUNCTION double tree_sum(const Children& children, const std::int64_t first, const int i,
                                       const int count) {
  constexpr int fan = 1 << Shift;
  double v[fan];
  if (count == fan) {  // the common case: every load in one straight run
    PORTASOLVE_UNROLL
    for (int m = 0; m < fan; ++m) v[m] = children(first + m, i);
  } else {
    PORTASOLVE_UNROLL
    for (int m = 0; m < fan; ++m) v[m] = m < count ? children(first + m, i) : 0.0;
  }
  PORTASOLVE_UNROLL
  for (int level = 0; level < Shift; ++level) {
    PORTASOLVE_UNROLL
    for (int m = 0; m < fan; m += 2 << level)
      if (m + (1 << level) < count) v[m] = add(v[m], v[m + (1 << level)]);
  }
  return v[0];
}

// The leaves: row e of the block's states (its e-th member) at point i.
template <class T>
struct MemberValues {
  View2D<const T> states;
  KOKKOS_INLINE_FUNCTION double operator()(const std::int64_t e, const int i) const {
    return static_cast<double>(states(e, i));
  }
};

// The second pass's leaves: squared deviations from the ensemble's mean.
template <class T>
struct MemberDeviations {
  View2D<const T> states;
  View1D<const double> mean;
  KOKKOS_INLINE_FUNCTION double operator()(const std::int64_t e, const int i) const {
    const double d = sub(static_cast<double>(states(e, i)), mean(i));
    return mul(d, d);
  }
};

// The nodes of a pass level (rows of a View).
struct LevelSums {
  View2D<const double> sums;
  KOKKOS_INLINE_FUNCTION double operator()(const std::int64_t row, const int i) const { return sums(row, i); }
};

// One pass: parent q's children are rows first_child + 16 q.. of the level
// below, as many as remain of its child_rows (fewer for a node at the
// ensemble's end).
template <class Children>
struct ClimbPass {
  Children children;
  View2D<double> parents;
  std::int64_t first_child, child_rows;
  KOKKOS_INLINE_FUNCTION void operator()(const int q, const int i) const {
    const std::int64_t first = first_child + static_cast<std::int64_t>(q) * pass_fan;
    const std::int64_t left = child_rows - first;
    parents(q, i) = tree_sum<pass_shift>(children, first, i, static_cast<int>(left < pass_fan ? left : pass_fan));
  }
};

// Wanted nodes from their children in one pass level (fewer than 16 each,
// at most node_capacity nodes a launch): node c writes row row[c] of out.
constexpr int node_capacity = 2 * pass_shift;  // two a tree level at most
template <class Children>
struct NodeSums {
  Children children;
  View2D<double> out;
  Kokkos::Array<std::int64_t, node_capacity> first;
  Kokkos::Array<int, node_capacity> count, row;
  KOKKOS_INLINE_FUNCTION void operator()(const int c, const int i) const {
    out(row[c], i) = tree_sum<pass_shift - 1>(children, first[c], i, count[c]);
  }
};

}  // namespace portasolve::lorenz05::detail
