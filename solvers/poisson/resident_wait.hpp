#pragma once
// Waiting inside resident kernels (jacobi_resident.hpp, cg_resident.hpp),
// whose teams wait for one another within one launch. That needs every team
// resident at once; should one wait too long anyway (a device shared with
// other work), it raises `stall` and every later wait returns at once, so the
// launch ends, its results unused, and the host reports an error instead of
// hanging.
#include <cstdint>
#include <thread>

#include <impl/Kokkos_ClockTic.hpp>

#include "core/spaces.hpp"

namespace portasolve::poisson {

constexpr long long resident_patience = 1LL << 26;  // polls before a wait gives up

// Called before each repeated poll of a wait that has polled `polls` times:
// false once the wait gives up (after resident_patience polls) or another
// has raised the stall.
KOKKOS_INLINE_FUNCTION bool keep_polling(long long& polls, volatile int* stall) {
  // The stall flag is read every 64th poll, so it does not slow each poll by a round trip.
  if (++polls % 64 == 0 && *stall != 0) return false;
  if (polls == resident_patience) {
    *stall = 1;
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

// Polls until *value >= target, or until it gives up or a stall is raised.
KOKKOS_INLINE_FUNCTION void wait_until_reaches(const volatile int* value, const int target, volatile int* stall) {
  for (long long polls = 0; *value < target && keep_polling(polls, stall);) {
  }
}

}  // namespace portasolve::poisson
