#pragma once
// An execution space instance of the test's own, for the solvers' overloads
// taking one. CUDA builds: an instance on a new non-blocking stream, so that
// work a solver wrongly leaves on the default stream is not ordered with the
// test's own copies on the instance (a blocking stream would be, through the
// legacy default stream). Other backends: ExecSpace(), the one instance
// Kokkos 3.4 has of OpenMP or Serial.
#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "core/spaces.hpp"

namespace portasolve::instance_tests {

class OwnInstance {
 public:
  OwnInstance() {
#if defined(KOKKOS_ENABLE_CUDA)
    static_assert(std::is_same<ExecSpace, Kokkos::Cuda>::value, "CUDA builds run on Kokkos::Cuda");
    const cudaError_t made = cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking);
    if (made != cudaSuccess) throw std::runtime_error(std::string("cudaStreamCreate: ") + cudaGetErrorString(made));
    exec_ = std::make_unique<ExecSpace>(stream_);
#else
    exec_ = std::make_unique<ExecSpace>();
#endif
  }
  OwnInstance(const OwnInstance&) = delete;
  OwnInstance& operator=(const OwnInstance&) = delete;
  ~OwnInstance() {
    exec_->fence();
    exec_.reset();  // the instance goes before its stream
#if defined(KOKKOS_ENABLE_CUDA)
    cudaStreamDestroy(stream_);
#endif
  }

  const ExecSpace& exec() const { return *exec_; }

 private:
#if defined(KOKKOS_ENABLE_CUDA)
  cudaStream_t stream_{};
#endif
  std::unique_ptr<ExecSpace> exec_;
};

// A host copy of a device View, copied on exec after the work queued there
// and waited for by fencing exec only (no global fence).
template <class View>
auto read_on(const ExecSpace& exec, const View& view) {
  const auto host = Kokkos::create_mirror_view(Kokkos::HostSpace(), view, Kokkos::WithoutInitializing);
  Kokkos::deep_copy(exec, host, view);
  exec.fence();
  return host;
}

}  // namespace portasolve::instance_tests
