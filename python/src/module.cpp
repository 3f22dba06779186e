// The extension module portasolve._portasolve; the package portasolve (the
// .py files next to this folder) gives it SciPy's names and arguments.
#include <pybind11/pybind11.h>

#include <exception>
#include <stdexcept>

#include "core/errors.hpp"
#include "core/interrupt.hpp"
#include "core/kokkos_session.hpp"
#include "src/bindings.hpp"
#include "src/device_arrays.hpp"
#include "src/session.hpp"

namespace py = pybind11;

namespace {

py::dict info() {
  portasolve::python::ensure_kokkos();
  const portasolve::BackendInfo backend = portasolve::backend_info();
  py::dict dict;
  dict["portasolve"] = PORTASOLVE_VERSION;
  dict["kokkos"] = backend.kokkos_version;
  dict["backends"] = backend.enabled_backends;
  dict["execution_space"] = backend.execution_space;
  dict["memory_space"] = backend.memory_space;
  dict["host_space"] = backend.host_space;
  dict["device"] = backend.device;
  dict["host_cpu"] = backend.host_cpu;
  dict["concurrency"] = backend.concurrency;
  dict["gpu_arrays"] = portasolve::python::takes_device_arrays;
  return dict;
}

// What the user gave us becomes ValueError, Ctrl-C KeyboardInterrupt;
// everything else keeps pybind11's mapping (std::runtime_error: RuntimeError).
void translate(std::exception_ptr pointer) {
  try {
    if (pointer) std::rethrow_exception(pointer);
  } catch (const portasolve::Interrupted&) {
    PyErr_SetNone(PyExc_KeyboardInterrupt);
  } catch (const portasolve::InputError& error) {
    PyErr_SetString(PyExc_ValueError, error.what());
  } catch (const portasolve::ConfigError& error) {
    PyErr_SetString(PyExc_ValueError, error.what());
  } catch (const std::invalid_argument& error) {
    PyErr_SetString(PyExc_ValueError, error.what());
  }
}

}  // namespace

PYBIND11_MODULE(_portasolve, module) {
  module.doc() = "portasolve's solvers on NumPy arrays (use the portasolve package)";
  module.attr("__version__") = PORTASOLVE_VERSION;
  module.attr("takes_gpu_arrays") = portasolve::python::takes_device_arrays;
  py::register_exception_translator(&translate);
  module.def("info", &info, "backend, device and versions as a dict (starts Kokkos)");
  module.def("kokkos_running", &portasolve::python::kokkos_running);
  module.def("finalize", &portasolve::python::finalize_kokkos,
             "finalizes Kokkos (the package calls it at interpreter exit); no solver call works afterwards");
  portasolve::python::bind_lombscargle(module);
  portasolve::python::bind_smoothing(module);
  portasolve::python::bind_poisson(module);
  portasolve::python::bind_lorenz05(module);
}
