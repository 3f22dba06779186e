// for_each_on_host_threads: every index once, the first failure in index
// order rethrown, and no more threads than set_host_threads() allows.
#include <gtest/gtest.h>

#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "core/host_threads.hpp"

namespace {

// The distinct threads that ran f over n items.
std::size_t threads_used(std::size_t n) {
  std::mutex mutex;
  std::set<std::thread::id> ids;
  portasolve::for_each_on_host_threads(n, 1, [&](std::size_t) {
    std::lock_guard<std::mutex> lock(mutex);
    ids.insert(std::this_thread::get_id());
  });
  return ids.size();
}

}  // namespace

TEST(HostThreads, EveryIndexOnceAndTheFirstFailureInIndexOrder) {
  std::vector<int> seen(1000, 0);
  portasolve::for_each_on_host_threads(seen.size(), 1, [&](std::size_t i) { ++seen[i]; });
  for (std::size_t i = 0; i < seen.size(); ++i) ASSERT_EQ(seen[i], 1) << i;
  try {
    portasolve::for_each_on_host_threads(1000, 1, [](std::size_t i) {
      if (i == 10 || i == 900) throw std::runtime_error(std::to_string(i));
    });
    FAIL() << "no exception";
  } catch (const std::runtime_error& error) {
    EXPECT_STREQ(error.what(), "10");
  }
}

TEST(HostThreads, ALimitBoundsTheThreads) {
  const std::size_t cores = std::max(1u, std::thread::hardware_concurrency());
  EXPECT_EQ(portasolve::host_threads(), cores);
  portasolve::set_host_threads(1);
  EXPECT_EQ(portasolve::host_threads(), 1u);
  EXPECT_EQ(threads_used(4096), 1u);  // the caller's own thread
  portasolve::set_host_threads(2);
  EXPECT_LE(threads_used(4096), 2u);
  portasolve::set_host_threads(0);  // back to the machine's cores
  EXPECT_EQ(portasolve::host_threads(), cores);
}
