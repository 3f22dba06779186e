#pragma once
// Host-side work split over the host's cores with plain threads, for loops
// that run beside the device (preparing the next batch, per-item statistics)
// in every build: a CUDA or HIP build's host execution space is serial.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <thread>
#include <vector>

namespace portasolve {

namespace detail {
inline std::atomic<std::size_t>& host_thread_limit() {
  static std::atomic<std::size_t> limit{0};  // 0: the machine's cores
  return limit;
}
}  // namespace detail

// The threads a host loop below may use: the machine's cores, unless set
// lower, as each MPI rank does where several share a node (its share of the
// cores: two ranks each spawning a thread per core ran the node's host work
// at twice its cores). 0 restores the machine's cores.
inline void set_host_threads(std::size_t threads) { detail::host_thread_limit() = threads; }
inline std::size_t host_threads() {
  const std::size_t limit = detail::host_thread_limit();
  return limit > 0 ? limit : std::max(1u, std::thread::hardware_concurrency());
}

// f(i) for i in [0, n), each i once, in contiguous blocks over up to
// host_threads() threads, none with fewer than `minimum_per_thread`
// items (below that a thread costs more than it saves). The first exception
// in index order is rethrown here after every thread has finished.
template <class F>
void for_each_on_host_threads(std::size_t n, std::size_t minimum_per_thread, const F& f) {
  const std::size_t threads = std::min(host_threads(), n / std::max<std::size_t>(minimum_per_thread, 1));
  if (threads <= 1) {
    for (std::size_t i = 0; i < n; ++i) f(i);
    return;
  }
  std::vector<std::thread> pool;
  std::vector<std::exception_ptr> failures(threads);
  for (std::size_t k = 0; k < threads; ++k)
    pool.emplace_back([&, k] {
      try {
        for (std::size_t i = n * k / threads; i < n * (k + 1) / threads; ++i) f(i);
      } catch (...) {
        failures[k] = std::current_exception();
      }
    });
  for (auto& thread : pool) thread.join();
  for (const auto& failure : failures)
    if (failure) std::rethrow_exception(failure);
}

}  // namespace portasolve
