#pragma once
// What both multigrid hierarchies share (the dirichlet one of multigrid.cpp,
// the whole-grid one of multigrid_whole_grid.cpp): the cycle shapes and the
// full multigrid start, run from the host over a hierarchy's own steps, and
// the smoothers that work from the residual on any level operator.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/grid_range.hpp"
#include "solvers/poisson/detail/check_schedule.hpp"
#include "solvers/poisson/detail/multigrid_kernels.hpp"
#include "solvers/poisson/options.hpp"

namespace portasolve::poisson::detail::multigrid {

template <class Hierarchy>
void run_coarser_cycles(Hierarchy& hierarchy, const ExecSpace& exec, std::size_t l, MultigridCycle shape,
                        const MultigridOptions& options);
template <class Hierarchy>
void run_full_multigrid_cycle(Hierarchy& hierarchy, const ExecSpace& exec, MultigridCycle shape,
                              const MultigridOptions& options);

// One cycle of `shape` from level l down. Hierarchy provides depth(),
// smooth(exec, l, sweeps, post), restrict_residual(exec, l) (which zeroes
// the coarser level's iterate), prolong_and_correct(exec, l) and
// solve_coarsest(exec), each launching on exec with no fence, and
// cycle_in_one_launch(exec, l, shape), which may run the whole cycle from l
// down itself (multigrid_tail.hpp) and says whether it did.
template <class Hierarchy>
void run_cycle(Hierarchy& hierarchy, const ExecSpace& exec, std::size_t l, MultigridCycle shape,
               const MultigridOptions& options) {
  if (hierarchy.cycle_in_one_launch(exec, l, shape)) return;
  if (l + 1 == hierarchy.depth()) {
    hierarchy.solve_coarsest(exec);
    return;
  }
  hierarchy.smooth(exec, l, options.pre_sweeps, /*post=*/false);
  hierarchy.restrict_residual(exec, l);
  run_coarser_cycles(hierarchy, exec, l, shape, options);
  hierarchy.prolong_and_correct(exec, l);
  hierarchy.smooth(exec, l, options.post_sweeps, /*post=*/true);
}

// The cycles on level l + 1 that a cycle of `shape` on level l runs between
// its restriction and its prolongation: one (V), two (W), an F then a V (F).
template <class Hierarchy>
void run_coarser_cycles(Hierarchy& hierarchy, const ExecSpace& exec, std::size_t l, MultigridCycle shape,
                        const MultigridOptions& options) {
  switch (shape) {
    case MultigridCycle::v:
      run_cycle(hierarchy, exec, l + 1, shape, options);
      break;
    case MultigridCycle::w:
      run_cycle(hierarchy, exec, l + 1, shape, options);
      run_cycle(hierarchy, exec, l + 1, shape, options);
      break;
    case MultigridCycle::f:
      run_cycle(hierarchy, exec, l + 1, MultigridCycle::f, options);
      run_cycle(hierarchy, exec, l + 1, MultigridCycle::v, options);
      break;
  }
}

// A solve's cycles from level 0 until `schedule` stops, every cycle
// checked, the check riding on level 0's restriction
// (restrict_residual_and_norm): it needs no pass over the grid of its own
// (on hosts a fifth of a V(1,1) cycle). Each cycle is cut after its
// restriction: a coarse correction, post-smoothing, the next cycle's
// pre-smoothing, its restriction with the norm, the check. So check k
// follows k coarse corrections, and where it stops the solve, x is the
// pre-smoothed iterate whose residual it measured (the same cycles as
// before, plus one pre-smoothing). The check that stops is measured again by
// residual_norm(), as the solve's final re-check measures it: near the
// rounding floor the restriction's sums (another association) differ from
// it by a few percent. A grid that is its own coarsest level runs whole
// cycles, each checked by residual_norm(). options.fmg: a full multigrid
// start as the first cycle.
template <class Hierarchy, class ResidualNorm>
void run_solve_cycles(Hierarchy& hierarchy, const ExecSpace& exec, const MultigridOptions& options,
                      CheckSchedule& schedule, const ResidualNorm& residual_norm) {
  const MultigridCycle shape = options.cycle;
  if (hierarchy.depth() < 2) {
    for (std::int64_t done = 0;;) {
      if (options.fmg && done == 0)
        run_full_multigrid_cycle(hierarchy, exec, shape, options);
      else
        run_cycle(hierarchy, exec, 0, shape, options);
      if (schedule.record(++done, residual_norm())) return;
    }
  }
  std::int64_t done = 0;
  if (options.fmg) {
    run_full_multigrid_cycle(hierarchy, exec, shape, options);
    done = 1;
  }
  hierarchy.smooth(exec, 0, options.pre_sweeps, /*post=*/false);
  for (;; ++done) {
    double norm = hierarchy.restrict_residual_and_norm(exec, 0);
    if (done > 0) {
      if (schedule.would_stop(done, norm)) norm = residual_norm();
      if (schedule.record(done, norm)) return;
    }
    run_coarser_cycles(hierarchy, exec, 0, shape, options);
    hierarchy.prolong_and_correct(exec, 0);
    hierarchy.smooth(exec, 0, options.post_sweeps, /*post=*/true);
    hierarchy.smooth(exec, 0, options.pre_sweeps, /*post=*/false);
  }
}

// Full multigrid: the residual equation restricted to the coarsest level
// and solved there, then each finer level starts from the interpolated
// coarser solution and runs one cycle.
template <class Hierarchy>
void run_full_multigrid_cycle(Hierarchy& hierarchy, const ExecSpace& exec, MultigridCycle shape,
                              const MultigridOptions& options) {
  for (std::size_t l = 0; l + 1 < hierarchy.depth(); ++l) hierarchy.restrict_residual(exec, l);
  hierarchy.solve_coarsest(exec);
  for (std::size_t l = hierarchy.depth() - 1; l-- > 0;) {
    hierarchy.prolong_and_correct(exec, l);
    run_cycle(hierarchy, exec, l, shape, options);
  }
}

// A level's grids: level 0 iterates on the caller's x and B, coarser
// levels on their own, zeroed on exec; the residual (Jacobi, Chebyshev)
// and the last step (Chebyshev) where the smoother needs them.
template <class T, class Level>
void make_level_grids(const ExecSpace& exec, Level& level, std::size_t l, int rows, int cols, const View2D<T>& x,
                      const View2D<T>& rhs, const MultigridOptions& options, const std::string& prefix) {
  const std::string name = prefix + std::to_string(l);
  if (l == 0) {
    level.u = x;
    level.f = rhs;
  } else {
    level.u = zeroed_on<View2D<T>>(exec, name + "_u", rows, cols);
    level.f = zeroed_on<View2D<T>>(exec, name + "_f", rows, cols);
  }
  if (options.smoother != MultigridSmoother::rbgs)
    level.residual = zeroed_on<View2D<T>>(exec, name + "_residual", rows, cols);
  if (options.smoother == MultigridSmoother::chebyshev)
    level.step = zeroed_on<View2D<T>>(exec, name + "_step", rows, cols);
}

struct NothingFirst {
  void operator()() const {}
};

// `sweeps` weighted Jacobi (options.smoother jacobi) or Chebyshev sweeps on
// one level's points (its u, f, residual, step and op), each from the
// residual f - L u formed first, after first() (over MPI ranks: u's halo
// exchange).
template <class T, class Level, class First = NothingFirst>
void smooth_from_residual(const ExecSpace& exec, const GridRectangle& points, const Level& level,
                          const MultigridOptions& options, const ChebyshevCoefficients& chebyshev, int sweeps,
                          const First& first = {}) {
  using Op = decltype(level.op);
  for (int s = 0; s < sweeps; ++s) {
    first();
    for_rectangle(exec, "poisson_mg_residual", points,
                  LevelResidual<T, Op>{level.u, level.f, level.residual, level.op});
    if (options.smoother == MultigridSmoother::jacobi)
      for_rectangle(exec, "poisson_mg_jacobi", points,
                    JacobiCorrection<T, Op>{level.u, level.residual, level.op, static_cast<T>(options.jacobi_omega)});
    else
      for_rectangle(exec, "poisson_mg_chebyshev", points,
                    ChebyshevStep<T, Op>{level.u, level.step, level.residual, level.op,
                                         static_cast<T>(chebyshev.keep[s]), static_cast<T>(chebyshev.scale[s])});
  }
}

}  // namespace portasolve::poisson::detail::multigrid
