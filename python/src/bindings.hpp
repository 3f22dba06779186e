#pragma once
// One function per solver adds its calls to the extension module.
#include <pybind11/pybind11.h>

namespace portasolve::python {

void bind_lombscargle(pybind11::module_& module);
void bind_smoothing(pybind11::module_& module);
void bind_poisson(pybind11::module_& module);
void bind_lorenz05(pybind11::module_& module);

}  // namespace portasolve::python
