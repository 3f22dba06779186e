#pragma once
// One multigrid cycle as a preconditioner for cg: z = M^-1 r with M ~ A = -L,
// from a zero start and zero boundary values. Gauss-Seidel's post-smoothing
// runs the colours in the reverse order of the pre-smoothing, so M is
// symmetric when pre_sweeps == post_sweeps (and positive definite: the
// coarsest level is solved to rounding).
#include <cstdint>
#include <memory>
#include <tuple>

#include "core/spaces.hpp"
#include "solvers/poisson/options.hpp"

namespace portasolve::poisson::detail {

// What a kept hierarchy depends on besides the grid (workspace caches' keys).
using MultigridKey = std::tuple<MultigridCycle, MultigridSmoother, int, int, int, bool, double>;
inline MultigridKey multigrid_key(const MultigridOptions& mg) {
  return MultigridKey{mg.cycle, mg.smoother, mg.pre_sweeps, mg.post_sweeps, mg.coarsest_size, mg.fmg, mg.jacobi_omega};
}

template <class T>
class MultigridPreconditioner {
 public:
  // Allocates every level for a rows x cols grid once (zeroed on exec).
  MultigridPreconditioner(const ExecSpace& exec, std::int64_t rows, std::int64_t cols, const MultigridOptions& options);
  ~MultigridPreconditioner();
  MultigridPreconditioner(const MultigridPreconditioner&) = delete;
  MultigridPreconditioner& operator=(const MultigridPreconditioner&) = delete;

  // z = M^-1 r on the interior; r's ring is ignored, z's is zero. Every
  // kernel runs on exec, with no fence.
  void apply(const ExecSpace& exec, const View2D<T>& r, const View2D<T>& z);

 private:
  struct Cycle;
  std::unique_ptr<Cycle> cycle_;
};

}  // namespace portasolve::poisson::detail
