#pragma once
// Kokkos for the Python module: initialised on the first call that needs it,
// finalised once at interpreter exit (the package registers finalize() with
// atexit). Call with the GIL held.
namespace portasolve::python {

void ensure_kokkos();
void finalize_kokkos();
bool kokkos_running();

}  // namespace portasolve::python
