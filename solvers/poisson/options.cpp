#include "solvers/poisson/options.hpp"

#include <stdexcept>
#include <string>

#include "core/grid_range.hpp"
#include "core/kokkos_session.hpp"
#include "solvers/poisson/jacobi_resident.hpp"
#include "core/names.hpp"

namespace portasolve::poisson {

namespace {

void require(bool condition, const std::string& message) {
  if (!condition) throw std::invalid_argument("Poisson solver options: " + message);
}

}  // namespace

const std::vector<std::string>& method_names() {
  static const std::vector<std::string> names{"jacobi", "jacobi_blocked", "cg", "cg_fused", "spectral"};
  return names;
}
const std::vector<std::string>& cg_operator_names() {
  static const std::vector<std::string> names{"matrix_free", "crs"};
  return names;
}
const std::vector<std::string>& blocked_kernel_names() {
  static const std::vector<std::string> names{"auto", "registers", "tiles", "resident"};
  return names;
}
BlockedKernel blocked_kernel_from_name(const std::string& name) {
  return enum_from_name<BlockedKernel>(blocked_kernel_names(), name, "Poisson blocked kernel");
}
std::string name_of(BlockedKernel kernel) { return blocked_kernel_names()[static_cast<std::size_t>(kernel)]; }
const std::vector<std::string>& cg_kernel_names() {
  static const std::vector<std::string> names{"auto", "launches", "resident"};
  return names;
}
CgKernel cg_kernel_from_name(const std::string& name) {
  return enum_from_name<CgKernel>(cg_kernel_names(), name, "Poisson CG kernel");
}
std::string name_of(CgKernel kernel) { return cg_kernel_names()[static_cast<std::size_t>(kernel)]; }

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
  if (options.tile_rows == 0 &&
      resident_geometry(rows, cols, options.sweeps_per_launch, compute_units()).tiles() > 0)
    return BlockedKernel::resident;
  const bool fits = options.sweeps_per_launch <= register_band_sweeps;
  const bool large = (rows - 2) * (cols - 2) >= 8 * static_cast<std::int64_t>(ExecSpace().concurrency());
  return fits && large ? BlockedKernel::registers : BlockedKernel::tiles;
}

const std::vector<std::string>& boundary_names() {
  static const std::vector<std::string> names{"dirichlet", "neumann", "periodic"};
  return names;
}
Boundary boundary_from_name(const std::string& name) {
  return enum_from_name<Boundary>(boundary_names(), name, "Poisson boundary");
}
std::string name_of(Boundary boundary) { return boundary_names()[static_cast<std::size_t>(boundary)]; }

Method method_from_name(const std::string& name) {
  return enum_from_name<Method>(method_names(), name, "Poisson method");
}
CgOperator cg_operator_from_name(const std::string& name) {
  return enum_from_name<CgOperator>(cg_operator_names(), name, "Poisson CG operator");
}
std::string name_of(Method method) { return method_names()[static_cast<std::size_t>(method)]; }
std::string name_of(CgOperator cg_operator) { return cg_operator_names()[static_cast<std::size_t>(cg_operator)]; }

void check(const SolverOptions& options) {
  require(options.boundary == Boundary::dirichlet || options.method == Method::spectral,
          "poisson.boundary " + name_of(options.boundary) + " is solved by the spectral method only; " +
              name_of(options.method) + " takes dirichlet");
  require(options.max_iterations >= 0, "max_iterations must be >= 0");
  require(options.tolerance >= 0, "tolerance must be >= 0");
  require(options.check_every >= 1, "check_every must be >= 1");
  // Weighted Jacobi for this operator converges for 0 < omega <= 1 only.
  require(options.omega > 0 && options.omega <= 1, "omega must be in (0, 1]");
  require(options.sweeps_per_launch >= 1, "sweeps_per_launch must be >= 1");
  require(options.team_rows >= 0, "team_rows must be >= 0 (0: automatic)");
  require(options.tile_rows >= 0 && options.tile_cols >= 0, "tile sizes must be >= 1 (0: automatic)");
  if (options.blocked_kernel == BlockedKernel::resident)
    require(options.tile_rows == 0 && options.tile_cols == 0 && options.team_rows == 0,
            "blocked kernel resident sizes its own tiles (tile_rows, tile_cols and team_rows must be 0)");
  if (options.blocked_kernel == BlockedKernel::registers)
    require(options.sweeps_per_launch <= register_band_sweeps && options.tile_cols == 0 && options.team_rows == 0,
            "blocked kernel registers runs at most " + std::to_string(register_band_sweeps) +
                " sweeps per launch in bands as wide as the hardware's warps (tile_cols and team_rows must be 0)");
}

}  // namespace portasolve::poisson
