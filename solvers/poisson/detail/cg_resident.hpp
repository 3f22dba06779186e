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
// the barrier, and those reads are atomic loads after the barrier's acquire
// fence (resident_wait.hpp), so they see where the writes landed, not a stale
// L1 line.
#include <cstdint>

#include "core/kokkos_compat.hpp"
#include "core/spaces.hpp"
#include "solvers/poisson/detail/cg_kernels.hpp"
#include "solvers/poisson/detail/resident_wait.hpp"

namespace portasolve::poisson::detail {

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

  // [Reduction][team]: a row of team partials per reduction. Laid out by
  // rows whatever the memory space's default, and indexed through the View
  // only: with the device's default LayoutLeft, `data() + which * stride(0)`
  // made team t's pq slot team t-1's rr slot, so a late team could sum a
  // neighbour's next partial (wrong scalars under racecheck, issue 19).
  using Partials = Kokkos::View<Sum**, Kokkos::LayoutRight, MemSpace>;

  View2D<T> x, r, p, q;
  Scalars scalars;                       // as FusedCg's: read at the start, written back at the end
  Partials partials;                     // written at a barrier, read until the barrier after next
  Kokkos::View<int, MemSpace> arrivals;  // zero at the launch, one count per team and barrier
  Kokkos::View<int, MemSpace> stalled;
  long long patience;  // polls before a wait gives up (resident_wait.hpp)
  std::int64_t first_step, restart_step;
  int steps;
  // Tests hold the middle team back this long before it reads the partials
  // (resident_lag_from_environment), so the others run ahead into the next
  // phase: its sums must not change. Zero in production.
  std::uint64_t lag;

  KOKKOS_INLINE_FUNCTION std::int64_t interior_cols() const { return std::int64_t(x.extent(1)) - 2; }
  KOKKOS_INLINE_FUNCTION std::int64_t points() const { return (std::int64_t(x.extent(0)) - 2) * interior_cols(); }

  KOKKOS_INLINE_FUNCTION Sum direction(const std::int64_t point, const T beta) const {
    const std::int64_t i = 1 + point / interior_cols(), j = 1 + point % interior_cols();
    const T* rv = r.data();
    const std::int64_t stride = r.stride(0), at = i * stride + j;
    const T up = load_shared_word(rv + at - stride), down = load_shared_word(rv + at + stride),
            left = load_shared_word(rv + at - 1), right = load_shared_word(rv + at + 1);
    return fused_cg_direction<T, Sum>(load_shared_word(rv + at), up + down + left + right, beta, p(i, j), q(i, j));
  }

  KOKKOS_INLINE_FUNCTION Sum update(const std::int64_t point, const T alpha) const {
    const std::int64_t i = 1 + point / interior_cols(), j = 1 + point % interior_cols();
    return fused_cg_update<T, Sum>(alpha, p(i, j), q(i, j), x(i, j), r(i, j));
  }

  // The grid-wide sum of the teams' partials: the `barrier`-th barrier of
  // this launch. Thread 0 publishes the team's partial and arrives (release:
  // a fence after the team barrier orders the team's stores of x, r, p, q and
  // the partial before the increment), waits for every team (acquire), and
  // the team barrier after it hands that ordering to the whole team. Every
  // team then sums all partials in the same order, so all teams (and every
  // run) get the same scalars. The last barrier keeps the next team
  // reduction from reusing Kokkos' shared reduction buffer while slow warps
  // still read this one's result: Kokkos 3.4 ends a team reduction without
  // one (scripts/patches/0006 adds it; this keeps other Kokkos builds safe).
  KOKKOS_INLINE_FUNCTION Sum total(const Member& team, const Reduction which, const Sum partial,
                                   const int barrier) const {
    const int teams = team.league_size();
    team.team_barrier();
    if (team.team_rank() == 0) {
      store_shared_word(&partials(which, team.league_rank()), partial);
      Kokkos::memory_fence();
      kokkos_compat::atomic_increment(arrivals.data());
      wait_until_reaches(arrivals.data(), barrier * teams, StallWatch{stalled.data(), patience});
    }
    converge_warp();
    team.team_barrier();
    if (lag != 0 && team.league_rank() == teams / 2) hold_back(lag);
    Sum sum = 0;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, teams), [&](const int t, Sum& s) { s += load_shared_word(&partials(which, t)); },
        sum);
    team.team_barrier();
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

}  // namespace portasolve::poisson::detail
