#pragma once
// What a solve over MPI ranks spent beside its kernels, per rank: the halo
// exchanges, and the local arrays a solver makes for them (allocating,
// filling from the caller's block, copying the result back).
#include <cstdint>

namespace portasolve::distributed {

// How halos travel (halo_transport_name: what the result file says).
enum class HaloTransport {
  host_memory,       // a host backend: MPI moves the arrays' own memory
  staged,            // device buffers copied through page-locked host buffers
  device_aware_mpi,  // device buffers handed to an MPI that moves device memory
  peer_copies,       // device to device within a node (peer_links.hpp), every side
  peer_and_staged,   // device to device to the ranks of this node, staged to the others
  no_neighbours,     // an exchange with no side to fill (a 2 x 1 split's exchange across)
};

// The transport of two exchanges of one solver taken together.
inline HaloTransport combined(HaloTransport a, HaloTransport b) {
  if (a == HaloTransport::no_neighbours || a == b) return b;
  if (b == HaloTransport::no_neighbours) return a;
  return HaloTransport::peer_and_staged;  // only peer copies differ by side from staging
}

struct HaloStatistics {
  double seconds = 0;          // host time in halo exchanges (staged: with the wait for the kernels before them)
  std::int64_t exchanges = 0;  // exchanges of the whole ring (a solver's unit: a sweep's, a round's)
  HaloTransport transport = HaloTransport::staged;
  double arrays_seconds = 0;  // making and filling the solver's local arrays, and copying the result out
};

}  // namespace portasolve::distributed
