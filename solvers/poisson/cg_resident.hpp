#pragma once
// Resident CG: the fused iteration (cg_kernels.hpp) with every step up to the
// next residual check in one launch. On a small grid (the talk's 400x266
// image) a step's two launches cost more than its arithmetic; here a team per
// multiprocessor owns a contiguous run of interior points, and the two
// reductions a step meet in a grid-wide barrier of their own (resident_wait.hpp):
// each team writes its partial sum, arrives, waits for all, and sums every
// team's partial in team order, so all teams (and every run) get the same
// scalars.
//
// Between barriers a team touches only its own points, except the
// neighbours of r that the direction phase reads; r's last writes lie before
// the barrier, and those reads go past L1 (volatile) to where they landed.
#include <cstdint>

#include "core/spaces.hpp"
#include "solvers/poisson/cg_kernels.hpp"
#include "solvers/poisson/resident_wait.hpp"

namespace portasolve::poisson {

// Threads a team: enough to cover a small grid's share in one or two passes
// (400x266 on 132 multiprocessors: 806 points a team); hosts: one.
constexpr int resident_cg_team_size = host_execution ? 1 : 512;

template <class T, class Sum>
struct ResidentCg {
  using Policy = Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<resident_cg_team_size, 1>>;
  using Member = typename Policy::member_type;
  using Scalars = typename FusedCg<T, Sum>::Scalars;
  enum : int { pq_slot = FusedCg<T, Sum>::pq_slot };
  enum Reduction : int { pq_sum = 0, rr_sum = 1 };

  View2D<T> x, r, p, q;
  Scalars scalars;                         // as FusedCg's: read at the start, written back at the end
  Kokkos::View<Sum**, MemSpace> partials;  // [Reduction][team]
  Kokkos::View<int, MemSpace> arrivals;    // zero at the launch, one count per team and barrier
  Kokkos::View<int, MemSpace> stalled;
  std::int64_t first_step, restart_step;
  int steps;

  KOKKOS_INLINE_FUNCTION std::int64_t interior_cols() const { return std::int64_t(x.extent(1)) - 2; }
  KOKKOS_INLINE_FUNCTION std::int64_t points() const { return (std::int64_t(x.extent(0)) - 2) * interior_cols(); }

  KOKKOS_INLINE_FUNCTION Sum direction(const std::int64_t point, const T beta) const {
    const std::int64_t i = 1 + point / interior_cols(), j = 1 + point % interior_cols();
    const volatile T* rv = r.data();
    const std::int64_t stride = r.stride(0), at = i * stride + j;
    return fused_cg_direction<T, Sum>(rv[at], rv[at - stride] + rv[at + stride] + rv[at - 1] + rv[at + 1], beta,
                                      p(i, j), q(i, j));
  }

  KOKKOS_INLINE_FUNCTION Sum update(const std::int64_t point, const T alpha) const {
    const std::int64_t i = 1 + point / interior_cols(), j = 1 + point % interior_cols();
    return fused_cg_update<T, Sum>(alpha, p(i, j), q(i, j), x(i, j), r(i, j));
  }

  // The grid-wide sum of the teams' partials: the `barrier`-th barrier of
  // this launch. One thread's fence before its arrival orders the team's
  // stores (fences are cumulative after the team barrier), one after the
  // wait orders its next loads.
  KOKKOS_INLINE_FUNCTION Sum total(const Member& team, const Reduction which, const Sum partial,
                                   const int barrier) const {
    const int teams = team.league_size();
    volatile Sum* slots = partials.data() + which * partials.stride(0);
    if (team.team_rank() == 0) slots[team.league_rank()] = partial;
    team.team_barrier();
    if (team.team_rank() == 0) {
      Kokkos::memory_fence();
      Kokkos::atomic_increment(arrivals.data());
      wait_until_reaches(arrivals.data(), barrier * teams, stalled.data());
      Kokkos::memory_fence();
    }
    team.team_barrier();
    Sum sum = 0;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, teams), [&](const int t, Sum& s) { s += slots[t]; }, sum);
    return sum;
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const std::int64_t teams = team.league_size(), rank = team.league_rank();
    const std::int64_t begin = points() * rank / teams, end = points() * (rank + 1) / teams;
    Sum rr = scalars(first_step & 1), rr_previous = scalars((first_step + 1) & 1), pq = scalars(pq_slot);
    int barrier = 0;
    for (std::int64_t step = first_step; step < first_step + steps; ++step) {
      const T beta = fused_cg_beta<T>(step == restart_step, rr, rr_previous);
      Sum part = 0;
      Kokkos::parallel_reduce(
          Kokkos::TeamThreadRange(team, begin, end), [&](const std::int64_t k, Sum& s) { s += direction(k, beta); },
          part);
      pq = total(team, pq_sum, part, ++barrier);

      const T alpha = fused_cg_alpha<T>(rr, pq);
      part = 0;
      Kokkos::parallel_reduce(
          Kokkos::TeamThreadRange(team, begin, end), [&](const std::int64_t k, Sum& s) { s += update(k, alpha); },
          part);
      rr_previous = rr;
      rr = total(team, rr_sum, part, ++barrier);
    }
    if (rank == 0 && team.team_rank() == 0) {
      const std::int64_t done = first_step + steps;
      scalars(done & 1) = rr;
      scalars((done + 1) & 1) = rr_previous;
      scalars(pq_slot) = pq;
    }
  }
};

}  // namespace portasolve::poisson
