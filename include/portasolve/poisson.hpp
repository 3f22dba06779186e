#pragma once
// portasolve's 2-D Poisson solvers: L X = B with the 5-point Laplacian L.
//
//   poisson::solve(x, rhs, options[, on_check]) -> SolveReport
//       x:       rows x cols View (default memory space), the boundary ring and
//                initial guess in, the solution out;
//       rhs:     B, the same extents (its ring is ignored for dirichlet);
//       options: SolverOptions (method jacobi | jacobi_blocked | cg | cg_fused |
//                multigrid | spectral | automatic, tolerance, max_iterations,
//                boundary dirichlet | neumann | periodic (the last two:
//                spectral and multigrid), spectral_fft library | portable,
//                spectral_length fast | exact (dirichlet rows at the next
//                fast FFT length, or at the grid's own),
//                per-method tuning);
//       on_check: called on the host after each residual check, may throw.
//   poisson::solve(exec, x, rhs, options[, on_check]): the same on the
//       execution space instance exec (its CUDA stream): every kernel, copy
//       and FFT is ordered on exec; the caller fences its own earlier work on
//       other instances; on return x holds the solution (solver.hpp).
//   poisson::residual_norm([exec, ]x, rhs[, boundary]) -> ||B - L X||_2 (in double).
//   poisson::release_workspaces(): frees the cached spectral / multigrid buffers.
//   Problems on the host (HostGrid, to_device([exec, ]grid, label),
//   to_host([exec, ]view), reconstruction_problem, manufactured_problem) live
//   in the same namespace; with exec the copy is ordered on that instance and
//   finished on return, exec alone fenced.
// Errors (core/errors.hpp): std::invalid_argument for bad extents,
// OptionError (a std::invalid_argument
// naming the field) for bad options, InputError for neumann / periodic B
// with no solution, SolverError when an iteration produces non-finite values,
// the final re-check fails, resident kernels stall or the FFT library fails.
#include "core/kokkos_session.hpp"
#include "solvers/poisson/options.hpp"
#include "solvers/poisson/problem.hpp"
#include "solvers/poisson/solver.hpp"
