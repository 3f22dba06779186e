#pragma once
// What a solve over MPI ranks spent beside its kernels, per rank: the halo
// exchanges, and the local arrays a solver makes for them (allocating,
// filling from the caller's block, copying the result back).
#include <cstdint>

namespace portasolve::distributed {

struct HaloStatistics {
  double seconds = 0;          // host time in halo exchanges (staged: with the wait for the kernels before them)
  std::int64_t exchanges = 0;  // exchanges of the whole ring (a solver's unit: a sweep's, a round's)
  bool device_aware = false;   // device buffers handed to MPI (else staged through host copies)
  double arrays_seconds = 0;   // making and filling the solver's local arrays, and copying the result out
};

}  // namespace portasolve::distributed
