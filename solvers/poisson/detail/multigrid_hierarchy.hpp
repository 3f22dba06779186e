#pragma once
// The dirichlet multigrid hierarchy (multigrid_levels.hpp): every level's
// grids, allocated once, and the steps run_cycle takes on them
// (multigrid_cycles.hpp). multigrid.cpp runs it on one rank; over MPI ranks
// (multigrid_ranks.cpp) it holds the coarse levels gathered onto every rank.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/grid_range.hpp"
#include "core/spaces.hpp"
#include "solvers/poisson/detail/multigrid_cycles.hpp"
#include "solvers/poisson/detail/multigrid_kernels.hpp"
#include "solvers/poisson/detail/multigrid_levels.hpp"
#include "solvers/poisson/detail/multigrid_tail.hpp"

namespace portasolve::poisson::detail::multigrid {

// The coarsest level is relaxed until its error has fallen by this factor
// (below double rounding), judged from the Gauss-Seidel rate.
constexpr double coarsest_reduction = 1e-14;
// Coarsest levels up to this many interior points are relaxed by one thread
// in one launch; larger ones by red-black half sweeps over all threads.
constexpr std::int64_t serial_coarsest_points = 256;

template <class T>
GridRectangle interior_of(const LevelOperator<T>& op) {
  return GridRectangle{1, 1, op.rows, op.cols};
}

// Red-black Gauss-Seidel sweeps that reduce the coarsest level's error by
// coarsest_reduction: the Jacobi rate of this operator, squared.
inline int coarsest_sweeps(const Axis& rows, const Axis& cols) {
  constexpr double pi = 3.14159265358979323846;
  const double jacobi_rate =
      (rows.coupling * std::cos(pi / (rows.points + 1)) + cols.coupling * std::cos(pi / (cols.points + 1))) /
      (rows.coupling + cols.coupling);
  const double rate = jacobi_rate * jacobi_rate;
  if (!(rate > 0)) return 1;
  return std::max(1, static_cast<int>(std::ceil(std::log(coarsest_reduction) / std::log(rate))));
}

template <class T>
class Hierarchy {
 public:
  // symmetric: Gauss-Seidel post-smoothing in the reverse colour order.
  // Its buffers are zeroed on exec. Every method below runs its kernels on
  // the exec it is given, with no fence: a hierarchy kept between solves
  // holds no instance.
  Hierarchy(const ExecSpace& exec, const View2D<T>& x, const View2D<T>& rhs, const MultigridOptions& options,
            bool symmetric = false)
      : Hierarchy(exec, level_axes(x.extent(0), x.extent(1), options.coarsest_size), x, rhs, options, symmetric) {}

  // The levels of `axes` (finest first; level_axes's or a tail of them: over
  // MPI ranks, the coarse levels gathered onto every rank), level 0 on x and
  // B of its size with rings.
  Hierarchy(const ExecSpace& exec, const std::vector<std::pair<Axis, Axis>>& axes, const View2D<T>& x,
            const View2D<T>& rhs, const MultigridOptions& options, bool symmetric = false)
      : options_(options), symmetric_(symmetric) {
    for (std::size_t l = 0; l < axes.size(); ++l) {
      Level<T> level;
      level.row_axis = axes[l].first;
      level.col_axis = axes[l].second;
      level.op = level_operator<T>(level.row_axis, level.col_axis);
      const int rows = level.row_axis.points + 2, cols = level.col_axis.points + 2;
      make_level_grids(exec, level, l, rows, cols, x, rhs, options, "poisson_mg_");
      if (l + 1 < axes.size()) {
        level.row_transfer = transfer<T>(level.row_axis, axes[l + 1].first.points != level.row_axis.points);
        level.col_transfer = transfer<T>(level.col_axis, axes[l + 1].second.points != level.col_axis.points);
      }
      levels_.push_back(level);
    }
    coarsest_sweeps_ = coarsest_sweeps(levels_.back().row_axis, levels_.back().col_axis);
    const int most_sweeps = std::max(options.pre_sweeps, options.post_sweeps);
    chebyshev_ = chebyshev_coefficients(most_sweeps);
    set_tail_points(build_tail_points());
  }

  // The coarse levels a cycle runs in one launch (multigrid_tail.hpp): from
  // the first level of at most `points` interior points down (0: none;
  // build_tail_points() unless a test chooses). Red-black
  // Gauss-Seidel smoothing only. Records the tail's steps for every cycle
  // shape (a copy to the device: a fence).
  void set_tail_points(std::int64_t points) {
    tail_start_ = options_.smoother == MultigridSmoother::rbgs ? find_tail_start(levels_, points) : levels_.size();
    tail_steps_.clear();
    if (tail_start_ < levels_.size())
      for (const MultigridCycle shape : {MultigridCycle::v, MultigridCycle::w, MultigridCycle::f})
        tail_steps_.emplace_back(shape, record_tail(shape));
  }
  std::size_t tail_start() const { return tail_start_; }
  bool cycle_in_one_launch(const ExecSpace& exec, std::size_t l, MultigridCycle shape) {
    if (l != tail_start_) return false;
    TailCycle<T> kernel{};
    for (std::size_t k = 0; tail_start_ + k < levels_.size(); ++k) {
      const Level<T>& level = levels_[tail_start_ + k];
      kernel.levels[k] = TailLevel<T>{level.u, level.f, level.op, level.row_transfer, level.col_transfer};
    }
    kernel.steps = tail_steps(shape);
    kernel.coarsest_sweeps = coarsest_sweeps_;
    using Policy = typename TailCycle<T>::Policy;
    // Light weight: the kernel (its levels, ~1.5 KB) goes as a launch
    // argument, not through constant memory, whose launches wait on the host
    // for the previous one (W and F cycles launch the tail several times).
    // The largest team is asked of that launch's own kernel (another policy
    // type, another instantiation, its own register count).
    const auto light = [&](const auto& team_size) {
      return Kokkos::Experimental::require(Policy(exec, 1, team_size),
                                           Kokkos::Experimental::WorkItemProperty::HintLightWeight);
    };
    const int most = light(Kokkos::AUTO).team_size_max(kernel, Kokkos::ParallelForTag());
    const auto policy = light(std::min(tail_team_size, most));
    Kokkos::parallel_for("poisson_mg_tail", policy, kernel);
    return true;
  }

  // Level 0 is the caller's x and B: a kept hierarchy is pointed at each
  // solve's, and at nothing between solves (it must not keep them alive).
  void bind_finest(const View2D<T>& x, const View2D<T>& rhs) {
    levels_.front().u = x;
    levels_.front().f = rhs;
  }

  void cycle(const ExecSpace& exec, std::size_t l, MultigridCycle shape) { run_cycle(*this, exec, l, shape, options_); }
  void full_multigrid_cycle(const ExecSpace& exec, MultigridCycle shape) {
    run_full_multigrid_cycle(*this, exec, shape, options_);
  }

  // The steps run_cycle takes (multigrid_cycles.hpp).
  std::size_t depth() const { return levels_.size(); }
  // Post-smoothing of a symmetric hierarchy sweeps the colours in reverse.
  void smooth(const ExecSpace& exec, std::size_t l, int sweeps, bool post) {
    smooth_level(exec, levels_[l], sweeps, post && symmetric_);
  }

 private:
  void smooth_level(const ExecSpace& exec, Level<T>& level, int sweeps, bool black_first) {
    const GridRectangle points = interior_of(level.op);
    if (options_.smoother != MultigridSmoother::rbgs) {
      smooth_from_residual<T>(exec, points, level, options_, chebyshev_, sweeps);
      return;
    }
    if constexpr (host_execution) {
      sweep_row_blocks(exec, level, sweeps, black_first);
    } else {
      for (int s = 0; s < sweeps; ++s) {
        if (black_first)
          for_rectangle(exec, "poisson_mg_black", points, RedBlackSweep<T, Black>{level.u, level.f, level.op});
        for_rectangle(exec, "poisson_mg_red", points, RedBlackSweep<T, Red>{level.u, level.f, level.op});
        if (!black_first)
          for_rectangle(exec, "poisson_mg_black", points, RedBlackSweep<T, Black>{level.u, level.f, level.op});
      }
    }
  }

  // Host sweeps (RedBlackRowBlocks): a block of rows per thread, at least
  // least_block_rows of them so that a block's own rows carry most updates.
  [[maybe_unused]] static constexpr int least_block_rows = 8;
  struct RowBlocks {
    int block_rows, blocks;
  };
  // `rows` split into one block per thread, each at least least_block_rows.
  static RowBlocks row_blocks(const ExecSpace& exec, int rows) {
    const int threads = std::max(1, static_cast<int>(exec.concurrency()));
    const int block_rows = std::max(least_block_rows, (rows + threads - 1) / threads);
    return RowBlocks{block_rows, (rows + block_rows - 1) / block_rows};
  }
  void sweep_row_blocks(const ExecSpace& exec, Level<T>& level, int sweeps, bool black_first) {
    const auto [block_rows, blocks] = row_blocks(exec, level.op.rows);
    const RedBlackRowBlocks<T> kernel{level.u, level.f, level.op, black_first ? Black::parity : Red::parity,
                                      block_rows};
    for (int s = 0; s < sweeps; ++s) {
      Kokkos::parallel_for("poisson_mg_red_black_rows", Kokkos::RangePolicy<ExecSpace, FirstPass>(exec, 0, blocks),
                           kernel);
      Kokkos::parallel_for("poisson_mg_red_black_edges", Kokkos::RangePolicy<ExecSpace, EdgeRows>(exec, 0, blocks),
                           kernel);
    }
  }

 public:
  void solve_coarsest(const ExecSpace& exec) {
    Level<T>& level = levels_.back();
    const GridRectangle points = interior_of(level.op);
    if (std::int64_t(points.rows) * points.cols <= serial_coarsest_points) {
      Kokkos::parallel_for("poisson_mg_coarsest_serial", Kokkos::RangePolicy<ExecSpace>(exec, 0, 1),
                           SerialGaussSeidel<T>{level.u, level.f, level.op, coarsest_sweeps_});
      return;
    }
    for (int s = 0; s < coarsest_sweeps_; ++s) {
      for_rectangle(exec, "poisson_mg_coarsest_red", points, RedBlackSweep<T, Red>{level.u, level.f, level.op});
      for_rectangle(exec, "poisson_mg_coarsest_black", points, RedBlackSweep<T, Black>{level.u, level.f, level.op});
    }
  }

  void restrict_residual(const ExecSpace& exec, std::size_t l) {
    const Level<T>& fine = levels_[l];
    const Level<T>& coarse = levels_[l + 1];
    if constexpr (host_execution) {
      restrict_residual_rows(exec, fine, coarse, nullptr);
      return;
    }
    for_rectangle(
        exec, "poisson_mg_restrict_residual", interior_of(coarse.op),
        RestrictResidual<T>{fine.u, fine.f, fine.op, fine.row_transfer, fine.col_transfer, coarse.u, coarse.f});
  }

  // restrict_residual, and the 2-norm of level l's residual f - L u, formed
  // from the residuals the restriction forms anyway (each once); waits for
  // exec. The same coarse values as restrict_residual's.
  double restrict_residual_and_norm(const ExecSpace& exec, std::size_t l) {
    using Sum = typename Accumulator<T>::type;
    const Level<T>& fine = levels_[l];
    const Level<T>& coarse = levels_[l + 1];
    Sum squares = 0;
    if constexpr (host_execution) {
      restrict_residual_rows(exec, fine, coarse, &squares);
    } else {
      reduce_rectangle<Sum, WithNorm>(
          exec, "poisson_mg_restrict_residual_norm", interior_of(coarse.op),
          RestrictResidual<T>{fine.u, fine.f, fine.op, fine.row_transfer, fine.col_transfer, coarse.u, coarse.f},
          squares);
    }
    return std::sqrt(static_cast<double>(squares));
  }

  // Hosts: RestrictResidualRows, a block of at least least_block_rows coarse
  // rows per thread, its residual rows in the hierarchy's buffer; with
  // squares, their sum of squares summed there (exec then fenced).
  void restrict_residual_rows(const ExecSpace& exec, const Level<T>& fine, const Level<T>& coarse,
                              typename Accumulator<T>::type* squares) {
    using Kernel = RestrictResidualRows<T>;
    const int coarse_rows = coarse.op.rows;
    const auto [block_rows, blocks] = row_blocks(exec, coarse_rows);
    const std::size_t columns = static_cast<std::size_t>(fine.op.cols) + 2;
    if (residual_rows_.extent(0) < std::size_t(blocks) || residual_rows_.extent(2) < columns)
      residual_rows_ = decltype(residual_rows_)(Kokkos::view_alloc(Kokkos::WithoutInitializing, "poisson_mg_rows"),
                                                std::max<std::size_t>(blocks, residual_rows_.extent(0)),
                                                Kernel::buffer_rows, std::max(columns, residual_rows_.extent(2)));
    const Kernel kernel{fine.u,   fine.f,         fine.op,     fine.row_transfer, fine.col_transfer, coarse.u,
                        coarse.f, residual_rows_, coarse_rows, coarse.op.cols,    block_rows};
    if (squares)
      Kokkos::parallel_reduce("poisson_mg_restrict_residual_rows_norm",
                              Kokkos::RangePolicy<ExecSpace, WithNorm>(exec, 0, blocks), kernel, *squares);
    else
      Kokkos::parallel_for("poisson_mg_restrict_residual_rows", Kokkos::RangePolicy<ExecSpace>(exec, 0, blocks),
                           kernel);
  }

  void prolong_and_correct(const ExecSpace& exec, std::size_t l) {
    const Level<T>& fine = levels_[l];
    if constexpr (host_execution) {
      using Kernel = ProlongAndCorrectRows<T>;
      const ColumnSources& columns = column_sources(l);
      const auto [block_rows, blocks] = row_blocks(exec, fine.op.rows);
      const std::size_t width = static_cast<std::size_t>(fine.op.cols) + 2;
      if (interpolated_rows_.extent(0) < std::size_t(blocks) || interpolated_rows_.extent(2) < width)
        interpolated_rows_ = decltype(interpolated_rows_)(
            Kokkos::view_alloc(Kokkos::WithoutInitializing, "poisson_mg_interpolated_rows"),
            std::max<std::size_t>(blocks, interpolated_rows_.extent(0)), Kernel::slots,
            std::max(width, interpolated_rows_.extent(2)));
      Kokkos::parallel_for("poisson_mg_prolong_correct_rows", Kokkos::RangePolicy<ExecSpace>(exec, 0, blocks),
                           Kernel{fine.u, levels_[l + 1].u, fine.row_transfer, columns.sources, columns.weights,
                                  columns.counts, interpolated_rows_, fine.op.rows, fine.op.cols, block_rows});
      return;
    }
    for_rectangle(exec, "poisson_mg_prolong_correct", interior_of(fine.op),
                  ProlongAndCorrect<T>{fine.u, levels_[l + 1].u, fine.row_transfer, fine.col_transfer});
  }

 private:
  MultigridOptions options_;
  bool symmetric_;
  std::vector<Level<T>> levels_;
  int coarsest_sweeps_ = 1;
  ChebyshevCoefficients chebyshev_;
  // Hosts: each level's column sources for ProlongAndCorrectRows, from its
  // col_transfer, made on first use.
  struct ColumnSources {
    Kokkos::View<int* [2], Kokkos::HostSpace> sources;
    Kokkos::View<T* [2], Kokkos::HostSpace> weights;
    Kokkos::View<int*, Kokkos::HostSpace> counts;
  };
  std::vector<ColumnSources> column_sources_;
  const ColumnSources& column_sources(std::size_t l) {
    if (column_sources_.size() < levels_.size()) column_sources_.resize(levels_.size());
    ColumnSources& columns = column_sources_[l];
    const Level<T>& fine = levels_[l];
    if (columns.counts.extent(0) == 0) {
      const int cols = fine.op.cols;
      columns.sources = decltype(columns.sources)("poisson_mg_col_sources", cols + 1);
      columns.weights = decltype(columns.weights)("poisson_mg_col_weights", cols + 1);
      columns.counts = decltype(columns.counts)("poisson_mg_col_counts", cols + 1);
      for (int j = 1; j <= cols; ++j) {
        int index[2];
        T weight[2];
        columns.counts(j) = fine.col_transfer.sources(j, index, weight);
        for (int b = 0; b < columns.counts(j); ++b) {
          columns.sources(j, b) = index[b];
          columns.weights(j, b) = weight[b];
        }
      }
    }
    return columns;
  }
  // The tail's first level (depth(): none) and its recorded steps per cycle shape.
  std::size_t tail_start_ = 0;
  std::vector<std::pair<MultigridCycle, Kokkos::View<const TailStep*, MemSpace>>> tail_steps_;
  Kokkos::View<const TailStep*, MemSpace> tail_steps(MultigridCycle shape) const {
    for (const auto& [recorded, steps] : tail_steps_)
      if (recorded == shape) return steps;
    throw std::logic_error("multigrid: no tail steps recorded for the " + name_of(shape) + " cycle");
  }
  // The tail's steps for a cycle of `shape` (StepRecorder), on the device.
  Kokkos::View<const TailStep*, MemSpace> record_tail(MultigridCycle shape) const {
    const Level<T>& coarsest = levels_.back();
    StepRecorder recorder{levels_.size() - tail_start_,
                          symmetric_,
                          std::int64_t(coarsest.op.rows) * coarsest.op.cols <= serial_coarsest_points,
                          coarsest_sweeps_,
                          {}};
    run_cycle(recorder, ExecSpace(), 0, shape, options_);
    Kokkos::View<TailStep*, MemSpace> steps(Kokkos::view_alloc(Kokkos::WithoutInitializing, "poisson_mg_tail_steps"),
                                            recorder.steps.size());
    Kokkos::deep_copy(steps, Kokkos::View<const TailStep*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
                                 recorder.steps.data(), recorder.steps.size()));
    return steps;
  }
  // Hosts: the fine residual rows of restrict_residual_rows, sized for the
  // finest level on first use.
  Kokkos::View<typename Accumulator<T>::type***, Kokkos::HostSpace> residual_rows_;
  // Hosts: the coarse rows interpolated along the columns by
  // prolong_and_correct, sized for the finest level on first use.
  Kokkos::View<T***, Kokkos::HostSpace> interpolated_rows_;
};

}  // namespace portasolve::poisson::detail::multigrid
