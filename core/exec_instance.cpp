#include "core/exec_instance.hpp"

#include <cstdlib>
#include <new>
#include <string>
#include <utility>

#include "core/errors.hpp"

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime.h>
#elif defined(KOKKOS_ENABLE_HIP)
#include <hip/hip_runtime.h>
#endif

namespace portasolve {

namespace {

// The backend's stream and event calls under one name (none on hosts).
#if defined(KOKKOS_ENABLE_CUDA)
using StreamHandle = cudaStream_t;
using EventHandle = cudaEvent_t;
void check(const cudaError_t status, const char* call) {
  if (status != cudaSuccess) throw SolverError(std::string(call) + " failed: " + cudaGetErrorString(status));
}
StreamHandle new_stream() {
  StreamHandle stream = nullptr;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  return stream;
}
void free_stream(StreamHandle stream) { static_cast<void>(cudaStreamDestroy(stream)); }
StreamHandle stream_of(const ExecSpace& exec) { return exec.cuda_stream(); }
EventHandle new_event() {
  EventHandle event = nullptr;
  check(cudaEventCreate(&event), "cudaEventCreate");
  return event;
}
void free_event(EventHandle event) { static_cast<void>(cudaEventDestroy(event)); }
void record(EventHandle event, StreamHandle stream) { check(cudaEventRecord(event, stream), "cudaEventRecord"); }
void wait_for(StreamHandle stream, EventHandle event) {
  check(cudaStreamWaitEvent(stream, event, 0), "cudaStreamWaitEvent");
}
double elapsed_seconds(EventHandle start, EventHandle stop) {
  check(cudaEventSynchronize(stop), "cudaEventSynchronize");
  float milliseconds = 0;
  check(cudaEventElapsedTime(&milliseconds, start, stop), "cudaEventElapsedTime");
  return 1e-3 * milliseconds;
}
#elif defined(KOKKOS_ENABLE_HIP)
using StreamHandle = hipStream_t;
using EventHandle = hipEvent_t;
void check(const hipError_t status, const char* call) {
  if (status != hipSuccess) throw SolverError(std::string(call) + " failed: " + hipGetErrorString(status));
}
StreamHandle new_stream() {
  StreamHandle stream = nullptr;
  check(hipStreamCreateWithFlags(&stream, hipStreamNonBlocking), "hipStreamCreateWithFlags");
  return stream;
}
void free_stream(StreamHandle stream) { static_cast<void>(hipStreamDestroy(stream)); }
StreamHandle stream_of(const ExecSpace& exec) { return exec.hip_stream(); }
EventHandle new_event() {
  EventHandle event = nullptr;
  check(hipEventCreate(&event), "hipEventCreate");
  return event;
}
void free_event(EventHandle event) { static_cast<void>(hipEventDestroy(event)); }
void record(EventHandle event, StreamHandle stream) { check(hipEventRecord(event, stream), "hipEventRecord"); }
void wait_for(StreamHandle stream, EventHandle event) {
  check(hipStreamWaitEvent(stream, event, 0), "hipStreamWaitEvent");
}
double elapsed_seconds(EventHandle start, EventHandle stop) {
  check(hipEventSynchronize(stop), "hipEventSynchronize");
  float milliseconds = 0;
  check(hipEventElapsedTime(&milliseconds, start, stop), "hipEventElapsedTime");
  return 1e-3 * milliseconds;
}
#endif

}  // namespace

void* allocate_pinned(const std::size_t bytes) {
  if (bytes == 0) return nullptr;
  void* pointer = nullptr;
#if defined(KOKKOS_ENABLE_CUDA)
  check(cudaHostAlloc(&pointer, bytes, cudaHostAllocDefault), "cudaHostAlloc");
#elif defined(KOKKOS_ENABLE_HIP)
  check(hipHostMalloc(&pointer, bytes, hipHostMallocDefault), "hipHostMalloc");
#else
  pointer = std::malloc(bytes);
  if (pointer == nullptr) throw std::bad_alloc();
#endif
  return pointer;
}

void free_pinned(void* pointer) noexcept {
  if (pointer == nullptr) return;
#if defined(KOKKOS_ENABLE_CUDA)
  static_cast<void>(cudaFreeHost(pointer));
#elif defined(KOKKOS_ENABLE_HIP)
  static_cast<void>(hipHostFree(pointer));
#else
  std::free(pointer);
#endif
}

#if defined(KOKKOS_ENABLE_CUDA) || defined(KOKKOS_ENABLE_HIP)
struct OwnedInstance::Stream {
  StreamHandle handle = new_stream();
  Stream() = default;
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  ~Stream() { free_stream(handle); }
};
// Members in order: the stream outlives Kokkos' instance on it.
OwnedInstance::OwnedInstance()
    : stream_(std::make_unique<Stream>()), exec_(std::make_unique<ExecSpace>(stream_->handle)) {}
OwnedInstance::~OwnedInstance() {
  try {
    exec_->fence();
  } catch (...) {  // a device error: whoever met it first reports it
  }
  exec_.reset();  // Kokkos' instance goes before the stream it does not own
}

struct ExecInterval::Events {
  EventHandle start = new_event(), stop = new_event();
  Events() = default;
  Events(const Events&) = delete;
  Events& operator=(const Events&) = delete;
  ~Events() {
    free_event(start);
    free_event(stop);
  }
};
void ExecInterval::start(const ExecSpace& exec, const ExecInterval* after) {
  if (after != nullptr) wait_for(stream_of(exec), after->events_->stop);
  record(events_->start, stream_of(exec));
}
void ExecInterval::stop(const ExecSpace& exec) { record(events_->stop, stream_of(exec)); }
double ExecInterval::seconds() const { return elapsed_seconds(events_->start, events_->stop); }
#else
struct OwnedInstance::Stream {};
OwnedInstance::OwnedInstance() : exec_(std::make_unique<ExecSpace>()) {}
OwnedInstance::~OwnedInstance() {
  try {
    exec_->fence();
  } catch (...) {
  }
}

struct ExecInterval::Events {
  Kokkos::Timer clock;
  double seconds = 0;
};
void ExecInterval::start(const ExecSpace& exec, const ExecInterval*) {
  exec.fence();
  events_->clock.reset();
}
void ExecInterval::stop(const ExecSpace& exec) {
  exec.fence();
  events_->seconds = events_->clock.seconds();
}
double ExecInterval::seconds() const { return events_->seconds; }
#endif

ExecInterval::ExecInterval() : events_(std::make_unique<Events>()) {}
ExecInterval::~ExecInterval() = default;
ExecInterval::ExecInterval(ExecInterval&&) noexcept = default;
ExecInterval& ExecInterval::operator=(ExecInterval&&) noexcept = default;

}  // namespace portasolve
