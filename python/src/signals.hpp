#pragma once
// Ctrl-C during a long call: called between launches with the GIL released,
// it lets Python's signal handlers run; a pending KeyboardInterrupt abandons
// the call (Interrupted, which module.cpp turns back into KeyboardInterrupt).
#include <pybind11/pybind11.h>

#include "core/interrupt.hpp"

namespace portasolve::python {

inline void throw_if_python_interrupted() {
  pybind11::gil_scoped_acquire gil;
  if (PyErr_CheckSignals() != 0) {
    PyErr_Clear();
    throw Interrupted();
  }
}

}  // namespace portasolve::python
