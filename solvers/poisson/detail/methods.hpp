#pragma once
// Each method's iteration loop; solve() in solver.cpp picks one. x and rhs are
// checked, x_next/work buffers are the methods' own.
#include <cstdint>
#include <memory>

#include "solvers/poisson/detail/check_schedule.hpp"

namespace portasolve::poisson::detail {

// jacobi_blocked's sweeps for another caller (the distributed solve, which
// runs them on a rank's block plus a deep halo): up to
// options.sweeps_per_launch sweeps in one launch from current into next
// (the tiles or registers kernel, as options choose; resident, which keeps
// the whole grid in one launch, is refused with OptionError, and auto picks
// the next best instead). Each sweep gives the plain sweep's bits. Runs on
// the default instance.
template <class T>
class BlockedSweeps {
 public:
  BlockedSweeps(std::int64_t rows, std::int64_t cols, const SolverOptions& options);
  void run(const View2D<T>& current, const View2D<T>& next, const View2D<T>& rhs, T omega, bool weighted,
           int sweeps) const;

 private:
  struct Kernels;
  std::shared_ptr<Kernels> kernels_;
};

// Every kernel and copy of a method runs on exec; a method returns with its
// work on exec finished or ordered before the caller's next work on exec, and
// with none pending on buffers it frees.
template <class T>
void run_jacobi(const ExecSpace& exec, const View2D<T>& x, const View2D<T>& rhs, const SolverOptions& options,
                CheckSchedule& schedule);
template <class T>
void run_cg(const ExecSpace& exec, const View2D<T>& x, const View2D<T>& rhs, const SolverOptions& options,
            CheckSchedule& schedule);
template <class T>
void run_cg_fused(const ExecSpace& exec, const View2D<T>& x, const View2D<T>& rhs, const SolverOptions& options,
                  CheckSchedule& schedule);
template <class T>
void run_multigrid(const ExecSpace& exec, const View2D<T>& x, const View2D<T>& rhs, const SolverOptions& options,
                   CheckSchedule& schedule);
// neumann and periodic (multigrid_whole_grid.cpp), which run_multigrid calls.
template <class T>
void run_whole_grid_multigrid(const ExecSpace& exec, const View2D<T>& x, const View2D<T>& rhs,
                              const SolverOptions& options, CheckSchedule& schedule);
template <class T>
void run_spectral(const ExecSpace& exec, const View2D<T>& x, const View2D<T>& rhs, const SolverOptions& options,
                  CheckSchedule& schedule);

}  // namespace portasolve::poisson::detail
