#pragma once
// The resident layout's kernel for one-scale models with K = 1 (Lorenz 96,
// and model II with K = 1) on GPUs: each member a segment of a warp's lanes,
// each lane a block of `points` consecutive points whose state, RK increment
// and stage input stay in its registers for the whole window. A point's
// rate reads two points before it and one after, so a block needs two values
// of the lane before and one of the lane after: three shuffles a stage, no
// shared memory and no barrier. The per-point code is the other layouts'
// (tendency(), RungeKutta on Lanes, K, J and the model as constants), so the
// numbers are theirs.
#include <cstdint>

#include "core/lanes.hpp"
#include "core/spaces.hpp"
#include "core/unroll.hpp"
#include "solvers/lorenz05/detail/kernels.hpp"
#include "solvers/lorenz05/detail/lanes.hpp"
#include "solvers/lorenz05/detail/tendency.hpp"

namespace portasolve::lorenz05::detail {

template <class T>
struct WarpSteps {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = Policy::member_type;
  // Points per lane: 5 divides Lorenz 96's N = 40 (8 lanes a member, 4
  // members a warp).
  static constexpr int points = 5;
  // The reach of a point's rate: W at i - 2K, X at i + K (K = 1).
  static constexpr int reach_before = 2, reach_after = 1;
  static_assert(points >= reach_before && points >= reach_after, "a block's rates reach past the neighbouring lanes");
  static constexpr int team_threads = 128;
  using Block = Lanes<T, points>;

  Coefficients<T> co;
  View2D<T> z;  // E x N states, advanced in place
  std::int64_t steps;
  int segment_shift;  // lanes a member: 2^segment_shift >= N / points

  // One-scale, K = 1, N a multiple of `points` whose blocks fit a warp, on
  // a GPU.
  static bool applies(const Coefficients<T>& co) {
    const int blocks = co.n / points;
    return !host_execution && is_one_scale_k1(co) && co.n % points == 0 && blocks <= band_lanes;
  }
  static int segment_shift_for(const Coefficients<T>& co) {
    int shift = 0;
    while ((1 << shift) < co.n / points) ++shift;
    return shift;
  }
  static Policy policy(const ExecSpace& exec, const int members, const int shift) {
    const std::int64_t threads = static_cast<std::int64_t>(members) << shift;
    return Policy(exec, static_cast<int>((threads + team_threads - 1) / team_threads), team_threads);
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const Coefficients<T> c = one_scale_k1_constants(co);
    // 64-bit: members << segment_shift may pass 2^31 (2^28 members of N = 40 in float fit an H100).
    const std::int64_t thread = static_cast<std::int64_t>(team.league_rank()) * team.team_size() + team.team_rank();
    const int segment = 1 << segment_shift, blocks = c.n / points;
    const std::int64_t member = thread >> segment_shift;
    const int lane = static_cast<int>(thread & (segment - 1));
    const int warp_lane = team.team_rank() % band_lanes, segment_start = warp_lane - lane;
    const int lane_before = segment_start + (lane == 0 ? blocks - 1 : lane - 1);
    const int lane_after = segment_start + (lane + 1 >= blocks ? 0 : lane + 1);
    const bool owner = member < static_cast<std::int64_t>(z.extent(0)) && lane < blocks;
    const int i = lane * points;

    // Lanes that own nothing (past the last member, or past N in a segment:
    // those take real neighbours' values and may overflow) compute values
    // nobody reads or keeps, so that every lane of the warp shuffles.
    Block state(T(0)), increment(T(0));
    if (owner)
      for (int b = 0; b < points; ++b) state.lane[b] = z(member, i + b);
    Block input = state;
    for (std::int64_t step = 0; step < steps; ++step) {
      for (int stage = 0; stage < 4; ++stage) {
        // around[q - i + reach_before]: point q of the stage input, i - 2 <= q <= i + points.
        T around[reach_before + points + reach_after];
        PORTASOLVE_UNROLL
        for (int b = 0; b < reach_before; ++b)
          around[b] = from_lane(input.lane[points - reach_before + b], lane_before);
        PORTASOLVE_UNROLL
        for (int b = 0; b < points; ++b) around[reach_before + b] = input.lane[b];
        around[reach_before + points] = from_lane(input.lane[0], lane_after);

        const auto x = [&](const int q) {
          Block r;
          PORTASOLVE_UNROLL
          for (int b = 0; b < points; ++b) r.lane[b] = around[q - i + reach_before + b];
          return r;
        };
        const auto w = [&](const int q) {  // W where read (K = 1: average_w of one term)
          Block r;
          PORTASOLVE_UNROLL
          for (int b = 0; b < points; ++b)
            r.lane[b] = average_w(c, PaddedIndex{}, q + b, [&](const int p) { return around[p - i + reach_before]; });
          return r;
        };
        const Block k = mul(c.dt, tendency(c, PaddedIndex{}, i, x, x, w));
        input = RungeKutta<T>::finish_stage(stage, k, increment, state);
      }
    }
    if (owner)
      for (int b = 0; b < points; ++b) z(member, i + b) = state.lane[b];
  }
};

}  // namespace portasolve::lorenz05::detail
