#pragma once
// The ensemble layouts' kernels: the flat layout's sub-stage functor (one
// launch per sub-stage over every member's points) and the team layout's
// whole-window functor (a member per team, stage state in team scratch).
#include <cstdint>

#include "core/spaces.hpp"
#include "solvers/lorenz05/tendency.hpp"

namespace portasolve::lorenz05 {

// RK4 as DART writes it: k_s = dt f(stage input); the next stage's input is
// z + a_s k_s; the step adds k1/6 + k2/3 + k3/3 + k4/6, accumulated in that order.
template <class T>
struct RungeKutta {
  KOKKOS_INLINE_FUNCTION static T next_input_weight(const int stage) { return stage < 2 ? T(0.5) : T(1); }
  KOKKOS_INLINE_FUNCTION static T increment_weight(const int stage) {
    return stage == 0 || stage == 3 ? T(1) / T(6) : T(1) / T(3);
  }
  // The pointwise end of a stage: updates the accumulated increment and z
  // (last stage), returns the next stage's input at this point.
  KOKKOS_INLINE_FUNCTION static T finish_stage(const int stage, const T k, T& increment, T& z) {
    const T weighted = k * increment_weight(stage);
    if (stage == 0) {
      increment = weighted;
    } else if (stage < 3) {
      increment += weighted;
    } else {
      z = z + (increment + weighted);
      return z;
    }
    return z + next_input_weight(stage) * k;
  }
};

// One kernel per sub-stage over every member's points (the baseline layout).
struct SmoothStage {};
struct AverageStage {};
struct RateStage {};

template <class T>
struct FlatStage {
  Coefficients<T> co;
  View2D<T> z, input, next_input, large, average, increment;
  int stage;

  KOKKOS_INLINE_FUNCTION void operator()(SmoothStage, const int e, const int i) const {
    large(e, i) = large_scale(co, i, [&](const int q) { return input(e, q); });
  }
  KOKKOS_INLINE_FUNCTION void operator()(AverageStage, const int e, const int i) const {
    const auto& x = co.two_scale() ? large : input;
    average(e, i) = average_w(co, i, [&](const int q) { return x(e, q); });
  }
  KOKKOS_INLINE_FUNCTION void operator()(RateStage, const int e, const int i) const {
    const auto& x = co.two_scale() ? large : input;
    const T k = co.dt * tendency(
                            co, i, [&](const int q) { return input(e, q); }, [&](const int q) { return x(e, q); },
                            [&](const int q) { return average(e, q); });
    next_input(e, i) = RungeKutta<T>::finish_stage(stage, k, increment(e, i), z(e, i));
  }
};

template <class Functor, class Tag>
struct Tagged {
  Functor functor;
  KOKKOS_INLINE_FUNCTION void operator()(const int e, const int i) const { functor(Tag{}, e, i); }
};

// One team per member for a whole window of steps; the stage input, the large
// scale, W and the stage's rates stay in team scratch, z and the accumulated
// increment in device memory (each point touched only by its own thread).
template <class T>
struct TeamSteps {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = Policy::member_type;
  using Scratch = Kokkos::View<T*, ExecSpace::scratch_memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  Coefficients<T> co;
  View2D<T> z, increment;
  std::int64_t steps;

  static int scratch_arrays(const Coefficients<T>& co) { return co.two_scale() ? 4 : 3; }
  static std::size_t scratch_bytes(const Coefficients<T>& co) {
    return static_cast<std::size_t>(scratch_arrays(co)) * Scratch::shmem_size(co.n);
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const int e = team.league_rank(), n = co.n;
    const Scratch input(team.team_scratch(0), n), average(team.team_scratch(0), n), rate(team.team_scratch(0), n);
    const Scratch large = co.two_scale() ? Scratch(team.team_scratch(0), n) : input;
    const auto points = Kokkos::TeamThreadRange(team, n);
    Kokkos::parallel_for(points, [&](const int i) { input(i) = z(e, i); });
    team.team_barrier();
    const auto read_input = [&](const int q) { return input(q); };
    const auto read_large = [&](const int q) { return large(q); };
    for (std::int64_t step = 0; step < steps; ++step) {
      for (int stage = 0; stage < 4; ++stage) {
        if (co.two_scale()) {
          Kokkos::parallel_for(points, [&](const int i) { large(i) = large_scale(co, i, read_input); });
          team.team_barrier();
        }
        Kokkos::parallel_for(points, [&](const int i) { average(i) = average_w(co, i, read_large); });
        team.team_barrier();
        Kokkos::parallel_for(points, [&](const int i) {
          rate(i) = co.dt * tendency(co, i, read_input, read_large, [&](const int q) { return average(q); });
        });
        team.team_barrier();
        Kokkos::parallel_for(points, [&](const int i) {
          input(i) = RungeKutta<T>::finish_stage(stage, rate(i), increment(e, i), z(e, i));
        });
        team.team_barrier();
      }
    }
  }
};

}  // namespace portasolve::lorenz05
