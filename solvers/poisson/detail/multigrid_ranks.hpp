#pragma once
// Multigrid over MPI ranks (multigrid_ranks.cpp), for solve_distributed():
// the dirichlet hierarchy of multigrid_levels.hpp with each level split the
// way the finest is (GridDecomposition::coarsened) while the blocks stay a
// few points thick and the level large, then gathered onto every rank,
// which runs the coarser levels itself (multigrid_hierarchy.hpp). Every
// point is updated by the single-rank kernels' expressions from the same
// values, so the iterates are the single-rank solver's bit for bit; only
// the residual norms are summed differently (in rank order).
#include <functional>
#include <memory>

#include "core/spaces.hpp"
#include "distributed/grid_decomposition.hpp"
#include "distributed/halo_statistics.hpp"
#include "solvers/poisson/detail/check_schedule.hpp"
#include "solvers/poisson/options.hpp"

namespace portasolve::poisson::detail {

// Cycles on x (this rank's block with its ring) until `schedule` stops,
// checking after each with residual_norm(), which exchanges x's halo and
// sums over ranks. `halo`: every level's exchanges.
template <class T>
void run_multigrid_over_ranks(const distributed::GridDecomposition& grid, const View2D<T>& x, const View2D<T>& rhs,
                              const MultigridOptions& options, CheckSchedule& schedule,
                              const std::function<double()>& residual_norm, distributed::HaloStatistics& halo);

// One cycle as cg's preconditioner over the ranks, z = M^-1 r on this
// rank's block (multigrid_preconditioner.hpp's M: zero start, zero
// boundary, the post-smoothing's colours reversed), the same bits as one
// rank's cycle on the whole grid.
template <class T>
class RankMultigridPreconditioner {
 public:
  RankMultigridPreconditioner(const distributed::GridDecomposition& grid, const MultigridOptions& options);
  ~RankMultigridPreconditioner();
  RankMultigridPreconditioner(const RankMultigridPreconditioner&) = delete;
  RankMultigridPreconditioner& operator=(const RankMultigridPreconditioner&) = delete;

  // z() = M^-1 r on the block (r: block with ring, the ring ignored).
  void apply(const View2D<T>& r);
  // Its own array (block with ring; the ring holds halos, not boundary values).
  const View2D<T>& z() const;
  distributed::HaloStatistics statistics() const;

 private:
  struct Cycle;
  std::unique_ptr<Cycle> cycle_;
};

}  // namespace portasolve::poisson::detail
