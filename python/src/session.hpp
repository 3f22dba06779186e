#pragma once
// Kokkos for the Python module: initialised on the first call that needs it,
// finalised once at interpreter exit (the package registers finalize() with
// atexit). Call with the GIL held.
namespace portasolve::python {

void ensure_kokkos();
void finalize_kokkos();
bool kokkos_running();

// An object that keeps device memory between calls (an ensemble's states,
// the last classic periodogram kept for the next call). It is registered
// while it lives and released before Kokkos is finalized: the interpreter
// may free it after the atexit finalize (a module global, a frame kept by a
// traceback), and Views freed after Kokkos is gone abort the process. release() drops its Views; later calls raise, as
// ensure_kokkos() does once Kokkos is finalized.
class HoldsDeviceMemory {
 public:
  HoldsDeviceMemory();
  virtual ~HoldsDeviceMemory();
  HoldsDeviceMemory(const HoldsDeviceMemory&) = delete;
  HoldsDeviceMemory& operator=(const HoldsDeviceMemory&) = delete;
  virtual void release() = 0;
};

}  // namespace portasolve::python
