// Geometric multigrid: V, W and F cycles of smoothing and coarse-grid
// correction over the hierarchy of multigrid_levels.hpp, run from the host;
// every level's grids are allocated once per solve. Also one cycle as cg's
// preconditioner (multigrid_preconditioner.hpp).
#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>
#include <vector>

#include "core/grid_range.hpp"
#include "core/spaces.hpp"
#include "core/workspace_cache.hpp"
#include "solvers/poisson/detail/methods.hpp"
#include "solvers/poisson/detail/multigrid_cycles.hpp"
#include "solvers/poisson/detail/multigrid_hierarchy.hpp"
#include "solvers/poisson/detail/multigrid_kernels.hpp"
#include "solvers/poisson/detail/multigrid_preconditioner.hpp"

namespace portasolve::poisson::detail {

using namespace multigrid;

template <class T>
struct MultigridPreconditioner<T>::Cycle {
  View2D<T> f;  // level 0's right-hand side; its iterate is the caller's z
  Hierarchy<T> hierarchy;
  MultigridCycle shape;
  Cycle(const ExecSpace& exec, std::int64_t rows, std::int64_t cols, const MultigridOptions& options)
      : f(zeroed_on<View2D<T>>(exec, "poisson_mg_f", rows, cols)),
        hierarchy(exec, f, f, options, /*symmetric=*/true),
        shape(options.cycle) {}
};

template <class T>
MultigridPreconditioner<T>::MultigridPreconditioner(const ExecSpace& exec, std::int64_t rows, std::int64_t cols,
                                                    const MultigridOptions& options)
    : cycle_(std::make_unique<Cycle>(exec, rows, cols, options)) {}

template <class T>
MultigridPreconditioner<T>::~MultigridPreconditioner() = default;

template <class T>
void MultigridPreconditioner<T>::apply(const ExecSpace& exec, const View2D<T>& r, const View2D<T>& z) {
  Cycle& c = *cycle_;
  // The cycle works on z itself: no copies in or out.
  for_rectangle(exec, "poisson_mg_precondition_start", GridRectangle{0, 0, int(r.extent(0)), int(r.extent(1))},
                StartPreconditioner<T>{r, c.f, z});
  c.hierarchy.bind_finest(z, c.f);
  c.hierarchy.cycle(exec, 0, c.shape);
}

template class MultigridPreconditioner<float>;
template class MultigridPreconditioner<double>;

namespace {

// A solve's hierarchy, kept for the next solve of the same grid and options
// (core/workspace_cache.hpp): its coarse levels' allocations cost more than the
// cycles on small grids.
template <class T>
struct MultigridWorkspace {
  using Key = std::tuple<std::int64_t, std::int64_t, MultigridKey>;
  static Key key_of(const View2D<T>& x, const MultigridOptions& mg) {
    return Key{std::int64_t(x.extent(0)), std::int64_t(x.extent(1)), multigrid_key(mg)};
  }
  Hierarchy<T> hierarchy;
};

// Points the hierarchy at x and B for one solve, and away from them after.
template <class T>
struct FinestBinding {
  Hierarchy<T>& hierarchy;
  FinestBinding(Hierarchy<T>& h, const View2D<T>& x, const View2D<T>& rhs) : hierarchy(h) { h.bind_finest(x, rhs); }
  ~FinestBinding() { hierarchy.bind_finest(View2D<T>(), View2D<T>()); }
  FinestBinding(const FinestBinding&) = delete;
  FinestBinding& operator=(const FinestBinding&) = delete;
};

}  // namespace

template <class T>
void run_multigrid(const ExecSpace& exec, const View2D<T>& x, const View2D<T>& rhs, const SolverOptions& options,
                   CheckSchedule& schedule) {
  if (options.boundary != Boundary::dirichlet) {
    run_whole_grid_multigrid(exec, x, rhs, options, schedule);  // multigrid_whole_grid.cpp
    return;
  }
  const MultigridOptions& mg = options.multigrid;
  // A kept workspace was last used by a solve that ended with a host
  // reduction on its instance: nothing of that solve still runs on it.
  const BorrowedWorkspace<MultigridWorkspace<T>> workspace(
      MultigridWorkspace<T>::key_of(x, mg), [&] { return MultigridWorkspace<T>{Hierarchy<T>(exec, x, rhs, mg)}; });
  Hierarchy<T>& hierarchy = workspace->hierarchy;
  const FinestBinding<T> binding(hierarchy, x, rhs);
  // Every cycle is checked, whatever check_every says (run_solve_cycles: on
  // the finest restriction, or at a fraction of one sweep against a cycle's
  // several sweeps on every level).
  run_solve_cycles(hierarchy, exec, mg, schedule, [&] { return residual_norm(exec, x, rhs); });
}

template void run_multigrid<float>(const ExecSpace&, const View2D<float>&, const View2D<float>&, const SolverOptions&,
                                   CheckSchedule&);
template void run_multigrid<double>(const ExecSpace&, const View2D<double>&, const View2D<double>&,
                                    const SolverOptions&, CheckSchedule&);

}  // namespace portasolve::poisson::detail
