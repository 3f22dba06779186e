#pragma once
// Periodogram's device-side state; internal to the solver's translation units.
#include <memory>

#include "solvers/lombscargle/kernels.hpp"
#include "solvers/lombscargle/nufft_plan.hpp"
#include "solvers/lombscargle/periodogram.hpp"

namespace portasolve::lombscargle {

template <class T>
using StepTable = Kokkos::View<T * [recurrence_steps<T>()], Kokkos::LayoutRight, MemSpace>;

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
  DeviceData<T> data;
  // Depends only on the times and the grid step: built by the first
  // recurrence launch, reused by every later one.
  StepTable<T> step_cos, step_sin;
  std::unique_ptr<NufftPlan<T>> nufft;  // built by the first nufft launch
};

}  // namespace portasolve::lombscargle
