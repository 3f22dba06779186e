#pragma once
// Kokkos names that differ between the releases portasolve builds against
// (3.4.01, the bootstrap's, and 4.x; README "Verified Kokkos versions"). With
// core/math.hpp the only code that looks at KOKKOS_VERSION.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <deque>
#include <string>

namespace portasolve::kokkos_compat {

// Adds one to *p atomically: atomic_increment in 3.x, deprecated in 4.x for
// atomic_inc (which 3.4 lacks).
template <class T>
KOKKOS_FORCEINLINE_FUNCTION void atomic_increment(T* const p) {
#if KOKKOS_VERSION >= 40000
  Kokkos::atomic_inc(p);
#else
  Kokkos::atomic_increment(p);
#endif
}

// A host mirror of `view`, not initialised (the view itself where it lies in
// host memory): 3.x takes create_mirror_view(space, view, WithoutInitializing),
// 4.x view_alloc(space, WithoutInitializing) first.
template <class View>
auto host_mirror_without_init(const View& view) {
#if KOKKOS_VERSION >= 40000
  return Kokkos::create_mirror_view(Kokkos::view_alloc(Kokkos::HostSpace(), Kokkos::WithoutInitializing), view);
#else
  return Kokkos::create_mirror_view(Kokkos::HostSpace(), view, Kokkos::WithoutInitializing);
#endif
}

// Kokkos 4.x knows 3.x's --kokkos-threads=N only as --kokkos-num-threads=N
// (the old name is ignored): renames it in place, before Kokkos::initialize,
// so the same command line works with both.
inline void rename_legacy_flags(const int argc, char* argv[]) {
#if KOKKOS_VERSION >= 40000
  static std::deque<std::string> renamed;  // argv points into it until the process ends
  const std::string legacy = "--kokkos-threads";
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind(legacy, 0) == 0 && (arg.size() == legacy.size() || arg[legacy.size()] == '=')) {
      renamed.push_back("--kokkos-num-threads" + arg.substr(legacy.size()));
      argv[i] = &renamed.back()[0];
    }
  }
#else
  (void)argc;
  (void)argv;
#endif
}

// GPUs this process sees (0 for host backends); callable before
// Kokkos::initialize, to pick a rank's device.
inline int visible_device_count() {
#if KOKKOS_VERSION >= 40000
  return std::max(0, Kokkos::num_devices());
#elif defined(KOKKOS_ENABLE_CUDA)
  return static_cast<int>(Kokkos::Cuda::detect_device_count());
#elif defined(KOKKOS_ENABLE_HIP)
  return static_cast<int>(Kokkos::Experimental::HIP::detect_device_count());
#else
  return 0;
#endif
}

// Page-locked host memory of the device backend (copies to and from the
// device run at the link's speed, without the driver's bounce buffer):
// CudaHostPinnedSpace; HIPHostPinnedSpace, in Kokkos::Experimental up to
// 3.x; plain host memory for host backends.
#if defined(KOKKOS_ENABLE_CUDA)
using PinnedHostSpace = Kokkos::CudaHostPinnedSpace;
#elif defined(KOKKOS_ENABLE_HIP) && KOKKOS_VERSION >= 40000
using PinnedHostSpace = Kokkos::HIPHostPinnedSpace;
#elif defined(KOKKOS_ENABLE_HIP)
using PinnedHostSpace = Kokkos::Experimental::HIPHostPinnedSpace;
#else
using PinnedHostSpace = Kokkos::HostSpace;
#endif

// Kokkos' HIP wavefront shuffles: in Kokkos::Experimental up to 3.x, in
// Kokkos:: from 4.0 (when the HIP backend left Experimental).
#if defined(__HIP_DEVICE_COMPILE__)
template <class T>
__device__ inline T hip_shfl_up(const T& value, const int delta, const int width) {
#if KOKKOS_VERSION >= 40000
  return Kokkos::shfl_up(value, delta, width);
#else
  return Kokkos::Experimental::shfl_up(value, delta, width);
#endif
}
template <class T>
__device__ inline T hip_shfl_down(const T& value, const int delta, const int width) {
#if KOKKOS_VERSION >= 40000
  return Kokkos::shfl_down(value, delta, width);
#else
  return Kokkos::Experimental::shfl_down(value, delta, width);
#endif
}
template <class T>
__device__ inline T hip_shfl(const T& value, const int source_lane, const int width) {
#if KOKKOS_VERSION >= 40000
  return Kokkos::shfl(value, source_lane, width);
#else
  return Kokkos::Experimental::shfl(value, source_lane, width);
#endif
}
#endif

}  // namespace portasolve::kokkos_compat
