#pragma once
// One entry point for every method: solve L X = B for the interior of x,
// x's outer ring being the fixed boundary values.
//
// Relative residual: ||B - L X||_2 / ||B - L X_0||_2 over the interior, X_0
// the boundary with a zero interior (the image-reconstruction talk's starting
// point), so it does not depend on the initial guess. Sums run in double.
// Boundaries neumann and periodic: the same over the whole grid, X_0 = 0.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/spaces.hpp"
#include "solvers/poisson/options.hpp"

namespace portasolve::poisson {

struct ResidualCheck {
  std::int64_t iteration;
  double relative_residual;
};

struct SolveReport {
  std::int64_t iterations = 0;         // sweeps (Jacobi), steps (CG), 1 (spectral) run
  double relative_residual = 0;        // at the end
  double reference_norm = 0;           // ||B - L X_0||_2, the denominator
  bool converged = false;              // tolerance > 0 and reached
  std::string stop_reason;             // "tolerance", "max_iterations", "breakdown" or "direct" (spectral)
  std::vector<ResidualCheck> history;  // iteration 0, every check_every, the end
  Method method = Method::jacobi;      // the method that ran (auto resolved)
};

// Called after each residual check (on the host, the solve's instance idle);
// may throw to abandon the solve, e.g. on Ctrl-C.
using CheckCallback = std::function<void(const ResidualCheck&)>;

// x: the initial guess with the boundary values in, the solution out.
// rhs: B, the same extents as x (its outer ring is ignored).
// Throws (core/errors.hpp) std::invalid_argument for extents out of range,
// OptionError (a std::invalid_argument naming the options field) for options
// out of range or that this backend cannot run, InputError for neumann or
// periodic B with no solution, SolverError when the iteration produces
// non-finite values, the final re-check disagrees with the last check,
// resident kernels' teams stall or the FFT library fails; and whatever
// on_check throws.
//
// exec: the execution space instance (on GPUs, its stream) that every
// kernel, copy and FFT of the solve is ordered on; the caller fences its own
// earlier work on other instances that writes x or rhs. The solve waits on
// exec alone (exec.fence(), reductions into host values), with no global
// fence (a buffer's cudaFree still waits for the device, as CUDA does), and
// on return x holds the solution: the host may read it with no fence. Kokkos
// Kernels (cg's BLAS, the crs operator's spmv) has no instance overloads in
// this build: on an instance other than the default one those calls run on
// the default instance, after exec.fence() and followed by a fence of the
// default instance. Without exec: the default instance, ExecSpace().
template <class T>
SolveReport solve(const ExecSpace& exec, const View2D<T>& x, const View2D<T>& rhs, const SolverOptions& options,
                  const CheckCallback& on_check = {});
template <class T>
SolveReport solve(const View2D<T>& x, const View2D<T>& rhs, const SolverOptions& options,
                  const CheckCallback& on_check = {});

// ||B - L X||_2 over the interior, summed in double; blocks the host until
// exec (default: the default instance) has run it.
template <class T>
double residual_norm(const ExecSpace& exec, const View2D<T>& x, const View2D<T>& rhs);
template <class T>
double residual_norm(const View2D<T>& x, const View2D<T>& rhs);
// The same for a boundary option: dirichlet as above; neumann and periodic
// over the whole grid with their neighbour rules (options.hpp).
template <class T>
double residual_norm(const ExecSpace& exec, const View2D<T>& x, const View2D<T>& rhs, Boundary boundary);
template <class T>
double residual_norm(const View2D<T>& x, const View2D<T>& rhs, Boundary boundary);

// The spectral and multigrid methods keep the buffers and FFT plans of the
// last grid shape they solved (per scalar type) for the next solve of that
// shape; they are freed when Kokkos finalizes, or now by this call.
void release_workspaces();

}  // namespace portasolve::poisson
