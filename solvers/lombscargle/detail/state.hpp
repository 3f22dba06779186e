#pragma once
// Periodogram's device-side state; internal to the solver's translation units.
#include <memory>

#include "solvers/lombscargle/detail/kernels.hpp"
#include "solvers/lombscargle/detail/nufft_plan.hpp"
#include "solvers/lombscargle/periodogram.hpp"

namespace portasolve::lombscargle::detail {

template <class T>
using StepTable = Kokkos::View<T * [recurrence_steps<T>()], Kokkos::LayoutRight, MemSpace>;

}  // namespace portasolve::lombscargle::detail

namespace portasolve::lombscargle {

// A member of the public class, so it is defined in the class's namespace.
template <class T>
struct Periodogram<T>::State {
  explicit State(const ExecSpace& instance) : exec(instance) {}
  State(const State&) = delete;
  State& operator=(const State&) = delete;
  // Its work reads the arrays below: exec is fenced before they go (errors
  // while unwinding or destroying are dropped: the first one is reported).
  ~State() {
    try {
      exec.fence();
    } catch (...) {
    }
  }

  ExecSpace exec;  // every upload, kernel and transform runs on it
  detail::DeviceData<T> data;
  // Depends only on the times and the grid step: built by the first
  // recurrence launch, reused by every later one until update() brings new
  // times (steps_current false: built again, into the same arrays where the
  // sample count is the same, since freeing device memory waits for every
  // stream's work).
  detail::StepTable<T> step_cos, step_sin;
  bool steps_current = false;
  std::unique_ptr<detail::NufftPlan<T>> nufft;  // built by the first nufft launch
};

}  // namespace portasolve::lombscargle
