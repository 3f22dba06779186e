#pragma once
// Kokkos for the Python module: initialised on the first call that needs it,
// finalised once at interpreter exit (the package registers finalize() with
// atexit). Call with the GIL held.
namespace portasolve::python {

void ensure_kokkos();
void finalize_kokkos();
bool kokkos_running();
// `release` runs before Kokkos is finalized: for state kept between calls
// (device arrays must go while Kokkos runs). Call with the GIL held.
void before_finalize(void (*release)());

}  // namespace portasolve::python
