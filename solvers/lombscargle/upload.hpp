#pragma once
// Host vectors to new device Views; internal to the solver's translation units.
#include <Kokkos_Core.hpp>
#include <string>

namespace portasolve::lombscargle {

template <class View, class Vector>
View upload(const char* label, const Vector& values) {
  View view(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), values.size());
  auto host = Kokkos::create_mirror_view(view);
  for (std::size_t i = 0; i < values.size(); ++i) host(i) = values[i];
  Kokkos::deep_copy(view, host);
  return view;
}

}  // namespace portasolve::lombscargle
