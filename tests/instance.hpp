#pragma once
// For the tests of the overloads that take an execution space instance (every
// solver's exec overloads, FFT plans): an instance of the test's own, reads of
// a View on that instance or with no wait at all, and bit for bit comparisons
// of an instance's results against the default instance's.
//
// CUDA: the instance is a Kokkos::Cuda on a new non-blocking stream, which
// neither waits for the default (legacy) stream nor makes it wait, so work a
// solver wrongly leaves on the default instance is not ordered with the test's
// own copies on the instance (a blocking stream would be, through the legacy
// default stream). HIP: the same with a non-blocking hipStream_t. Host
// backends: ExecSpace(), the one instance Kokkos 3.4 has of OpenMP or Serial
// (they finish every kernel before returning).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "core/exec_instance.hpp"
#include "core/kokkos_compat.hpp"
#include "core/spaces.hpp"

namespace portasolve::instance_tests {

// The instance the tests run on (core/exec_instance.hpp: a non-blocking
// stream on GPUs, ExecSpace() on hosts).
using OwnInstance = portasolve::OwnedInstance;

#if defined(KOKKOS_ENABLE_CUDA)
inline void check(cudaError_t status, const char* call) {
  if (status != cudaSuccess) throw std::runtime_error(std::string(call) + ": " + cudaGetErrorString(status));
}
#elif defined(KOKKOS_ENABLE_HIP)
inline void check(hipError_t status, const char* call) {
  if (status != hipSuccess) throw std::runtime_error(std::string(call) + ": " + hipGetErrorString(status));
}
#endif

// A host copy of a device View, copied on exec after the work queued there
// and waited for by fencing exec only (no global fence).
template <class View>
auto read_on(const ExecSpace& exec, const View& view) {
  const auto host = kokkos_compat::host_mirror_without_init(view);
  Kokkos::deep_copy(exec, host, view);
  exec.fence();
  return host;
}

// A contiguous View's values as they are in memory now, with no fence of any
// instance: on CUDA a cudaMemcpy on the legacy default stream, which does not
// wait for non-blocking streams (an overload that returned with its work
// still running on its instance would be read half done); HIP a hipMemcpy
// likewise; host backends copy.
template <class View>
std::vector<typename View::non_const_value_type> read_now(const View& view) {
  using Value = typename View::non_const_value_type;
  std::vector<Value> values(view.span());
#if defined(KOKKOS_ENABLE_CUDA)
  check(cudaMemcpy(values.data(), view.data(), values.size() * sizeof(Value), cudaMemcpyDeviceToHost), "cudaMemcpy");
#elif defined(KOKKOS_ENABLE_HIP)
  check(hipMemcpy(values.data(), view.data(), values.size() * sizeof(Value), hipMemcpyDeviceToHost), "hipMemcpy");
#else
  using Unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
  Kokkos::deep_copy(Kokkos::View<Value*, HostSpace, Unmanaged>(values.data(), values.size()),
                    Kokkos::View<const Value*, MemSpace, Unmanaged>(view.data(), view.span()));
#endif
  return values;
}

// What outputs are filled with before a kernel writes them: NaN, or 77 for
// types without one.
template <class T>
T poison() {
  return std::numeric_limits<T>::has_quiet_NaN ? std::numeric_limits<T>::quiet_NaN() : T(77);
}

// Entries whose bits differ (so a NaN equals only the same NaN), -1 when the
// sizes differ.
template <class Value>
int bit_differences(const std::vector<Value>& a, const std::vector<Value>& b) {
  if (a.size() != b.size()) return -1;
  int count = 0;
  for (std::size_t k = 0; k < a.size(); ++k) count += std::memcmp(&a[k], &b[k], sizeof(Value)) != 0;
  return count;
}

// Index of the first entry whose bits differ, -1 when none (0 when the sizes
// differ).
template <class Value>
std::int64_t first_difference(const std::vector<Value>& a, const std::vector<Value>& b) {
  if (a.size() != b.size()) return 0;
  for (std::size_t k = 0; k < a.size(); ++k)
    if (std::memcmp(&a[k], &b[k], sizeof(Value)) != 0) return static_cast<std::int64_t>(k);
  return -1;
}

// The instance's values equal the default instance's bit for bit; a failure
// names the first entry that differs.
template <class Value>
void expect_same_bits(const std::vector<Value>& on_instance, const std::vector<Value>& on_default,
                      const std::string& label) {
  ASSERT_EQ(on_instance.size(), on_default.size()) << label;
  const std::int64_t k = first_difference(on_instance, on_default);
  EXPECT_EQ(k, -1) << label << ": entry " << k << " is " << (k >= 0 ? double(on_instance[k]) : 0.0)
                   << " on the instance, " << (k >= 0 ? double(on_default[k]) : 0.0) << " on the default one";
}

// Each listed member of a equals b's (a report of the instance's run against
// the default one's); a failure names the member by its place in the list.
template <class Struct, class... Types>
void expect_same_members(const Struct& a, const Struct& b, const std::string& label, Types Struct::*... members) {
  int place = 0;
  const auto expect = [&](auto member) {
    EXPECT_EQ(a.*member, b.*member) << label << ", member " << place << " of the list";
    ++place;
  };
  (expect(members), ...);
}

}  // namespace portasolve::instance_tests
