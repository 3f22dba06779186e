#pragma once
// Each method's iteration loop; solve() in solver.cpp picks one. x and rhs are
// checked, x_next/work buffers are the methods' own.
#include "solvers/poisson/check_schedule.hpp"

namespace portasolve::poisson {

template <class T>
void run_jacobi(const View2D<T>& x, const View2D<T>& rhs, const SolverOptions& options, CheckSchedule& schedule);
template <class T>
void run_cg(const View2D<T>& x, const View2D<T>& rhs, const SolverOptions& options, CheckSchedule& schedule);
template <class T>
void run_cg_fused(const View2D<T>& x, const View2D<T>& rhs, const SolverOptions& options, CheckSchedule& schedule);
template <class T>
void run_multigrid(const View2D<T>& x, const View2D<T>& rhs, const SolverOptions& options, CheckSchedule& schedule);
template <class T>
void run_spectral(const View2D<T>& x, const View2D<T>& rhs, const SolverOptions& options, CheckSchedule& schedule);

}  // namespace portasolve::poisson
