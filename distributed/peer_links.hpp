#pragma once
// Device-to-device halo links between the ranks of one node (CUDA IPC), for
// MPI libraries that cannot move device memory (Debian's Open MPI): instead
// of staging a halo through host buffers, a rank copies its packed edge
// straight into its neighbour's receive buffer on the neighbour's GPU
// (NVLink or PCIe peer copies) and tells it so with an empty MPI message.
//
// Each receive buffer comes twice, by the parity of the exchange: a rank
// writes round k + 1 into the other buffer while its neighbour may still be
// unpacking round k. It cannot get further ahead: before round k + 2 it waits
// for the neighbour's round k + 1 message, which the neighbour sends only
// after a fence that ends its unpacking of round k.
//
// Links are set up by the neighbours together when a HaloExchange is made
// (every rank makes its exchanges in the same order), and only where both
// ranks run on one host with a CUDA device, neither is its own neighbour,
// both could open the other's buffers and PORTASOLVE_HALO_PEER is not "0" on
// either. Every other side stays staged.
#include <mpi.h>

#include <array>
#include <cstddef>

namespace portasolve::distributed {

class PeerLinks {
 public:
  static constexpr int sides = 4;

  // neighbour[s]: the rank on side s (MPI_PROC_NULL: none); receive_bytes[s]:
  // the size of the halo that arrives from it. Collective with the neighbours.
  PeerLinks(MPI_Comm comm, const std::array<int, sides>& neighbour,
            const std::array<std::size_t, sides>& receive_bytes);
  ~PeerLinks();
  PeerLinks(const PeerLinks&) = delete;
  PeerLinks& operator=(const PeerLinks&) = delete;

  bool linked(int side) const noexcept { return remote_[side][0] != nullptr; }
  bool any_linked() const noexcept;
  // This rank's buffer the neighbour on `side` writes round `parity` into.
  void* receive_buffer(int side, int parity) const noexcept { return own_[side][parity]; }
  // Copies `bytes` from this device's `source` into the neighbour's buffer
  // for round `parity`, ordered after the work already on the default
  // execution space's stream; the caller fences before telling the neighbour.
  void copy_to_neighbour(int side, int parity, const void* source, std::size_t bytes) const;

 private:
  void release(int side) noexcept;

  std::array<std::array<void*, 2>, sides> own_{}, remote_{};
};

// Whether this build can link ranks device to device (CUDA backend).
bool peer_links_supported();

}  // namespace portasolve::distributed
