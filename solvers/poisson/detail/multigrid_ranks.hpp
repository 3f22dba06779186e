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

// A hierarchy over the ranks, kept between solves of one decomposition and
// options (DistributedWorkspace): its levels, exchanges (with their
// staging buffers and device links) and the coarse levels' communicators
// cost more to make than a small grid's solve.
template <class T>
class RankMultigrid {
 public:
  // preconditioner: one symmetric cycle as cg's M (multigrid_preconditioner.hpp's:
  // zero start, zero boundary, the post-smoothing's colours reversed; the
  // same bits as one rank's cycle on the whole grid) on its own z; else the
  // solver, on each solve's x and B.
  RankMultigrid(const distributed::GridDecomposition& grid, const MultigridOptions& options, bool preconditioner);
  ~RankMultigrid();
  RankMultigrid(const RankMultigrid&) = delete;
  RankMultigrid& operator=(const RankMultigrid&) = delete;
  bool fits(const distributed::GridDecomposition& grid, const MultigridOptions& options, bool preconditioner) const;

  // The solver: cycles on x (this rank's block with its ring) until
  // `schedule` stops, checking after each with residual_norm(), which
  // exchanges x's halo and sums over ranks.
  void solve(const View2D<T>& x, const View2D<T>& rhs, CheckSchedule& schedule,
             const std::function<double()>& residual_norm);

  // The preconditioner: start_preconditioning() once a solve, then z() =
  // M^-1 r on the block per apply(r) (r: block with ring, the ring ignored).
  void start_preconditioning();
  void apply(const View2D<T>& r);
  // Its own array (block with ring; the ring holds halos, not boundary values).
  const View2D<T>& z() const;

  // Every level's exchanges since the last solve() or start_preconditioning().
  distributed::HaloStatistics statistics() const;

 private:
  struct Kept;
  std::unique_ptr<Kept> kept_;
};

}  // namespace portasolve::poisson::detail
