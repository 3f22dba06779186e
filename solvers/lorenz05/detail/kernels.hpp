#pragma once
// The ensemble layouts' kernels: the flat layout's sub-stage functor (one
// launch per sub-stage over every member's points), the team layout's
// whole-window functor (a member per team, stage state in team scratch) and
// the vector layout's (a member per thread, points in SIMD lanes).
#include <cstdint>

#include "core/spaces.hpp"
#include "solvers/lorenz05/detail/lanes.hpp"
#include "solvers/lorenz05/detail/tendency.hpp"

namespace portasolve::lorenz05::detail {

// RK4 as DART writes it: k_s = dt f(stage input); the next stage's input is
// z + a_s k_s; the step adds k1/6 + k2/3 + k3/3 + k4/6, accumulated in that order.
template <class T>
struct RungeKutta {
  KOKKOS_INLINE_FUNCTION static T next_input_weight(const int stage) { return stage < 2 ? T(0.5) : T(1); }
  KOKKOS_INLINE_FUNCTION static T increment_weight(const int stage) {
    return stage == 0 || stage == 3 ? T(1) / T(6) : T(1) / T(3);
  }
  // The pointwise end of a stage: updates the accumulated increment and z
  // (last stage), returns the next stage's input at this point (or points:
  // Value T or Lanes<T, B>).
  template <class Value>
  KOKKOS_INLINE_FUNCTION static Value finish_stage(const int stage, const Value k, Value& increment, Value& z) {
    const Value weighted = mul(k, increment_weight(stage));
    if (stage == 0) {
      increment = weighted;
    } else if (stage < 3) {
      increment = add(increment, weighted);
    } else {
      z = add(z, add(increment, weighted));
      return z;
    }
    return add(z, mul(next_input_weight(stage), k));
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
    const T k = mul(co.dt, tendency(
                               co, i, [&](const int q) { return input(e, q); }, [&](const int q) { return x(e, q); },
                               [&](const int q) { return average(e, q); }));
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
          rate(i) = mul(co.dt, tendency(co, i, read_input, read_large, [&](const int q) { return average(q); }));
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

// The wrapped copies a padded row needs at each end: the farthest any sum
// reaches from its point (W at i - 2K, X at i + K + J, Z at i +- I and i - 2).
template <class T>
KOKKOS_INLINE_FUNCTION int row_halo(const Coefficients<T>& co) {
  const int w_reach = 2 * co.k, x_reach = co.k + co.half, z_reach = co.smooth_steps > 2 ? co.smooth_steps : 2;
  const int reach = w_reach > x_reach ? w_reach : x_reach;
  return reach > z_reach ? reach : z_reach;  // (std::max is host-only on some device compilers)
}

// One thread per member (a team of one) for a whole window of steps, each
// sub-stage a loop over the row in blocks of `lanes` consecutive points run
// as Lanes (the points after the last whole block one at a time): the same
// per-point code, so the same numbers as the other layouts, with a block's
// points in SIMD lanes where the others compute a point per thread. The
// stage input, the large scale and W are kept with `halo` wrapped copies at
// both ends of the row, so that a block reads consecutive values where the
// other layouts wrap each index; they, the rates and the accumulated
// increment live in the thread's scratch, z in the states. For CPUs: a GPU
// runs it correctly but with one thread per member.
template <class T, bool OneScaleK1 = false>
struct VectorSteps {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = Policy::member_type;
  using Scratch = Kokkos::View<T*, ExecSpace::scratch_memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  // 8 points per block: in double four SSE2 registers (two AVX ones) of
  // independent chains per sum, which keeps the adders busy and the block's
  // live values within the 16 vector registers; 4 and 16 were slower. In
  // float too: GCC assembles 16 lanes from scalar loads (1.7x slower).
  static constexpr int lanes = 8;
  using Block = Lanes<T, lanes>;
  static constexpr int scratch_level = 1;  // a row plus halos exceeds level 0 (L1-sized) on hosts

  Coefficients<T> co;
  View2D<T> z;
  std::int64_t steps;

  // OneScaleK1: the coefficients with K = 1's constants written in (see
  // one_scale_k1_constants).
  KOKKOS_INLINE_FUNCTION Coefficients<T> coefficients() const { return OneScaleK1 ? one_scale_k1_constants(co) : co; }
  KOKKOS_INLINE_FUNCTION static int halo(const Coefficients<T>& co) { return row_halo(co); }
  static int padded_arrays(const Coefficients<T>& co) { return co.two_scale() ? 3 : 2; }  // input, large, W
  static std::size_t scratch_bytes(const Coefficients<T>& co) {
    return static_cast<std::size_t>(padded_arrays(co)) * Scratch::shmem_size(co.n + 2 * halo(co)) +
           2 * Scratch::shmem_size(co.n);  // rates, increment
  }

  // The row's wrapped copies: row[h + m] = row[h + (m mod n)] for m in
  // [-h, 0) and [n, n + h), the source stepped along (h may exceed n) where a
  // division per copy would cost as much as a few points' sums.
  KOKKOS_INLINE_FUNCTION void wrap_ends(T* row, const int h) const {
    const int n = coefficients().n;
    for (int m = -1, from = n - 1; m >= -h; --m, from = from == 0 ? n - 1 : from - 1) row[h + m] = row[h + from];
    for (int m = n, from = 0; m < n + h; ++m, from = from == n - 1 ? 0 : from + 1) row[h + m] = row[h + from];
  }

  // A reader of a padded row (its point 0 at `origin`), as scalars or blocks.
  template <class Value>
  struct Read {
    const T* origin;
    KOKKOS_INLINE_FUNCTION Value operator()(const int q) const { return load_lanes<Value>(origin + q); }
  };

  // The rows of one member's scratch, each pointing at its point 0.
  struct Rows {
    T *input, *large, *average, *rate, *increment, *state;
  };

  template <class Value>
  KOKKOS_INLINE_FUNCTION void at(SmoothStage, const int i, const Rows& r) const {
    store_lanes(large_scale(coefficients(), PaddedIndex{}, i, Read<Value>{r.input}), r.large + i);
  }
  template <class Value>
  KOKKOS_INLINE_FUNCTION void at(AverageStage, const int i, const Rows& r) const {
    store_lanes(average_w(coefficients(), PaddedIndex{}, i, Read<Value>{r.large}), r.average + i);
  }
  struct FinishStage {
    int stage;
  };
  template <class Value>
  KOKKOS_INLINE_FUNCTION void at(const FinishStage finish, const int i, const Rows& r) const {
    Value increment = load_lanes<Value>(r.increment + i), state = load_lanes<Value>(r.state + i);
    const Value input = RungeKutta<T>::finish_stage(finish.stage, load_lanes<Value>(r.rate + i), increment, state);
    store_lanes(increment, r.increment + i);
    store_lanes(state, r.state + i);
    store_lanes(input, r.input + i);
  }
  template <class Value>
  KOKKOS_INLINE_FUNCTION void at(RateStage, const int i, const Rows& r) const {
    const Coefficients<T> c = coefficients();
    const Value k =
        mul(c.dt, tendency(c, PaddedIndex{}, i, Read<Value>{r.input}, Read<Value>{r.large}, Read<Value>{r.average}));
    store_lanes(k, r.rate + i);
  }
  // A sub-stage over the row: whole blocks, then the rest point by point.
  template <class Phase>
  KOKKOS_INLINE_FUNCTION void over_row(const Phase phase, const Rows& r) const {
    const int n = coefficients().n;
    int i = 0;
    for (; i + lanes <= n; i += lanes) at<Block>(phase, i, r);
    for (; i < n; ++i) at<T>(phase, i, r);
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const Coefficients<T> c = coefficients();
    const int e = team.league_rank(), n = c.n, h = halo(c);
    const auto& scratch = team.team_scratch(int(scratch_level));  // a copy: device code cannot bind the static member
    const Scratch input_row(scratch, n + 2 * h), average_row(scratch, n + 2 * h);
    const Scratch large_row = c.two_scale() ? Scratch(scratch, n + 2 * h) : input_row;
    const Scratch rate(scratch, n), increment(scratch, n);
    const Rows r{input_row.data() + h, large_row.data() + h, average_row.data() + h,
                 rate.data(),          increment.data(),     &z(e, 0)};
    for (int i = 0; i < n; ++i) r.input[i] = r.state[i];
    wrap_ends(input_row.data(), h);
    for (std::int64_t step = 0; step < steps; ++step) {
      for (int stage = 0; stage < 4; ++stage) {
        if (c.two_scale()) {
          over_row(SmoothStage{}, r);
          wrap_ends(large_row.data(), h);
        }
        over_row(AverageStage{}, r);
        wrap_ends(average_row.data(), h);
        over_row(RateStage{}, r);
        over_row(FinishStage{stage}, r);
        wrap_ends(input_row.data(), h);
      }
    }
  }
};

// Launches VectorSteps over the rows of `states` on exec: in vector_steps.cpp,
// the one file compiled without GCC's loop vectoriser (CMakeLists.txt says why).
template <class T>
void advance_vector(const ExecSpace& exec, const Coefficients<T>& co, const View2D<T>& states, std::int64_t steps);

}  // namespace portasolve::lorenz05::detail
