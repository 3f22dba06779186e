#pragma once
// GPUs: a cycle's coarse levels in one launch. Below some size a level's
// half sweeps, restriction and prolongation (about ten launches a level and
// cycle) cost more in launch latency than in arithmetic: the talk's 400x266
// grid has eight levels. From the first level of at most
// default_tail_points interior points down, one team walks the cycle's steps
// there, recorded once on the host by running the cycle on a StepRecorder,
// with a barrier between steps. Each step calls the point functors the
// launches run, and every point of a step is independent of the others in
// it, so the result is the launches' bit for bit.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/spaces.hpp"
#include "solvers/poisson/detail/multigrid_cycles.hpp"
#include "solvers/poisson/detail/multigrid_kernels.hpp"
#include "solvers/poisson/detail/multigrid_levels.hpp"

namespace portasolve::poisson::detail::multigrid {

// The tail starts at the first level with at most this many interior points
// (a team of up to tail_team_size threads: 4 points a thread).
constexpr std::int64_t default_tail_points = 4096;
constexpr int tail_team_size = 1024;
// The most levels a tail holds (the kernel carries them by value).
constexpr int max_tail_levels = 10;

// The tail this build runs: GPUs default_tail_points, hosts none (their row
// kernels are faster). PORTASOLVE_MULTIGRID_TAIL=N sets the points instead,
// 0 turns it off (benchmarks: the launch-per-step baseline, other sizes).
inline std::int64_t build_tail_points() {
  if (host_execution) return 0;
  const char* setting = std::getenv("PORTASOLVE_MULTIGRID_TAIL");
  if (!setting || !*setting) return default_tail_points;
  char* end = nullptr;
  const long long points = std::strtoll(setting, &end, 10);
  return *end == '\0' && points >= 0 ? points : default_tail_points;
}

enum class TailOp : int { red, black, restrict_residual, prolong_and_correct, coarsest_serial };

struct TailStep {
  TailOp op;
  int level;  // within the tail
};

// The run_cycle interface (multigrid_cycles.hpp) over a tail of `depth`
// levels: records the steps instead of launching them.
struct StepRecorder {
  std::size_t levels;
  bool symmetric;        // post-smoothing sweeps black first
  bool serial_coarsest;  // the coarsest level by one thread, else half sweeps
  int coarsest_sweeps;
  std::vector<TailStep> steps;

  std::size_t depth() const { return levels; }
  bool cycle_in_one_launch(const ExecSpace&, std::size_t, MultigridCycle) { return false; }
  void smooth(const ExecSpace&, std::size_t l, int sweeps, bool post) {
    const bool black_first = post && symmetric;
    for (int s = 0; s < sweeps; ++s) {
      if (black_first) add(TailOp::black, l);
      add(TailOp::red, l);
      if (!black_first) add(TailOp::black, l);
    }
  }
  void restrict_residual(const ExecSpace&, std::size_t l) { add(TailOp::restrict_residual, l); }
  void prolong_and_correct(const ExecSpace&, std::size_t l) { add(TailOp::prolong_and_correct, l); }
  void solve_coarsest(const ExecSpace&) {
    if (serial_coarsest) {
      add(TailOp::coarsest_serial, levels - 1);
      return;
    }
    for (int s = 0; s < coarsest_sweeps; ++s) {
      add(TailOp::red, levels - 1);
      add(TailOp::black, levels - 1);
    }
  }
  void add(TailOp op, std::size_t l) { steps.push_back(TailStep{op, static_cast<int>(l)}); }
};

template <class T>
struct TailLevel {
  View2D<T> u, f;
  LevelOperator<T> op;
  Transfer<T> row_transfer{false, 0, T(0)}, col_transfer{false, 0, T(0)};
};

template <class T>
struct TailCycle {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;

  TailLevel<T> levels[max_tail_levels];
  Kokkos::View<const TailStep*, MemSpace> steps;
  int coarsest_sweeps;

  // f(i, j) at every interior point of a level, spread over the team.
  template <class PointFunctor>
  KOKKOS_INLINE_FUNCTION static void over(const Member& team, const LevelOperator<T>& op, const PointFunctor& f) {
    const int cols = op.cols;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, op.rows * cols),
                         [&](const int k) { f(1 + k / cols, 1 + k % cols); });
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const int count = static_cast<int>(steps.extent(0));
    for (int s = 0; s < count; ++s) {
      const TailStep step = steps(s);
      const TailLevel<T>& level = levels[step.level];
      switch (step.op) {
        case TailOp::red:
          over(team, level.op, RedBlackSweep<T, Red>{level.u, level.f, level.op});
          break;
        case TailOp::black:
          over(team, level.op, RedBlackSweep<T, Black>{level.u, level.f, level.op});
          break;
        case TailOp::restrict_residual: {
          const TailLevel<T>& coarse = levels[step.level + 1];
          over(team, coarse.op,
               RestrictResidual<T>{level.u, level.f, level.op, level.row_transfer, level.col_transfer, coarse.u,
                                   coarse.f});
          break;
        }
        case TailOp::prolong_and_correct:
          over(team, level.op,
               ProlongAndCorrect<T>{level.u, levels[step.level + 1].u, level.row_transfer, level.col_transfer});
          break;
        case TailOp::coarsest_serial:
          Kokkos::single(Kokkos::PerTeam(team), [&]() {
            SerialGaussSeidel<T>{level.u, level.f, level.op, coarsest_sweeps}(0);
          });
          break;
      }
      team.team_barrier();
    }
  }
};

// Where a hierarchy's tail starts: the first level from which every level
// has at most `tail_points` interior points (the last max_tail_levels of
// them where more qualify: thin, semi-coarsened grids), if that leaves at
// least two levels; else the depth (no tail).
template <class T>
std::size_t find_tail_start(const std::vector<Level<T>>& levels, std::int64_t tail_points) {
  std::size_t start = levels.size();
  while (start > 0 && levels.size() - start < std::size_t(max_tail_levels) &&
         std::int64_t(levels[start - 1].op.rows) * levels[start - 1].op.cols <= tail_points)
    --start;
  return levels.size() - start >= 2 ? start : levels.size();
}

}  // namespace portasolve::poisson::detail::multigrid
