#pragma once
// For tests of the overloads that take an execution space instance (FFT
// plans, Poisson solves): an instance of its own and a read of a View that
// waits for nothing.
//
// CUDA: the instance is a Kokkos::Cuda on a new non-blocking stream, which
// neither waits for the default (legacy) stream nor makes it wait, so work
// that wrongly went to the default instance is not ordered with the
// instance's. Other backends: the default instance (host backends finish
// every kernel before returning; HIP is not covered here).
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/spaces.hpp"

namespace portasolve::testing {

class OwnInstance {
 public:
  OwnInstance() {
#if defined(KOKKOS_ENABLE_CUDA)
    check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
    exec_.emplace(stream_);
#else
    exec_.emplace();
#endif
  }
  ~OwnInstance() {
    exec_->fence();
    exec_.reset();  // Kokkos' instance goes before the stream it does not own
#if defined(KOKKOS_ENABLE_CUDA)
    cudaStreamDestroy(stream_);
#endif
  }
  OwnInstance(const OwnInstance&) = delete;
  OwnInstance& operator=(const OwnInstance&) = delete;

  const ExecSpace& exec() const { return *exec_; }

#if defined(KOKKOS_ENABLE_CUDA)
  static void check(cudaError_t status, const char* call) {
    if (status != cudaSuccess) throw std::runtime_error(std::string(call) + ": " + cudaGetErrorString(status));
  }
#endif

 private:
#if defined(KOKKOS_ENABLE_CUDA)
  cudaStream_t stream_ = nullptr;
#endif
  std::optional<ExecSpace> exec_;
};

// A contiguous View's values as they are in memory now, with no fence of any
// instance: on CUDA a cudaMemcpy on the legacy default stream, which does not
// wait for non-blocking streams (an overload that returned with its work
// still running on its instance would be read half done); host backends copy.
template <class View>
std::vector<typename View::non_const_value_type> read_now(const View& view) {
  using Value = typename View::non_const_value_type;
  std::vector<Value> values(view.span());
#if defined(KOKKOS_ENABLE_CUDA)
  OwnInstance::check(cudaMemcpy(values.data(), view.data(), values.size() * sizeof(Value), cudaMemcpyDeviceToHost),
                     "cudaMemcpy");
#else
  using Unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
  Kokkos::deep_copy(Kokkos::View<Value*, HostSpace, Unmanaged>(values.data(), values.size()),
                    Kokkos::View<const Value*, MemSpace, Unmanaged>(view.data(), view.span()));
#endif
  return values;
}

// Entries whose bits differ (so a NaN equals only the same NaN).
template <class Value>
int bit_differences(const std::vector<Value>& a, const std::vector<Value>& b) {
  if (a.size() != b.size()) return -1;
  int count = 0;
  for (std::size_t k = 0; k < a.size(); ++k) count += std::memcmp(&a[k], &b[k], sizeof(Value)) != 0;
  return count;
}

}  // namespace portasolve::testing
