#pragma once
// Waiting inside resident kernels (jacobi_resident.hpp, cg_resident.hpp),
// whose teams wait for one another within one launch. That needs every team
// resident at once; should one wait too long anyway (a device shared with
// other work), it raises `stall` and every later wait returns at once, so the
// launch ends, its results unused, and the host reports an error instead of
// hanging.
//
// What teams of one launch share while they run (counters, flags, published
// values) goes through the atomic loads and stores below, never plain or
// volatile accesses alone. Ordering follows the fence pattern of the C++ and
// PTX memory models: a writer fences (Kokkos::memory_fence) after its data and
// before the relaxed atomic store or increment that publishes it (release); a
// reader that has observed that value fences before it reads the data
// (acquire). A team barrier before the writer's fence and after the reader's
// makes one thread's fence order its whole team's accesses (fences are
// cumulative).
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <thread>

#if defined(__CUDA_ARCH__)
#include <cuda/atomic>
#endif
#include <impl/Kokkos_ClockTic.hpp>

#include "core/errors.hpp"
#include "core/spaces.hpp"

namespace portasolve::poisson::detail {

// Relaxed atomic load and store of a word other teams of the launch write or
// read at the same time: single-copy atomic (a reader sees a whole value some
// writer stored) and never kept in a register across polls. Device scope on
// CUDA, where every team of a launch runs; the compiler's generic atomics
// elsewhere (hosts, HIP devices). nvcc >= 12.8 has them as builtins, which,
// unlike cuda::atomic_ref's inline assembly, leave the compiler free to keep
// the kernel's other values in registers around them.
#if defined(__CUDA_ARCH__) && (__CUDACC_VER_MAJOR__ > 12 || (__CUDACC_VER_MAJOR__ == 12 && __CUDACC_VER_MINOR__ >= 8))
#define PORTASOLVE_NV_ATOMIC_BUILTINS 1
#endif

template <class T>
KOKKOS_INLINE_FUNCTION T load_shared_word(const T* word) {
#if defined(PORTASOLVE_NV_ATOMIC_BUILTINS)
  T value;
  __nv_atomic_load(const_cast<T*>(word), &value, __NV_ATOMIC_RELAXED, __NV_THREAD_SCOPE_DEVICE);
  return value;
#elif defined(__CUDA_ARCH__)
  return cuda::atomic_ref<T, cuda::thread_scope_device>(*const_cast<T*>(word)).load(cuda::std::memory_order_relaxed);
#else
  T value;
  __atomic_load(word, &value, __ATOMIC_RELAXED);
  return value;
#endif
}

template <class T>
KOKKOS_INLINE_FUNCTION void store_shared_word(T* word, T value) {
#if defined(PORTASOLVE_NV_ATOMIC_BUILTINS)
  __nv_atomic_store(word, &value, __NV_ATOMIC_RELAXED, __NV_THREAD_SCOPE_DEVICE);
#elif defined(__CUDA_ARCH__)
  cuda::atomic_ref<T, cuda::thread_scope_device>(*word).store(value, cuda::std::memory_order_relaxed);
#else
  __atomic_store(word, &value, __ATOMIC_RELAXED);
#endif
}

// The float resident tiles' stamped words (a value and the round that wrote
// it in one aligned 64-bit word, both flag and data: jacobi_resident.hpp).
// On CUDA these are volatile accesses, which the PTX memory model defines as
// relaxed system-scope loads and stores: strong and single-copy atomic like
// load_shared_word, and, unlike the builtin atomics, kept in program order
// with the round's other volatile accesses and its publish-then-wait delay.
// With the builtins the talk's case took 42.9 ms instead of 39.5 (the same
// run, BENCHMARKS.md): the first poll no longer waited for the stores.
KOKKOS_INLINE_FUNCTION std::uint64_t load_stamped_word(const std::uint64_t* word) {
#if defined(__CUDA_ARCH__)
  return *static_cast<const volatile std::uint64_t*>(word);
#else
  return load_shared_word(word);
#endif
}

KOKKOS_INLINE_FUNCTION void store_stamped_word(std::uint64_t* word, const std::uint64_t value) {
#if defined(__CUDA_ARCH__)
  *static_cast<volatile std::uint64_t*>(word) = value;
#else
  store_shared_word(word, value);
#endif
}

// Polls before a wait gives up: at ~1 us a poll on GPUs, about a minute,
// far beyond any wait among resident teams. PORTASOLVE_RESIDENT_PATIENCE
// lowers it, so that tests can drive the stall path on purpose.
constexpr long long resident_patience = 1LL << 26;

// Host side, when a launcher is built: the environment's `name` as an
// integer of at least `minimum` (`what` names that rule in the error), or
// `fallback` when it is unset or empty.
inline long long resident_setting_from_environment(const char* name, long long fallback, long long minimum,
                                                   const char* what) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return fallback;
  char* end = nullptr;
  const long long value = std::strtoll(text, &end, 10);
  if (*end != '\0' || value < minimum) throw InputError(std::string(name) + ": '" + text + "' is not a " + what);
  return value;
}

// resident_patience, or PORTASOLVE_RESIDENT_PATIENCE (a positive integer).
inline long long resident_patience_from_environment() {
  return resident_setting_from_environment("PORTASOLVE_RESIDENT_PATIENCE", resident_patience, 1, "positive integer");
}

// How long tests hold one team of a resident launch back
// (PORTASOLVE_RESIDENT_LAG: GPU clock cycles, or nanoseconds on hosts; a
// non-negative integer, 0 or unset in production).
inline std::uint64_t resident_lag_from_environment() {
  return static_cast<std::uint64_t>(
      resident_setting_from_environment("PORTASOLVE_RESIDENT_LAG", 0, 0, "non-negative integer"));
}

// How a resident launch's waits give up: after `patience` polls, by raising
// the launch's stall flag, which ends every other wait too.
struct StallWatch {
  int* stall;
  long long patience;
};

// Called before each repeated poll of a wait that has polled `polls` times:
// false once the wait gives up or another has raised the stall.
KOKKOS_INLINE_FUNCTION bool keep_polling(long long& polls, const StallWatch& watch) {
  // The stall flag is read every 64th poll, so it does not slow each poll by a round trip.
  if (++polls % 64 == 0 && load_shared_word(watch.stall) != 0) return false;
  if (polls >= watch.patience) {
    store_shared_word(watch.stall, 1);
    return false;
  }
#if !defined(__CUDA_ARCH__) && !defined(__HIP_DEVICE_COMPILE__)
  std::this_thread::yield();  // host threads may share cores
#endif
  return true;
}

// GPU clock cycles a resident tile lets pass between publishing its points
// and first reading its neighbours'. They publish at about the same moment,
// and a read that reaches memory before their writes costs a second round
// trip: on an H100, waiting 150 to 500 cycles saved 0.5 to 0.9 ms of 41 in the
// talk's case (BENCHMARKS.md).
constexpr std::uint64_t resident_publish_lead = 300;

// Lets about `cycles` clock cycles pass on GPUs; hosts, whose teams are
// threads that may share a core, go straight on.
KOKKOS_INLINE_FUNCTION void let_cycles_pass(const std::uint64_t cycles) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  const std::uint64_t start = Kokkos::Impl::clock_tic();
  while (Kokkos::Impl::clock_tic() - start < cycles) {
  }
#else
  (void)cycles;
#endif
}

// Holds the calling thread back: `cycles` GPU clock cycles on GPUs, as many
// nanoseconds on hosts (tests only: resident_lag_from_environment).
KOKKOS_INLINE_FUNCTION void hold_back(const std::uint64_t cycles) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  let_cycles_pass(cycles);
#else
  std::this_thread::sleep_for(std::chrono::nanoseconds(cycles));
#endif
}

// After one thread of a warp has waited, the rest of its warp waits for it
// before the team barrier that follows: hardware since Volta counts a
// barrier's arrivals per thread, but a barrier that counted the warp as
// arrived when its first lanes got there (as older GPUs did, and as the
// cooperative-groups grid barrier also guards against) would let the team
// read the published values before the wait had seen them.
KOKKOS_INLINE_FUNCTION void converge_warp() {
#if defined(__CUDA_ARCH__)
  __syncwarp();
#endif
}

// Polls until *value >= target, or until it gives up or a stall is raised;
// then fences, so the caller's next loads see what was published before
// *value reached the target (acquire). The caller checks the stall flag
// before trusting those loads.
KOKKOS_INLINE_FUNCTION void wait_until_reaches(const int* value, const int target, const StallWatch& watch) {
  for (long long polls = 0; load_shared_word(value) < target && keep_polling(polls, watch);) {
  }
  Kokkos::memory_fence();
}

}  // namespace portasolve::poisson::detail
