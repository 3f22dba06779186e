#pragma once
// An execution space instance of one's own (a stream on GPUs), and the time
// work queued on an instance takes, read without fencing any other instance:
// what lets a pipeline upload one batch while the one before computes.
#include <Kokkos_Core.hpp>
#include <cstddef>
#include <memory>

#include "core/spaces.hpp"

namespace portasolve {

// CUDA and HIP: a Kokkos instance on a new non-blocking stream, which neither
// waits for the default (legacy) stream nor makes it wait, so its work runs
// beside the default instance's. Host backends: ExecSpace(), the one instance
// Kokkos 3.4 has of OpenMP or Serial (every kernel finishes before it returns).
// The destructor fences the instance, then frees the stream.
class OwnedInstance {
 public:
  OwnedInstance();
  ~OwnedInstance();
  OwnedInstance(const OwnedInstance&) = delete;
  OwnedInstance& operator=(const OwnedInstance&) = delete;

  const ExecSpace& exec() const noexcept { return *exec_; }

 private:
  struct Stream;  // the backend's stream handle, none on hosts
  std::unique_ptr<Stream> stream_;
  std::unique_ptr<ExecSpace> exec_;
};

// The time between start() and stop() on exec's stream (events on GPUs),
// both queued after the work already there, read by seconds() once exec has
// run them (seconds() waits for stop's event only, no fence of anything
// else). start(exec, after) first makes exec wait for `after`'s stop (work on
// another instance), so that intervals summed over two instances never
// overlap. Host backends run each kernel to its end before returning, so
// the interval is the host's clock between the two calls.
class ExecInterval {
 public:
  ExecInterval();
  ~ExecInterval();
  ExecInterval(const ExecInterval&) = delete;
  ExecInterval& operator=(const ExecInterval&) = delete;
  ExecInterval(ExecInterval&&) noexcept;
  ExecInterval& operator=(ExecInterval&&) noexcept;

  void start(const ExecSpace& exec, const ExecInterval* after = nullptr);
  void stop(const ExecSpace& exec);
  double seconds() const;

 private:
  struct Events;
  std::unique_ptr<Events> events_;
};

// Host memory the device copies to and from directly (page-locked on CUDA
// and HIP, so a copy on an instance is a DMA that runs beside other
// instances' work and at the bus's rate; plain memory on hosts). Allocating
// it costs far more than malloc: for buffers kept and refilled.
void* allocate_pinned(std::size_t bytes);
void free_pinned(void* pointer) noexcept;

// A standard allocator of such memory, for std::vector.
template <class T>
struct PinnedAllocator {
  using value_type = T;
  PinnedAllocator() = default;
  template <class U>
  PinnedAllocator(const PinnedAllocator<U>&) noexcept {}
  T* allocate(std::size_t n) { return static_cast<T*>(allocate_pinned(n * sizeof(T))); }
  void deallocate(T* pointer, std::size_t) noexcept { free_pinned(pointer); }
  template <class U>
  bool operator==(const PinnedAllocator<U>&) const noexcept {
    return true;
  }
  template <class U>
  bool operator!=(const PinnedAllocator<U>&) const noexcept {
    return false;
  }
};

}  // namespace portasolve
