#pragma once
// The halo of a rank's local array (GridDecomposition's layout): the `width`
// rows and columns of each neighbour's block next to this one. Edges are
// packed on the device into contiguous buffers, exchanged with non-blocking
// MPI (device buffers when the MPI library moves device memory; else, between
// the GPUs of one node, copied device to device with an empty MPI message
// saying so (peer_links.hpp); else through host copies), and unpacked into
// the ring. Corners are not exchanged: the 5-point
// stencil does not read them.
//
// start() and finish() split one exchange so the caller can update the
// points that need no halo in between (the interior of the block).
//
// The local array's ring is `width` wide on every side unless `ring` says
// otherwise: a deep halo (temporally blocked Jacobi) keeps a ring of 1 where
// the block meets the grid's edge (the boundary values) and of `width` where
// a neighbour's points land. The ring must be at least `width` wide on every
// side that has a neighbour.
#include <mpi.h>

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>

#include "core/errors.hpp"
#include "core/kokkos_compat.hpp"
#include "core/spaces.hpp"
#include "distributed/grid_decomposition.hpp"
#include "distributed/halo_statistics.hpp"
#include "distributed/mpi_session.hpp"
#include "distributed/peer_links.hpp"

namespace portasolve::distributed {

// A rectangle of a local array and a flat buffer of its points, row-major.
struct PackTag {};
struct UnpackTag {};

template <class T>
struct EdgeCopy {
  View2D<T> grid;
  View1D<T> buffer;
  int first_row, first_col, cols;
  KOKKOS_INLINE_FUNCTION void operator()(PackTag, const int k) const {
    buffer(k) = grid(first_row + k / cols, first_col + k % cols);
  }
  KOKKOS_INLINE_FUNCTION void operator()(UnpackTag, const int k) const {
    grid(first_row + k / cols, first_col + k % cols) = buffer(k);
  }
};

template <class T>
MPI_Datatype mpi_type();
template <>
inline MPI_Datatype mpi_type<float>() {
  return MPI_FLOAT;
}
template <>
inline MPI_Datatype mpi_type<double>() {
  return MPI_DOUBLE;
}
template <>
inline MPI_Datatype mpi_type<std::uint8_t>() {
  return MPI_UINT8_T;
}
template <>
inline MPI_Datatype mpi_type<std::uint16_t>() {
  return MPI_UINT16_T;
}
template <>
inline MPI_Datatype mpi_type<std::int32_t>() {
  return MPI_INT32_T;
}

// Which sides an exchange fills: edges, all four sides, the block's own rows
// and columns (the 5-point stencil's); across, west and east only;
// down_with_corners, north and south only, rows the full width of the local
// array (ring columns included).
enum class HaloShape { edges, across, down_with_corners };

// Widths of a local array's ring on each side. edge_rows: an `across`
// exchange also carries the ring rows on the grid's north and south edges
// (the boundary values a deep halo's corners need).
struct RingWidths {
  int north, south, west, east;
  bool edge_rows = false;
  static RingWidths uniform(int width) { return RingWidths{width, width, width, width}; }
  // A deep halo's ring: `depth` on the sides with a neighbour, `at_edges` on the grid's edges.
  static RingWidths toward_neighbours(const GridDecomposition& grid, int depth, int at_edges, bool edge_rows) {
    const auto width = [&](int neighbour) { return neighbour == MPI_PROC_NULL ? at_edges : depth; };
    return RingWidths{width(grid.north()), width(grid.south()), width(grid.west()), width(grid.east()), edge_rows};
  }
};

template <class T>
class HaloExchange {
  enum Side { north, south, west, east, sides };
  struct Rectangle {
    int first_row, first_col, rows, cols;
    int points() const { return rows * cols; }
  };

 public:
  HaloExchange(const GridDecomposition& grid, int width, HaloShape shape = HaloShape::edges)
      : HaloExchange(grid, width, shape, RingWidths::uniform(width)) {}

  HaloExchange(const GridDecomposition& grid, int width, HaloShape shape, const RingWidths& ring)
      : comm_(grid.comm()), device_aware_(device_memory_aware()) {
    const int rows = static_cast<int>(grid.rows_owned().count), cols = static_cast<int>(grid.cols_owned().count);
    neighbour_ = {grid.north(), grid.south(), grid.west(), grid.east()};
    if (shape == HaloShape::across) neighbour_[north] = neighbour_[south] = MPI_PROC_NULL;
    if (shape == HaloShape::down_with_corners) neighbour_[west] = neighbour_[east] = MPI_PROC_NULL;
    const int w = width, rn = ring.north, rw = ring.west;
    // What this rank sends each way (its own points next to that edge) and
    // where the neighbour's points land (the ring). Ranks of one process
    // column share their west and east ring widths (and of one row, north and
    // south), so full-width rows line up.
    const int first_col = shape == HaloShape::down_with_corners ? 0 : rw;
    const int row_length = shape == HaloShape::down_with_corners ? cols + rw + ring.east : cols;
    send_ = {Rectangle{rn, first_col, w, row_length}, Rectangle{rn + rows - w, first_col, w, row_length},
             Rectangle{rn, rw, rows, w}, Rectangle{rn, rw + cols - w, rows, w}};
    receive_ = {Rectangle{rn - w, first_col, w, row_length}, Rectangle{rn + rows, first_col, w, row_length},
                Rectangle{rn, rw - w, rows, w}, Rectangle{rn, rw + cols, rows, w}};
    if (ring.edge_rows &&
        ((grid.north() == MPI_PROC_NULL && ring.north < 1) || (grid.south() == MPI_PROC_NULL && ring.south < 1)))
      throw std::invalid_argument("halo exchange: edge_rows needs a ring row on the grid's north and south edges");
    if (ring.edge_rows && shape == HaloShape::across) {
      // West and east messages also carry the ring rows on the grid's north
      // and south edges (ranks of one process row share those edges).
      const int north_edge = grid.north() == MPI_PROC_NULL ? 1 : 0, south_edge = grid.south() == MPI_PROC_NULL ? 1 : 0;
      for (Rectangle* r : {&send_[west], &send_[east], &receive_[west], &receive_[east]}) {
        r->first_row -= north_edge;
        r->rows += north_edge + south_edge;
      }
    }
    const std::array<int, sides> widths{ring.north, ring.south, ring.west, ring.east};
    const std::array<int, sides> depths{rows, rows, cols, cols};  // own points behind each side
    for (int side = 0; side < sides; ++side) {
      if (neighbour_[side] == MPI_PROC_NULL) continue;
      if (widths[side] < w)
        throw std::invalid_argument("halo exchange: a ring of " + std::to_string(widths[side]) +
                                    " cannot hold a halo of width " + std::to_string(w));
      if (depths[side] < w)
        throw std::invalid_argument("a " + std::to_string(rows) + "x" + std::to_string(cols) +
                                    " block cannot give a halo of width " + std::to_string(w) + ": use fewer ranks");
    }
    for (int s = 0; s < sides; ++s) {
      if (neighbour_[s] == MPI_PROC_NULL) continue;
      send_buffer_[s] = View1D<T>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "halo_send"), send_[s].points());
      receive_buffer_[s] =
          View1D<T>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "halo_receive"), receive_[s].points());
      if constexpr (staged_on_device) {
        // Staging buffers in page-locked memory: copies from pageable memory go through the driver's
        // bounce buffer at a fraction of the link's speed (a 512 KB deep halo: ~0.5 ms an exchange).
        send_host_[s] =
            HostBuffer(Kokkos::view_alloc(Kokkos::WithoutInitializing, "halo_send_host"), send_[s].points());
        receive_host_[s] =
            HostBuffer(Kokkos::view_alloc(Kokkos::WithoutInitializing, "halo_receive_host"), receive_[s].points());
      } else {  // host backends: MPI reads and writes the buffers themselves
        send_host_[s] = send_buffer_[s];
        receive_host_[s] = receive_buffer_[s];
      }
    }
    if (staged_on_device && !device_aware_ && peer_links_supported()) {
      std::array<std::size_t, sides> receive_bytes{};
      for (int s = 0; s < sides; ++s) receive_bytes[s] = sizeof(T) * static_cast<std::size_t>(receive_[s].points());
      peers_ = std::make_shared<PeerLinks>(comm_, neighbour_, receive_bytes);
    }
  }

  // Packs this rank's edges of `x` and posts the sends and receives.
  void start(const View2D<T>& x) {
    // Host time only: a fence here would end the overlap with the interior update.
    Kokkos::Timer watch;
    int posted = 0;
    for (int s = 0; s < sides; ++s) {
      if (neighbour_[s] == MPI_PROC_NULL) continue;
      const Rectangle& r = send_[s];
      Kokkos::parallel_for("halo_pack", Kokkos::RangePolicy<ExecSpace, PackTag>(0, r.points()),
                           EdgeCopy<T>{x, send_buffer_[s], r.first_row, r.first_col, r.cols});
    }
    if (!device_aware_) Kokkos::fence();
    const int parity = static_cast<int>(exchanges_ & 1);
    for (int s = 0; s < sides; ++s) {
      if (neighbour_[s] == MPI_PROC_NULL) continue;
      if (linked(s))
        peers_->copy_to_neighbour(s, parity, send_buffer_[s].data(), sizeof(T) * send_[s].points());
      else if (!device_aware_)
        Kokkos::deep_copy(send_host_[s], send_buffer_[s]);
    }
    // The packed buffers are complete before MPI reads them, and the peer
    // copies have landed before the messages that announce them.
    if (device_aware_ || (peers_ && peers_->any_linked())) Kokkos::fence();
    for (int s = 0; s < sides; ++s) {
      if (neighbour_[s] == MPI_PROC_NULL) continue;
      // The tag names the side the message travels to, so north's send meets
      // the northern neighbour's receive from its south. A peer link's
      // message is empty: its halo is already in the receive buffer.
      const int in_count = linked(s) ? 0 : receive_[s].points(), out_count = linked(s) ? 0 : send_[s].points();
      T* in = device_aware_ ? receive_buffer_[s].data() : receive_host_[s].data();
      T* out = device_aware_ ? send_buffer_[s].data() : send_host_[s].data();
      check(MPI_Irecv(in, in_count, mpi_type<T>(), neighbour_[s], opposite(s), comm_, &requests_[posted++]),
            "MPI_Irecv");
      check(MPI_Isend(out, out_count, mpi_type<T>(), neighbour_[s], s, comm_, &requests_[posted++]), "MPI_Isend");
    }
    posted_ = posted;
    seconds_ += watch.seconds();
  }

  // Waits for the exchange and writes the neighbours' points into x's ring.
  void finish(const View2D<T>& x) {
    Kokkos::Timer watch;
    check(MPI_Waitall(posted_, requests_.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
    posted_ = 0;
    const int parity = static_cast<int>(exchanges_ & 1);
    for (int s = 0; s < sides; ++s) {
      if (neighbour_[s] == MPI_PROC_NULL) continue;
      const Rectangle& r = receive_[s];
      View1D<T> arrived = receive_buffer_[s];
      if (linked(s))
        arrived = View1D<T>(static_cast<T*>(peers_->receive_buffer(s, parity)), r.points());
      else if (!device_aware_)
        Kokkos::deep_copy(receive_buffer_[s], receive_host_[s]);
      Kokkos::parallel_for("halo_unpack", Kokkos::RangePolicy<ExecSpace, UnpackTag>(0, r.points()),
                           EdgeCopy<T>{x, arrived, r.first_row, r.first_col, r.cols});
    }
    ++exchanges_;
    seconds_ += watch.seconds();
  }

  void exchange(const View2D<T>& x) {
    start(x);
    finish(x);
  }

  // Whether this exchange moves points across each side (north, south, west, east).
  std::array<bool, 4> neighbours() const noexcept {
    return {neighbour_[north] != MPI_PROC_NULL, neighbour_[south] != MPI_PROC_NULL, neighbour_[west] != MPI_PROC_NULL,
            neighbour_[east] != MPI_PROC_NULL};
  }

  // Host time spent in start() and finish(): packing, staging, waiting.
  double seconds() const noexcept { return seconds_; }
  std::int64_t exchanges() const noexcept { return exchanges_; }
  HaloTransport transport() const noexcept {
    if (!staged_on_device) return HaloTransport::host_memory;
    if (device_aware_) return HaloTransport::device_aware_mpi;
    int sides_with_neighbours = 0, linked_sides = 0;
    for (int s = 0; s < sides; ++s) {
      sides_with_neighbours += neighbour_[s] != MPI_PROC_NULL;
      linked_sides += linked(s);
    }
    if (sides_with_neighbours == 0) return HaloTransport::no_neighbours;
    if (linked_sides == 0) return HaloTransport::staged;
    return linked_sides == sides_with_neighbours ? HaloTransport::peer_copies : HaloTransport::peer_and_staged;
  }

 private:
  static int opposite(int side) { return side ^ 1; }  // north <-> south, west <-> east
  bool linked(int side) const noexcept { return peers_ && peers_->linked(side); }
  static void check(int code, const char* call) {
    if (code != MPI_SUCCESS) {
      char text[MPI_MAX_ERROR_STRING];
      int length = 0;
      MPI_Error_string(code, text, &length);
      throw SolverError(std::string("halo exchange: ") + call + " failed: " + std::string(text, length));
    }
  }

  MPI_Comm comm_;
  bool device_aware_;
  std::array<int, sides> neighbour_{};
  std::array<Rectangle, sides> send_{}, receive_{};
  std::array<View1D<T>, sides> send_buffer_, receive_buffer_;
  // Device backends stage through page-locked host memory; host backends' buffers are already on the host.
  static constexpr bool staged_on_device = !Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemSpace>::accessible;
  using HostBuffer = Kokkos::View<T*, std::conditional_t<staged_on_device, kokkos_compat::PinnedHostSpace, MemSpace>>;
  std::array<HostBuffer, sides> send_host_, receive_host_;
  std::shared_ptr<PeerLinks> peers_;  // device-to-device sides (staged device builds only)
  std::array<MPI_Request, 2 * sides> requests_{};
  int posted_ = 0;
  double seconds_ = 0;
  std::int64_t exchanges_ = 0;
};

// A halo exchange that also fills the ring's corners (for stencils that read
// diagonal neighbours, and deep halos): west and east first, then north and
// south the full width of the local array, which carries the corners the
// first exchange brought.
template <class T>
class CornerHaloExchange {
 public:
  CornerHaloExchange(const GridDecomposition& grid, int width, const RingWidths& ring)
      : across_(grid, width, HaloShape::across, ring), down_(grid, width, HaloShape::down_with_corners, ring) {}
  CornerHaloExchange(const GridDecomposition& grid, int width)
      : CornerHaloExchange(grid, width, RingWidths::uniform(width)) {}

  void exchange(const View2D<T>& x) {
    across_.exchange(x);
    down_.exchange(x);
  }
  HaloExchange<T>& across() noexcept { return across_; }
  HaloExchange<T>& down() noexcept { return down_; }
  double seconds() const noexcept { return across_.seconds() + down_.seconds(); }
  std::int64_t exchanges() const noexcept { return down_.exchanges(); }  // whole rings
  HaloTransport transport() const noexcept { return combined(across_.transport(), down_.transport()); }

 private:
  HaloExchange<T> across_, down_;
};

}  // namespace portasolve::distributed
