#include "src/device_arrays.hpp"

#include <cstddef>

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime.h>
#elif defined(KOKKOS_ENABLE_HIP)
#include <hip/hip_runtime.h>
#endif

namespace portasolve::python {

namespace {

// The interface's stream handles: 1 is the legacy default stream, 2 the
// per-thread default stream, anything else a stream pointer.
constexpr std::uintptr_t legacy_default_stream = 1;
constexpr std::uintptr_t per_thread_default_stream = 2;

void synchronize_stream(std::uintptr_t handle, const char* name) {
#if defined(KOKKOS_ENABLE_CUDA)
  cudaStream_t stream = handle == legacy_default_stream       ? cudaStreamLegacy
                        : handle == per_thread_default_stream ? cudaStreamPerThread
                                                              : reinterpret_cast<cudaStream_t>(handle);
  const cudaError_t status = cudaStreamSynchronize(stream);
  if (status != cudaSuccess)
    throw py::value_error(std::string(name) + ": waiting on its stream failed: " + cudaGetErrorString(status));
#elif defined(KOKKOS_ENABLE_HIP)
  hipStream_t stream = handle == legacy_default_stream || handle == per_thread_default_stream
                           ? nullptr
                           : reinterpret_cast<hipStream_t>(handle);
  const hipError_t status = hipStreamSynchronize(stream);
  if (status != hipSuccess)
    throw py::value_error(std::string(name) + ": waiting on its stream failed: " + hipGetErrorString(status));
#else
  (void)handle;
  (void)name;
#endif
}

}  // namespace

bool is_device_array(const py::handle& value) { return py::hasattr(value, "__cuda_array_interface__"); }

DeviceArray device_array(const py::handle& value, const char* name, const char* typestr, int ndim) {
  const std::string label(name);
  if (!takes_device_arrays)
    throw py::type_error(label + " is a GPU array (__cuda_array_interface__), but this portasolve was built for " +
                         ExecSpace::name() + ": pass a NumPy array, or use a CUDA build");
  const py::dict interface = value.attr("__cuda_array_interface__");
  DeviceArray array;
  array.typestr = interface["typestr"].cast<std::string>();
  if (array.typestr != typestr)
    throw py::type_error(label + " has dtype " + array.typestr + " here, " + typestr + " is needed");
  for (const py::handle& extent : interface["shape"].cast<py::tuple>())
    array.shape.push_back(extent.cast<py::ssize_t>());
  if (static_cast<int>(array.shape.size()) != ndim)
    throw py::value_error(label + " must be " + std::to_string(ndim) + "-D, got " + std::to_string(array.shape.size()) +
                          "-D");
  if (interface.contains("mask") && !interface["mask"].is_none())
    throw py::value_error(label + " is a masked array; portasolve takes unmasked arrays");
  if (interface.contains("strides") && !interface["strides"].is_none()) {
    // C-contiguous: each stride is the product of the later extents.
    const py::tuple strides = interface["strides"].cast<py::tuple>();
    py::ssize_t expected = static_cast<py::ssize_t>(array.typestr.back() - '0');
    for (int d = ndim - 1; d >= 0; --d) {
      if (array.shape[static_cast<std::size_t>(d)] > 1 &&
          strides[static_cast<std::size_t>(d)].cast<py::ssize_t>() != expected)
        throw py::value_error(label + " must be C-contiguous (e.g. cupy.ascontiguousarray(" + label + "))");
      expected *= array.shape[static_cast<std::size_t>(d)];
    }
  }
  const py::tuple data = interface["data"].cast<py::tuple>();
  array.address = data[0].cast<std::uintptr_t>();
  array.readonly = data[1].cast<bool>();
  if (interface.contains("stream") && !interface["stream"].is_none())
    synchronize_stream(interface["stream"].cast<std::uintptr_t>(), name);
  return array;
}

}  // namespace portasolve::python
