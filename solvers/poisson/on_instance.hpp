#pragma once
// What the Poisson solvers need to run a solve on one execution space
// instance (solve(exec, ...), solver.hpp): core/grid_range.hpp's rectangle
// walks with the instance in their policy (the same functors, so the same
// kernels and bits as the default-instance ones), zeroed buffers filled on the
// instance, and the test for whether an instance is the default one.
//
// Kokkos 3.4 Views built with a label zero their memory on the default
// instance and fence it (view_alloc(exec, ...) fences exec but still runs the
// fill on the default instance), so buffers a solve zeroes are allocated
// without initialisation and filled on exec here.
#include <cstdint>
#include <string>
#include <type_traits>

#include "core/grid_range.hpp"
#include "core/spaces.hpp"

namespace portasolve::poisson {

// The default-instance walks stay callable beside the overloads below (the
// distributed solve runs on the default instance).
using portasolve::for_rectangle;
using portasolve::reduce_rectangle;

inline Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<int>> rectangle_range(const ExecSpace& exec,
                                                                              const GridRectangle& rectangle) {
  const std::int64_t count =
      host_execution ? rectangle.rows : static_cast<std::int64_t>(rectangle.rows) * rectangle.cols;
  return Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<int>>(exec, 0, static_cast<int>(count));
}

// functor(i, j) for every point of the rectangle, on exec.
template <class Functor>
void for_rectangle(const ExecSpace& exec, const char* name, const GridRectangle& rectangle, const Functor& functor) {
  if (rectangle.rows <= 0 || rectangle.cols <= 0) return;
  Kokkos::parallel_for(name, rectangle_range(exec, rectangle), RectanglePoints<Functor>{functor, rectangle});
}

// Sums functor's contributions into `result` on exec: a Sum& (exec is then
// fenced, as Kokkos does for a host result) or a rank-0 device View (no fence).
template <class Sum, class Tag = void, class Functor, class Result>
void reduce_rectangle(const ExecSpace& exec, const char* name, const GridRectangle& rectangle, const Functor& functor,
                      Result&& result) {
  Kokkos::parallel_reduce(name, rectangle_range(exec, rectangle), RectangleSum<Functor, Sum, Tag>{functor, rectangle},
                          result);
}

// Every value of a contiguous View set to zero on exec, as one flat range
// (Kokkos 3.4's deep_copy(exec, view, value) walks a 2-D View with MDRange).
template <class View>
void zero_on(const ExecSpace& exec, const View& view) {
  using Value = typename View::non_const_value_type;
  using Flat = Kokkos::View<Value*, Kokkos::LayoutRight, MemSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  static_assert(std::is_same<typename View::memory_space, MemSpace>::value, "zero_on: a default memory space View");
  if (view.span() == 0) return;
  Kokkos::deep_copy(exec, Flat(view.data(), view.span()), Value(0));
}

// A View of the given extents, zeroed on exec (no fence).
template <class View, class... Extents>
View zeroed_on(const ExecSpace& exec, const std::string& label, Extents... extents) {
  View view(Kokkos::view_alloc(Kokkos::WithoutInitializing, label), extents...);
  zero_on(exec, view);
  return view;
}

// Whether exec is the default instance (its stream on GPUs). Host backends
// run every kernel to its end before returning, so any instance of theirs
// counts as the default one.
inline bool is_default_instance([[maybe_unused]] const ExecSpace& exec) {
#if defined(KOKKOS_ENABLE_CUDA)
  return exec.cuda_stream() == ExecSpace().cuda_stream();
#elif defined(KOKKOS_ENABLE_HIP)
  return exec.hip_stream() == ExecSpace().hip_stream();
#else
  return true;
#endif
}

}  // namespace portasolve::poisson
