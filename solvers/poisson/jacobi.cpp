// The Jacobi loops: plain (one launch per sweep) and temporally blocked (up to
// k sweeps per launch), ping-ponging two grids that share the boundary.
#include <algorithm>
#include <memory>
#include <optional>
#include <stdexcept>
#include <utility>

#include "core/errors.hpp"
#include "core/kokkos_session.hpp"
#include "solvers/poisson/detail/jacobi_blocked.hpp"
#include "solvers/poisson/detail/jacobi_registers.hpp"
#include "solvers/poisson/detail/jacobi_resident.hpp"
#include "solvers/poisson/detail/methods.hpp"
#include "solvers/poisson/detail/stencil.hpp"

namespace portasolve::poisson::detail {

namespace {

template <class T>
class BlockedLauncher {
  using Policy = typename BlockedJacobi<T>::Policy;

  // The largest square region whose two buffers fit the team scratch.
  static int tile_or_automatic(int tile, int halo) {
    if (tile > 0) return tile;
    const std::size_t limit = static_cast<std::size_t>(Policy::scratch_size_max(0));
    int side = 1;
    while (BlockedJacobi<T>::scratch_bytes(BlockGeometry{side + 1, side + 1, 0, 1, 1}) <= limit) ++side;
    return std::max(1, side - 2 * halo);
  }

  static int max_team_rows(int vector) {
    return Policy(1, Kokkos::AUTO, vector).team_size_max(BlockedJacobi<T>{}, Kokkos::ParallelForTag());
  }

 public:
  BlockedLauncher(const ExecSpace& exec, std::int64_t rows, std::int64_t cols, const SolverOptions& options)
      : geometry_(block_geometry(rows, cols, tile_or_automatic(options.tile_rows, options.sweeps_per_launch),
                                 tile_or_automatic(options.tile_cols, options.sweeps_per_launch),
                                 options.sweeps_per_launch)) {
    // One warp (wavefront) along a row on GPUs; host threads take whole rows.
    const int vector = host_execution ? 1 : std::min(Policy::vector_length_max(), 32);
    const std::size_t scratch = BlockedJacobi<T>::scratch_bytes(geometry_);
    if (scratch > static_cast<std::size_t>(Policy::scratch_size_max(0)))
      throw OptionError("sweeps_per_launch", "jacobi_blocked: a " + std::to_string(geometry_.region_rows()) + "x" +
                                                 std::to_string(geometry_.region_cols()) + " region (tile plus halo " +
                                                 std::to_string(geometry_.halo) + ") needs " + std::to_string(scratch) +
                                                 " bytes of team scratch, this backend allows " +
                                                 std::to_string(Policy::scratch_size_max(0)) +
                                                 ": use a smaller tile or fewer sweeps per launch");
    const int league = geometry_.tiles_down * geometry_.tiles_across;
    const int rows_in_flight =
        host_execution ? 1
                       : std::max(1, std::min(geometry_.region_rows(),
                                              options.team_rows > 0 ? options.team_rows : max_team_rows(vector)));
    policy_ = Policy(exec, league, rows_in_flight, vector).set_scratch_size(0, Kokkos::PerTeam(scratch));
  }

  void launch(const BlockedJacobi<T>& kernel) const { Kokkos::parallel_for("poisson_jacobi_blocked", policy_, kernel); }
  const BlockGeometry& geometry() const { return geometry_; }

 private:
  BlockGeometry geometry_;
  typename BlockedJacobi<T>::Policy policy_;
};

template <class T>
class BandLauncher {
  using Kernel = JacobiRegisterBands<T, register_band_sweeps>;
  using Policy = typename Kernel::Policy;

 public:
  // Interior rows a band writes: measured on an H100 at 8192x8192, 8 sweeps
  // a launch (BENCHMARKS.md): 64 rows 0.149 ms a sweep, 128 0.158, 256 0.202.
  enum { preferred_strip = 64 };

  BandLauncher(const ExecSpace& exec, std::int64_t rows, std::int64_t cols, const SolverOptions& options) {
    BandGeometry& g = geometry_;
    g.columns = Kernel::columns;
    g.halo = options.sweeps_per_launch;
    if (g.output_cols() < 1)
      throw OptionError("sweeps_per_launch", "jacobi_blocked: a band of " + std::to_string(g.band_cols()) +
                                                 " columns cannot carry " + std::to_string(g.halo) +
                                                 " sweeps per launch");
    g.strip_rows = options.tile_rows > 0 ? options.tile_rows : preferred_strip;
    g.bands = ceil_div(cols - 2, g.output_cols());
    g.strips = ceil_div(rows - 2, g.strip_rows);
    const int team = host_execution ? 1 : Kernel::team_threads / band_lanes;
    policy_ = Policy(exec, ceil_div(static_cast<std::int64_t>(g.bands) * g.strips, team), team, band_lanes);
  }

  void launch(const View2D<T>& x, const View2D<T>& x_next, const View2D<T>& rhs, T omega, bool weighted,
              int sweeps) const {
    Kokkos::parallel_for("poisson_jacobi_register_bands", policy_,
                         Kernel{x, x_next, rhs, omega, weighted, geometry_, sweeps});
  }

 private:
  BandGeometry geometry_;
  Policy policy_;
};

template <class T>
class ResidentLauncher {
  using Kernel = JacobiResidentTiles<T, resident_rows_per_warp>;

 public:
  // Its buffers are zeroed on exec; launches run there.
  ResidentLauncher(const ExecSpace& exec, std::int64_t rows, std::int64_t cols, const SolverOptions& options)
      : exec_(exec), stalled_(zeroed_on<Kokkos::View<int, MemSpace>>(exec, "poisson_resident_stalled")) {
    const int capacity = compute_units();
    geometry_ = resident_geometry(rows, cols, options.sweeps_per_launch, capacity, Kernel::rows_per_warp);
    if (geometry_.tiles() == 0)
      throw OptionError(
          "blocked_kernel",
          "jacobi_blocked: blocked kernel resident runs one tile per multiprocessor (" + std::to_string(capacity) +
              " here), each at most " + std::to_string(ResidentShape::region_cols) + " columns by " +
              std::to_string(ResidentShape::max_region_rows / Kernel::rows_per_warp * Kernel::rows_per_warp) +
              " rows including a halo of sweeps_per_launch (" + std::to_string(options.sweeps_per_launch) +
              ", at most a third of the region): a " + std::to_string(rows) + "x" + std::to_string(cols) +
              " grid needs more; use fewer sweeps per launch or another blocked kernel");
    if (Kernel::stamped_exchange)
      stamped_ = zeroed_on<decltype(stamped_)>(exec, "poisson_resident_stamped", 2, rows, cols);
    else
      flags_ = zeroed_on<Kokkos::View<int*, MemSpace>>(exec, "poisson_resident_flags", geometry_.tiles());
  }

  // Runs `sweeps` sweeps from `from`; true when the result lies in `to`.
  bool launch(const View2D<T>& from, const View2D<T>& to, const View2D<T>& rhs, T omega, bool weighted,
              std::int64_t sweeps) {
    const Kernel kernel{from,      to,    rhs,      flags_,    stamped_, stalled_,
                        patience_, omega, weighted, geometry_, rounds_,  static_cast<int>(sweeps)};
    const auto policy = typename Kernel::Policy(exec_, geometry_.tiles(), geometry_.warps, band_lanes)
                            .set_scratch_size(0, Kokkos::PerTeam(Kernel::scratch_bytes(geometry_)))
                            .set_chunk_size(1);  // hosts: one tile a thread, all running at once
    Kokkos::parallel_for("poisson_jacobi_resident", policy, kernel);
    int stalled = 0;
    Kokkos::deep_copy(exec_, stalled, stalled_);
    exec_.fence();  // the copy into a host value is asynchronous on GPUs
    if (stalled)
      throw SolverError(
          "jacobi_blocked: the resident tiles' teams did not all run at once (is the device shared "
          "with other work?); use poisson.blocked.kernel: tiles");
    rounds_ += kernel.rounds();
    return kernel.result_in_second();
  }

 private:
  // Lives no longer than the solve that made it (never kept in a workspace).
  ExecSpace exec_;
  ResidentGeometry geometry_;
  Kokkos::View<int*, MemSpace> flags_;
  Kokkos::View<std::uint64_t***, Kokkos::LayoutRight, MemSpace> stamped_;
  Kokkos::View<int, MemSpace> stalled_;
  long long patience_ = resident_patience_from_environment();
  int rounds_ = 0;
};

}  // namespace

template <class T>
struct BlockedSweeps<T>::Kernels {
  std::optional<BlockedLauncher<T>> tiles;
  std::optional<BandLauncher<T>> bands;
};

template <class T>
BlockedSweeps<T>::BlockedSweeps(std::int64_t rows, std::int64_t cols, const SolverOptions& options)
    : kernels_(std::make_shared<Kernels>()) {
  BlockedKernel kernel = chosen_blocked_kernel(options, rows, cols);
  if (kernel == BlockedKernel::resident && options.blocked_kernel == BlockedKernel::resident)
    throw OptionError("blocked_kernel",
                      "jacobi_blocked: blocked kernel resident keeps the whole grid in one launch and does not run "
                      "over MPI ranks; use tiles, registers or auto");
  // auto picks resident for grids small enough for one tile per compute
  // unit, where tiles are the next best (options.cpp).
  if (kernel == BlockedKernel::resident) kernel = BlockedKernel::tiles;
  if (kernel == BlockedKernel::registers)
    kernels_->bands.emplace(ExecSpace(), rows, cols, options);
  else
    kernels_->tiles.emplace(ExecSpace(), rows, cols, options);
}

template <class T>
void BlockedSweeps<T>::run(const View2D<T>& current, const View2D<T>& next, const View2D<T>& rhs, T omega,
                           bool weighted, int sweeps) const {
  if (kernels_->bands)
    kernels_->bands->launch(current, next, rhs, omega, weighted, sweeps);
  else
    kernels_->tiles->launch(BlockedJacobi<T>{current, next, rhs, omega, weighted, kernels_->tiles->geometry(), sweeps});
}

template class BlockedSweeps<float>;
template class BlockedSweeps<double>;

template <class T>
void run_jacobi(const ExecSpace& exec, const View2D<T>& x, const View2D<T>& rhs, const SolverOptions& options,
                CheckSchedule& schedule) {
  const std::int64_t rows = x.extent(0), cols = x.extent(1);
  View2D<T> current = x;
  View2D<T> next(Kokkos::view_alloc(Kokkos::WithoutInitializing, "poisson_jacobi_next"), rows, cols);
  Kokkos::deep_copy(exec, next, x);  // the boundary, which sweeps never write
  const T omega = static_cast<T>(options.omega);
  const bool weighted = options.omega != 1;
  const bool blocked = options.method == Method::jacobi_blocked;
  std::optional<BlockedLauncher<T>> blocked_launcher;
  std::optional<BandLauncher<T>> band_launcher;
  std::optional<ResidentLauncher<T>> resident_launcher;
  const BlockedKernel kernel = blocked ? chosen_blocked_kernel(options, rows, cols) : BlockedKernel::tiles;
  if (blocked && kernel == BlockedKernel::registers)
    band_launcher.emplace(exec, rows, cols, options);
  else if (blocked && kernel == BlockedKernel::resident)
    resident_launcher.emplace(exec, rows, cols, options);
  else if (blocked)
    blocked_launcher.emplace(exec, rows, cols, options);

  std::int64_t done = 0;
  for (bool stop = false; !stop;) {
    const std::int64_t check = schedule.next_check(done);
    if (resident_launcher && done < check) {
      if (resident_launcher->launch(current, next, rhs, omega, weighted, check - done)) std::swap(current, next);
      done = check;
    }
    while (done < check) {
      if (blocked) {
        const int sweeps = static_cast<int>(std::min<std::int64_t>(options.sweeps_per_launch, check - done));
        if (band_launcher)
          band_launcher->launch(current, next, rhs, omega, weighted, sweeps);
        else
          blocked_launcher->launch(
              BlockedJacobi<T>{current, next, rhs, omega, weighted, blocked_launcher->geometry(), sweeps});
        done += sweeps;
      } else {
        for_interior(exec, "poisson_jacobi", rows, cols, JacobiSweep<T>{current, next, rhs, omega, weighted});
        ++done;
      }
      std::swap(current, next);
    }
    stop = schedule.record(done, residual_norm(exec, current, rhs));
  }
  if (current.data() != x.data()) {
    Kokkos::deep_copy(exec, x, current);
    exec.fence();  // before `next`, which the copy may read, is freed
  }
}

template void run_jacobi<float>(const ExecSpace&, const View2D<float>&, const View2D<float>&, const SolverOptions&,
                                CheckSchedule&);
template void run_jacobi<double>(const ExecSpace&, const View2D<double>&, const View2D<double>&, const SolverOptions&,
                                 CheckSchedule&);

}  // namespace portasolve::poisson::detail
