#pragma once
// The execution and memory spaces every solver runs on, fixed when Kokkos is
// configured (CUDA, HIP, OpenMP, Serial).
#include <Kokkos_Core.hpp>
#include <string>
#include <type_traits>

namespace portasolve {

using ExecSpace = Kokkos::DefaultExecutionSpace;
using MemSpace = ExecSpace::memory_space;
using HostExecSpace = Kokkos::DefaultHostExecutionSpace;
using HostSpace = Kokkos::HostSpace;

// Row-major everywhere so device arrays, host arrays, HDF5 datasets and NumPy
// agree on index order without transposes.
template <class T>
using View1D = Kokkos::View<T*, Kokkos::LayoutRight, MemSpace>;
template <class T>
using View2D = Kokkos::View<T**, Kokkos::LayoutRight, MemSpace>;
template <class T>
using HostView1D = typename View1D<T>::HostMirror;
template <class T>
using HostView2D = typename View2D<T>::HostMirror;

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

// Every value of a contiguous default memory space View set to zero on exec,
// as one flat range (Kokkos 3.4's deep_copy(exec, view, value) walks a 2-D
// View with MDRange).
template <class View>
void zero_on(const ExecSpace& exec, const View& view) {
  using Value = typename View::non_const_value_type;
  using Flat = Kokkos::View<Value*, Kokkos::LayoutRight, MemSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  static_assert(std::is_same<typename View::memory_space, MemSpace>::value, "zero_on: a default memory space View");
  if (view.span() == 0) return;
  Kokkos::deep_copy(exec, Flat(view.data(), view.span()), Value(0));
}

// A View of the given extents, zeroed on exec (no fence). Kokkos 3.4 Views
// built with a label zero their memory on the default instance and fence it
// (view_alloc(exec, ...) fences exec but still runs the fill on the default
// instance), so work on an instance allocates without initialisation and
// zeroes here.
template <class View, class... Extents>
View zeroed_on(const ExecSpace& exec, const std::string& label, Extents... extents) {
  View view(Kokkos::view_alloc(Kokkos::WithoutInitializing, label), extents...);
  zero_on(exec, view);
  return view;
}

}  // namespace portasolve
