#pragma once
// portasolve's 2-D Poisson solvers: L X = B with the 5-point Laplacian L.
//
//   poisson::solve(x, rhs, options[, on_check]) -> SolveReport
//       x:       rows x cols View (default memory space), the boundary ring and
//                initial guess in, the solution out;
//       rhs:     B, the same extents (its ring is ignored for dirichlet);
//       options: SolverOptions (method jacobi | jacobi_blocked | cg | cg_fused |
//                multigrid | spectral | automatic, tolerance, max_iterations,
//                boundary dirichlet | neumann | periodic, per-method tuning);
//       on_check: called on the host after each residual check, may throw.
//   poisson::residual_norm(x, rhs[, boundary]) -> ||B - L X||_2 (in double).
//   poisson::release_workspaces(): frees the cached spectral / multigrid buffers.
//   Problems on the host (HostGrid, to_device, to_host, reconstruction_problem,
//   manufactured_problem) live in the same namespace.
// Errors: std::invalid_argument for bad options or extents, SolverError when an
// iteration produces non-finite values (core/errors.hpp).
#include "core/kokkos_session.hpp"
#include "solvers/poisson/options.hpp"
#include "solvers/poisson/problem.hpp"
#include "solvers/poisson/solver.hpp"
