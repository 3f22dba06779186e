#include "solvers/poisson/options.hpp"

#include <stdexcept>
#include <string>

#include "core/errors.hpp"
#include "core/grid_range.hpp"
#include "core/kokkos_session.hpp"
#include "core/names.hpp"
#include "fft/fft.hpp"
#include "solvers/poisson/detail/jacobi_resident.hpp"

namespace portasolve::poisson {

using namespace detail;

namespace {

// option: the SolverOptions field at fault (OptionError::option()).
void require(bool condition, const char* option, const std::string& message) {
  if (!condition) throw OptionError(option, "Poisson solver options: " + message);
}

}  // namespace

PORTASOLVE_NAMED_ENUM(Method, method_names, method_from_name, "Poisson method", "jacobi", "jacobi_blocked", "cg",
                      "cg_fused", "multigrid", "spectral", "auto")
PORTASOLVE_NAMED_ENUM(CgOperator, cg_operator_names, cg_operator_from_name, "Poisson CG operator", "matrix_free", "crs")
PORTASOLVE_NAMED_ENUM(BlockedKernel, blocked_kernel_names, blocked_kernel_from_name, "Poisson blocked kernel", "auto",
                      "registers", "tiles", "resident")
PORTASOLVE_NAMED_ENUM(CgKernel, cg_kernel_names, cg_kernel_from_name, "Poisson CG kernel", "auto", "launches",
                      "resident")
PORTASOLVE_NAMED_ENUM(MultigridCycle, multigrid_cycle_names, multigrid_cycle_from_name, "Poisson multigrid cycle", "v",
                      "w", "f")
PORTASOLVE_NAMED_ENUM(MultigridSmoother, multigrid_smoother_names, multigrid_smoother_from_name,
                      "Poisson multigrid smoother", "rbgs", "jacobi", "chebyshev")
PORTASOLVE_NAMED_ENUM(CgPreconditioner, cg_preconditioner_names, cg_preconditioner_from_name,
                      "Poisson CG preconditioner", "none", "jacobi", "multigrid")
PORTASOLVE_NAMED_ENUM(Boundary, boundary_names, boundary_from_name, "Poisson boundary", "dirichlet", "neumann",
                      "periodic")
PORTASOLVE_NAMED_ENUM(SpectralFft, spectral_fft_names, spectral_fft_from_name, "Poisson spectral FFT", "library",
                      "portable")
PORTASOLVE_NAMED_ENUM(SpectralLength, spectral_length_names, spectral_length_from_name, "Poisson spectral length",
                      "fast", "exact")

std::int64_t spectral_row_length(std::int64_t interior_rows, std::int64_t interior_cols, SpectralFft fft,
                                 SpectralLength length) {
  if (length == SpectralLength::exact) return interior_cols;
  return fft::fast_length(fft::Kind::dst1, interior_cols, interior_rows,
                          fft == SpectralFft::portable ? fft::Implementation::portable : fft::Implementation::library);
}

CgKernel chosen_cg_kernel(const SolverOptions& options) {
  if (options.cg_kernel != CgKernel::automatic) return options.cg_kernel;
  // Hosts run the launches back to back; the resident barrier only adds waits there.
  return host_execution ? CgKernel::launches : CgKernel::resident;
}

BlockedKernel chosen_blocked_kernel(const SolverOptions& options, std::int64_t rows, std::int64_t cols) {
  if (options.blocked_kernel != BlockedKernel::automatic) return options.blocked_kernel;
  // Hosts: a thread walking a band of 64 columns through 8 levels ran 3.5x
  // slower than the plain sweep on 2 cores (BENCHMARKS.md); tiles at least keep up.
  // GPUs: a band is one warp, so a small grid leaves most of the device idle
  // (the talk's 400x266 grid: 20 bands, 30x slower than tiles); we ask for 8
  // interior points per hardware thread, about a warp per band for every warp
  // the device holds at 128 registers a thread.
  // Resident tiles, wherever they fit: the talk's 400x266 grid ran 150000
  // sweeps in 61 ms against 230 ms with tiles on an H100 (BENCHMARKS.md).
  // Hosts can run them one thread a tile (tests do), but never pick them.
  if (host_execution || options.tile_cols != 0 || options.team_rows != 0) return BlockedKernel::tiles;
  if (options.tile_rows == 0 && resident_geometry(rows, cols, options.sweeps_per_launch, compute_units()).tiles() > 0)
    return BlockedKernel::resident;
  const bool fits = options.sweeps_per_launch <= register_band_sweeps;
  const bool large = (rows - 2) * (cols - 2) >= 8 * static_cast<std::int64_t>(ExecSpace().concurrency());
  return fits && large ? BlockedKernel::registers : BlockedKernel::tiles;
}

Method chosen_method(const SolverOptions& options) {
  if (options.method != Method::automatic) return options.method;
  // Every build has FFT plans (the portable kernels on HIP): the direct solve
  // applies to every boundary and grid.
  return Method::spectral;
}

void check(const SolverOptions& options) {
  const Method method = chosen_method(options);
  require(options.boundary == Boundary::dirichlet || method == Method::spectral || method == Method::multigrid,
          "boundary",
          "poisson.boundary " + name_of(options.boundary) + " is solved by the spectral and multigrid methods only; " +
              name_of(method) + " takes dirichlet");
  require(options.max_iterations >= 0, "max_iterations", "max_iterations must be >= 0");
  require(options.tolerance >= 0, "tolerance", "tolerance must be >= 0");
  require(options.check_every >= 1, "check_every", "check_every must be >= 1");
  // Weighted Jacobi for this operator converges for 0 < omega <= 1 only.
  require(options.omega > 0 && options.omega <= 1, "omega", "omega must be in (0, 1]");
  require(options.sweeps_per_launch >= 1, "sweeps_per_launch", "sweeps_per_launch must be >= 1");
  require(options.team_rows >= 0, "team_rows", "team_rows must be >= 0 (0: automatic)");
  require(options.tile_rows >= 0 && options.tile_cols >= 0, options.tile_rows < 0 ? "tile_rows" : "tile_cols",
          "tile sizes must be >= 1 (0: automatic)");
  if (options.blocked_kernel == BlockedKernel::resident)
    require(options.tile_rows == 0 && options.tile_cols == 0 && options.team_rows == 0, "blocked_kernel",
            "blocked kernel resident sizes its own tiles (tile_rows, tile_cols and team_rows must be 0)");
  if (options.blocked_kernel == BlockedKernel::registers)
    require(options.sweeps_per_launch <= register_band_sweeps && options.tile_cols == 0 && options.team_rows == 0,
            "blocked_kernel",
            "blocked kernel registers runs at most " + std::to_string(register_band_sweeps) +
                " sweeps per launch in bands as wide as the hardware's warps (tile_cols and team_rows must be 0)");
  check(options.multigrid);
  require(options.cg_preconditioner == CgPreconditioner::none || options.method == Method::cg, "cg_preconditioner",
          "cg preconditioner " + name_of(options.cg_preconditioner) + " applies to method cg only (allowed: none)");
  // CG needs a symmetric preconditioner: as many sweeps after the coarse
  // correction as before (the post-smoothing then is the pre-smoothing's adjoint).
  if (options.cg_preconditioner == CgPreconditioner::multigrid)
    require(options.multigrid.pre_sweeps == options.multigrid.post_sweeps, "multigrid.post_sweeps",
            "cg preconditioner multigrid needs multigrid pre_sweeps == post_sweeps (a symmetric cycle), got " +
                std::to_string(options.multigrid.pre_sweeps) + " and " + std::to_string(options.multigrid.post_sweeps));
}

void check(const MultigridOptions& options) {
  const auto known = [](auto value, const std::vector<std::string>& names) {
    return static_cast<std::size_t>(value) < names.size();
  };
  const auto allowed = [](const std::vector<std::string>& names) {
    std::string list;
    for (const auto& name : names) list += (list.empty() ? "" : ", ") + name;
    return list;
  };
  require(known(options.cycle, multigrid_cycle_names()), "multigrid.cycle",
          "multigrid cycle must be one of " + allowed(multigrid_cycle_names()));
  require(known(options.smoother, multigrid_smoother_names()), "multigrid.smoother",
          "multigrid smoother must be one of " + allowed(multigrid_smoother_names()));
  require(options.pre_sweeps >= 0 && options.post_sweeps >= 0,
          options.pre_sweeps < 0 ? "multigrid.pre_sweeps" : "multigrid.post_sweeps",
          "multigrid pre_sweeps and post_sweeps must be >= 0");
  require(options.pre_sweeps + options.post_sweeps >= 1, "multigrid.pre_sweeps",
          "multigrid needs at least one smoothing sweep (pre_sweeps + post_sweeps >= 1)");
  require(options.coarsest_size >= 1 && options.coarsest_size <= max_coarsest_size, "multigrid.coarsest_size",
          "multigrid coarsest must be in [1, " + std::to_string(max_coarsest_size) +
              "] points (dirichlet: interior points)");
  require(options.gather_size >= 1, "multigrid.gather_size", "multigrid gather must be >= 1 point");
  // Weighted Jacobi for this operator converges for 0 < omega <= 1 only.
  require(options.jacobi_omega > 0 && options.jacobi_omega <= 1, "multigrid.jacobi_omega",
          "multigrid jacobi_omega must be in (0, 1]");
}

}  // namespace portasolve::poisson
