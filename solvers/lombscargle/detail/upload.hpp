#pragma once
// Host vectors to new device Views, and device Views back to the host, on an
// execution space instance; internal to the solver's translation units.
#include <Kokkos_Core.hpp>
#include <string>
#include <type_traits>

#include "core/kokkos_compat.hpp"
#include "core/spaces.hpp"

namespace portasolve::lombscargle::detail {

// Where the element types match, the vector's own memory is copied from: a
// catalogue chunk's arrays are ~100 MB, and a mirror of them was as much
// fresh host memory again (page faults) filled by one thread. The copy is
// queued on exec: the caller fences exec before `values` changes or goes
// (the mirror of other element types goes here, so exec is fenced first).
template <class View, class Vector>
View upload(const ExecSpace& exec, const char* label, const Vector& values) {
  View view(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), values.size());
  using Element = typename View::non_const_value_type;
  if constexpr (std::is_same<Element, typename Vector::value_type>::value) {
    const Kokkos::View<const Element*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> host(values.data(),
                                                                                                        values.size());
    Kokkos::deep_copy(exec, view, host);
  } else {
    auto host = kokkos_compat::host_mirror_without_init(view);
    for (std::size_t i = 0; i < values.size(); ++i) host(i) = values[i];
    Kokkos::deep_copy(exec, view, host);
    exec.fence();  // before the mirror goes
  }
  return view;
}

// A writable alias of `view` (1-D) after making it `length` long: kept where
// it has that length (new series of the same lengths for a kept periodogram:
// a fresh device allocation, and the free of the old one, cost more than
// refilling a short array), else a new, uninitialised View.
template <class View>
Kokkos::View<typename View::non_const_value_type*, Kokkos::LayoutRight, typename View::memory_space,
             Kokkos::MemoryUnmanaged>
sized(View& view, std::size_t length, const std::string& label) {
  using Element = typename View::non_const_value_type;
  using Alias = Kokkos::View<Element*, Kokkos::LayoutRight, typename View::memory_space, Kokkos::MemoryUnmanaged>;
  if (view.extent(0) != length)
    view = Kokkos::View<Element*, Kokkos::LayoutRight, typename View::memory_space>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, label), length);
  return Alias(const_cast<Element*>(view.data()), view.extent(0));
}

// `values` into `view` on exec, in its own memory where the lengths match
// (sized()). Fenced as upload().
template <class View, class Vector>
void upload_into(const ExecSpace& exec, View& view, const std::string& label, const Vector& values) {
  using Element = typename View::non_const_value_type;
  if constexpr (std::is_same<Element, typename Vector::value_type>::value) {
    const Kokkos::View<const Element*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> source(
        values.data(), values.size());
    Kokkos::deep_copy(exec, sized(view, values.size(), label), source);
  } else {
    using Fresh =
        Kokkos::View<typename View::non_const_data_type, typename View::array_layout, typename View::memory_space>;
    view = upload<Fresh>(exec, label.c_str(), values);
  }
}

// A host copy of a View (the View itself where it is in host memory), read
// after the work queued on exec: exec is fenced, no other instance.
template <class View>
Kokkos::View<typename View::const_data_type, typename View::array_layout, Kokkos::HostSpace> download(
    const ExecSpace& exec, const View& view) {
  if constexpr (std::is_same<typename View::memory_space, Kokkos::HostSpace>::value) {
    exec.fence();
    return view;
  } else {
    const Kokkos::View<typename View::non_const_data_type, typename View::array_layout, Kokkos::HostSpace> host(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, view.label()), view.layout());
    Kokkos::deep_copy(exec, host, view);
    exec.fence();
    return host;
  }
}

}  // namespace portasolve::lombscargle::detail
