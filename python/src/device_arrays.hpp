#pragma once
// Arrays from other GPU libraries (CuPy, Numba, PyTorch: anything with
// __cuda_array_interface__, version 2 or later) used in place: their device
// memory becomes an unmanaged View, with no copy to the host and back.
// Only builds whose memory space is a GPU's take them; elsewhere they are a
// TypeError naming the argument.
#include <pybind11/pybind11.h>

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "core/spaces.hpp"

namespace portasolve::python {

namespace py = pybind11;

#if defined(KOKKOS_ENABLE_CUDA) || defined(KOKKOS_ENABLE_HIP)
constexpr bool takes_device_arrays = !Kokkos::SpaceAccessibility<HostSpace, MemSpace>::accessible;
#else
constexpr bool takes_device_arrays = false;
#endif

// What __cuda_array_interface__ says of one array, checked.
struct DeviceArray {
  std::uintptr_t address = 0;
  std::vector<py::ssize_t> shape;
  std::string typestr;  // e.g. "<f4"
  bool readonly = false;
};

// Whether value exposes __cuda_array_interface__.
bool is_device_array(const py::handle& value);

// value's interface, checked: C-contiguous, unmasked, typestr `typestr`
// (the dtype T stands for), `ndim` dimensions; the producer's stream (the
// interface's "stream", version 3) is synchronised so its writes are done.
// Errors: TypeError (wrong dtype, or this build takes no device arrays),
// ValueError (shape, strides, mask), each naming `name`.
DeviceArray device_array(const py::handle& value, const char* name, const char* typestr, int ndim);

// The interface's typestr for T.
template <class T>
constexpr const char* typestr_of();
template <>
constexpr const char* typestr_of<float>() {
  return "<f4";
}
template <>
constexpr const char* typestr_of<double>() {
  return "<f8";
}

// A device array of T as a rows x cols View in the default memory space
// (unmanaged: the producer keeps owning the memory).
template <class T>
View2D<T> device_view_of(const DeviceArray& array) {
  const std::size_t rows = static_cast<std::size_t>(array.shape[0]);
  const std::size_t cols = array.shape.size() > 1 ? static_cast<std::size_t>(array.shape[1]) : 1;
  return View2D<T>(reinterpret_cast<T*>(array.address), rows, cols);
}

}  // namespace portasolve::python
