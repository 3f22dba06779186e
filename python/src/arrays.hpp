#pragma once
// NumPy arrays to Kokkos Views and back, in one place. The Python layer hands
// over arrays of the right dtype, C-contiguous; these check it again and name
// the argument in the error. Device Views alias the NumPy memory where the
// device can read host memory (host backends) and are copies otherwise.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <Kokkos_Core.hpp>
#include <cstddef>
#include <string>
#include <vector>

#include "core/spaces.hpp"
#include "src/device_arrays.hpp"

namespace portasolve::python {

namespace py = pybind11;

template <class T>
using Array = py::array_t<T, py::array::c_style>;
template <class T>
using HostArray2D = Kokkos::View<T**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

constexpr bool device_reads_host = Kokkos::SpaceAccessibility<ExecSpace, Kokkos::HostSpace>::accessible;

inline void require_shape(const py::array& array, const char* name, py::ssize_t ndim) {
  if (array.ndim() != ndim)
    throw py::value_error(std::string(name) + " must be " + std::to_string(ndim) + "-D, got " +
                          std::to_string(array.ndim()) + "-D");
  if (!(array.flags() & py::array::c_style)) throw py::value_error(std::string(name) + " must be C-contiguous");
}

// A 1-D array's values as doubles (the solvers' host interfaces take vectors).
inline std::vector<double> to_vector(const Array<double>& array, const char* name) {
  require_shape(array, name, 1);
  const double* data = array.data();
  return std::vector<double>(data, data + array.size());
}

// The NumPy array's memory seen as a host View, read-only or writable.
template <class T>
HostArray2D<const T> read_view(const Array<T>& array, const char* name) {
  require_shape(array, name, 2);
  return HostArray2D<const T>(array.data(), static_cast<std::size_t>(array.shape(0)),
                              static_cast<std::size_t>(array.shape(1)));
}
template <class T>
HostArray2D<T> write_view(Array<T>& array, const char* name) {
  require_shape(array, name, 2);
  return HostArray2D<T>(array.mutable_data(), static_cast<std::size_t>(array.shape(0)),
                        static_cast<std::size_t>(array.shape(1)));
}

// A device View of host's extents: host itself where the device reads host
// memory, else a new View, holding host's values when `copy` is set.
template <class T>
View2D<T> device_view(const HostArray2D<T>& host, const char* label, bool copy) {
  if constexpr (device_reads_host) {
    return host;
  } else {
    View2D<T> device(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), host.extent(0),
                     host.extent(1));
    if (copy) Kokkos::deep_copy(device, host);
    return device;
  }
}
template <class T>
View2D<const T> device_view(const HostArray2D<const T>& host, const char* label) {
  if constexpr (device_reads_host) {
    return host;
  } else {
    View2D<T> device(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), host.extent(0),
                     host.extent(1));
    Kokkos::deep_copy(device, host);
    return device;
  }
}

// device's values into host (nothing to copy when they share memory).
template <class T>
void to_host(const View2D<T>& device, const HostArray2D<T>& host) {
  if (device.data() != host.data()) Kokkos::deep_copy(host, device);
  Kokkos::fence();
}

// A 2-D argument of T: a NumPy array (inputs are converted as NumPy would,
// outputs must be C-contiguous arrays of T already) or a GPU array
// (__cuda_array_interface__), used in place. Construct with the GIL held;
// view() and store() need no GIL.
template <class T>
class GridArgument {
 public:
  GridArgument(const py::handle& value, const char* name, bool writable) : name_(name) {
    if (is_device_array(value)) {
      device_ = device_array(value, name, typestr_of<T>(), 2);
      if (writable && device_.readonly) throw py::value_error(std::string(name) + " is read-only");
      on_device_ = true;
      return;
    }
    if (writable) {
      if (!py::isinstance<Array<T>>(value))
        throw py::type_error(std::string(name) + " must be a C-contiguous array of the input's dtype");
      host_ = py::reinterpret_borrow<Array<T>>(value);
      if (!host_.writeable()) throw py::value_error(std::string(name) + " is read-only");
    } else {
      host_ = Array<T>::ensure(py::reinterpret_borrow<py::object>(value));
      if (!host_) throw py::type_error(std::string(name) + " must be a real numeric array");
    }
    require_shape(host_, name, 2);
  }
  bool on_device() const { return on_device_; }
  std::size_t rows() const { return static_cast<std::size_t>(on_device_ ? device_.shape[0] : host_.shape(0)); }
  std::size_t cols() const { return static_cast<std::size_t>(on_device_ ? device_.shape[1] : host_.shape(1)); }
  // A NumPy argument's memory (nullptr for GPU arrays).
  T* host_data() const { return on_device_ ? nullptr : const_cast<T*>(host_.data()); }
  // The values as a View in the default memory space: the GPU array itself,
  // host memory the device reads, or a new View (holding the values when
  // copy_in).
  View2D<T> view(bool copy_in) const {
    if (on_device_) return device_view_of<T>(device_);
    const HostArray2D<T> host(const_cast<T*>(host_.data()), rows(), cols());
    return device_view(host, name_, copy_in);
  }
  // values (from view()) into the argument's memory, and waits for the device.
  void store(const View2D<T>& values) const {
    if (!on_device_) {
      to_host(values, HostArray2D<T>(const_cast<T*>(host_.data()), rows(), cols()));
      return;
    }
    const View2D<T> target = device_view_of<T>(device_);
    if (target.data() != values.data()) Kokkos::deep_copy(target, values);
    Kokkos::fence();
  }

 private:
  const char* name_;
  Array<T> host_;
  DeviceArray device_;
  bool on_device_ = false;
};

// A new C-contiguous rows x cols array.
template <class T>
Array<T> new_array(py::ssize_t rows, py::ssize_t cols) {
  return Array<T>({rows, cols});
}

}  // namespace portasolve::python
