#pragma once
// Host vectors to new device Views; internal to the solver's translation units.
#include <Kokkos_Core.hpp>
#include <string>
#include <type_traits>

namespace portasolve::lombscargle {

// Where the element types match, the vector's own memory is copied from: a
// catalogue chunk's arrays are ~100 MB, and a mirror of them was as much
// fresh host memory again (page faults) filled by one thread.
template <class View, class Vector>
View upload(const char* label, const Vector& values) {
  View view(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), values.size());
  using Element = typename View::non_const_value_type;
  if constexpr (std::is_same<Element, typename Vector::value_type>::value) {
    const Kokkos::View<const Element*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> host(values.data(),
                                                                                                        values.size());
    Kokkos::deep_copy(view, host);
  } else {
    auto host = Kokkos::create_mirror_view(view);
    for (std::size_t i = 0; i < values.size(); ++i) host(i) = values[i];
    Kokkos::deep_copy(view, host);
  }
  return view;
}

}  // namespace portasolve::lombscargle
