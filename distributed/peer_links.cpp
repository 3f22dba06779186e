#include "distributed/peer_links.hpp"

#include <Kokkos_Core.hpp>
#include <cstdlib>
#include <cstring>
#include <string>

#include "core/errors.hpp"

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime.h>
#endif

namespace portasolve::distributed {

bool peer_links_supported() {
#if defined(KOKKOS_ENABLE_CUDA)
  return true;
#else
  return false;
#endif
}

#if defined(KOKKOS_ENABLE_CUDA)
namespace {

// Tags of the set-up messages, apart from the halo's own (0-3: the side).
constexpr int offer_tag = 1100, answer_tag = 1110;

int opposite(int side) { return side ^ 1; }  // north <-> south, west <-> east

// PORTASOLVE_HALO_PEER=0 keeps every halo staged (to compare the two).
bool willing_by_environment() {
  const char* text = std::getenv("PORTASOLVE_HALO_PEER");
  return text == nullptr || std::string(text) != "0";
}

// What a rank offers the neighbour on one side: where it runs, and handles
// to the two buffers that neighbour's halo is to land in.
struct Offer {
  char host[MPI_MAX_PROCESSOR_NAME];
  int willing;
  cudaIpcMemHandle_t handle[2];
};

// One message to and one from every neighbour; the side is in the tag, as
// in HaloExchange, so two sides towards one rank (a periodic pair) do not mix.
template <class Message>
void swap_with_neighbours(MPI_Comm comm, const std::array<int, PeerLinks::sides>& neighbour,
                          const std::array<Message, PeerLinks::sides>& mine,
                          std::array<Message, PeerLinks::sides>& theirs, int tag) {
  std::array<MPI_Request, 2 * PeerLinks::sides> requests{};
  int posted = 0;
  for (int s = 0; s < PeerLinks::sides; ++s) {
    if (neighbour[s] == MPI_PROC_NULL) continue;
    MPI_Irecv(&theirs[s], sizeof(Message), MPI_BYTE, neighbour[s], tag + opposite(s), comm, &requests[posted++]);
    MPI_Isend(&mine[s], sizeof(Message), MPI_BYTE, neighbour[s], tag + s, comm, &requests[posted++]);
  }
  if (MPI_Waitall(posted, requests.data(), MPI_STATUSES_IGNORE) != MPI_SUCCESS)
    throw SolverError("halo exchange: setting up device-to-device links with the neighbours failed");
}

}  // namespace
#endif

PeerLinks::PeerLinks(MPI_Comm comm, const std::array<int, sides>& neighbour,
                     const std::array<std::size_t, sides>& receive_bytes) {
#if defined(KOKKOS_ENABLE_CUDA)
  int me = 0, length = 0;
  MPI_Comm_rank(comm, &me);
  char host[MPI_MAX_PROCESSOR_NAME] = {};
  MPI_Get_processor_name(host, &length);
  const bool willing = willing_by_environment();

  std::array<Offer, sides> mine{}, theirs{};
  for (int s = 0; s < sides; ++s) {
    if (neighbour[s] == MPI_PROC_NULL) continue;
    std::memcpy(mine[s].host, host, sizeof host);
    mine[s].willing = willing && neighbour[s] != me && receive_bytes[s] > 0;
    for (int parity = 0; parity < 2 && mine[s].willing; ++parity)
      if (cudaMalloc(&own_[s][parity], receive_bytes[s]) != cudaSuccess ||
          cudaIpcGetMemHandle(&mine[s].handle[parity], own_[s][parity]) != cudaSuccess)
        mine[s].willing = 0;
  }
  swap_with_neighbours(comm, neighbour, mine, theirs, offer_tag);

  std::array<int, sides> opened{}, answered{};
  for (int s = 0; s < sides; ++s) {
    if (neighbour[s] == MPI_PROC_NULL || !mine[s].willing || !theirs[s].willing ||
        std::strncmp(host, theirs[s].host, MPI_MAX_PROCESSOR_NAME) != 0)
      continue;
    opened[s] = 1;
    for (int parity = 0; parity < 2 && opened[s]; ++parity)
      if (cudaIpcOpenMemHandle(&remote_[s][parity], theirs[s].handle[parity], cudaIpcMemLazyEnablePeerAccess) !=
          cudaSuccess) {
        remote_[s][parity] = nullptr;
        opened[s] = 0;
      }
  }
  swap_with_neighbours(comm, neighbour, opened, answered, answer_tag);
  for (int s = 0; s < sides; ++s)
    if (!opened[s] || !answered[s]) release(s);
  (void)cudaGetLastError();  // a refused handle or allocation above is not this launch's error
#else
  (void)comm;
  (void)neighbour;
  (void)receive_bytes;
#endif
}

PeerLinks::~PeerLinks() {
  for (int s = 0; s < sides; ++s) release(s);
}

bool PeerLinks::any_linked() const noexcept {
  for (int s = 0; s < sides; ++s)
    if (linked(s)) return true;
  return false;
}

void PeerLinks::release(int side) noexcept {
#if defined(KOKKOS_ENABLE_CUDA)
  for (int parity = 0; parity < 2; ++parity) {
    if (remote_[side][parity]) cudaIpcCloseMemHandle(remote_[side][parity]);
    if (own_[side][parity]) cudaFree(own_[side][parity]);
  }
#endif
  remote_[side] = {nullptr, nullptr};
  own_[side] = {nullptr, nullptr};
}

void PeerLinks::copy_to_neighbour(int side, int parity, const void* source, std::size_t bytes) const {
#if defined(KOKKOS_ENABLE_CUDA)
  const cudaError_t status =
      cudaMemcpyAsync(remote_[side][parity], source, bytes, cudaMemcpyDefault, Kokkos::Cuda().cuda_stream());
  if (status != cudaSuccess)
    throw SolverError(std::string("halo exchange: the device-to-device copy to a neighbour failed: ") +
                      cudaGetErrorString(status));
#else
  (void)side;
  (void)parity;
  (void)source;
  (void)bytes;
#endif
}

}  // namespace portasolve::distributed
