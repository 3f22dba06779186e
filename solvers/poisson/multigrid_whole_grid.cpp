// Multigrid on the whole-grid boundaries (neumann, periodic): the levels of
// multigrid_whole_grid.hpp, the cycles of multigrid_cycles.hpp (V, W, F, the
// full multigrid start) that the dirichlet multigrid runs, the same smoothers. The operator is singular (constants
// solve L u = 0): a compatible B stays compatible under restriction, the
// coarsest level's right-hand side is projected on the compatible ones
// before it is relaxed, and after every cycle the solution is shifted to
// the zero weighted mean the spectral method returns.
#include "solvers/poisson/detail/multigrid_whole_grid.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "core/grid_range.hpp"
#include "core/spaces.hpp"
#include "solvers/poisson/detail/methods.hpp"
#include "solvers/poisson/detail/multigrid_cycles.hpp"
#include "solvers/poisson/detail/multigrid_kernels.hpp"
#include "solvers/poisson/detail/whole_grid.hpp"

namespace portasolve::poisson::detail {

namespace multigrid {

namespace {

struct Link {
  int neighbour;
  double distance;  // in the level's spacings
  bool present;
};

// Point i's links to the points below and above it on its line.
void links_of(const WholeAxis& axis, int i, Link& below, Link& above) {
  const int n = axis.points;
  below = Link{i, 1, false};
  above = Link{i, 1, false};
  if (n < 2) return;
  if (i > 0)
    below = Link{i - 1, 1, true};
  else if (axis.periodic)
    below = Link{n - 1, axis.gap, true};
  if (i < n - 1)
    above = Link{i + 1, 1, true};
  else if (axis.periodic)
    above = Link{0, axis.gap, true};
}

// A host table on the device: `values` as a View of Width values a row
// (Width 0: a flat View), copied on exec, which is fenced (the vector goes
// after the call; no other instance waits).
template <class Value, int Width = 0>
auto device_copy(const ExecSpace& exec, const std::vector<Value>& values, const char* label) {
  using Host = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
  using Shape = std::conditional_t<Width == 0, Value*, Value * [Width == 0 ? 1 : Width]>;
  const std::size_t rows = Width == 0 ? values.size() : values.size() / (Width == 0 ? 1 : Width);
  Kokkos::View<Shape, Kokkos::LayoutRight, MemSpace> view(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), rows);
  Kokkos::deep_copy(exec, view,
                    Kokkos::View<Shape, Kokkos::LayoutRight, HostSpace, Host>(const_cast<Value*>(values.data()), rows));
  exec.fence();
  return view;
}

}  // namespace

std::vector<double> axis_volumes(const WholeAxis& axis) {
  std::vector<double> volumes(axis.points);
  for (int i = 0; i < axis.points; ++i) {
    Link below, above;
    links_of(axis, i, below, above);
    double volume = 0;
    if (below.present) volume += below.distance / 2;  // a neumann line's point 0 is on its edge
    if (above.present)
      volume += above.distance / 2;
    else
      volume += axis.gap;  // to the neumann edge beyond the last point; a periodic point alone: its whole line
    volumes[i] = volume;
  }
  return volumes;
}

template <class T>
AxisStencil<T> axis_stencil(const ExecSpace& exec, const WholeAxis& axis) {
  const std::vector<double> volumes = axis_volumes(axis);
  std::vector<int> lower(axis.points), upper(axis.points);
  std::vector<T> lower_weight(axis.points), upper_weight(axis.points);
  for (int i = 0; i < axis.points; ++i) {
    Link below, above;
    links_of(axis, i, below, above);
    lower[i] = below.neighbour;
    upper[i] = above.neighbour;
    lower_weight[i] = below.present ? T(axis.coupling / (below.distance * volumes[i])) : T(0);
    upper_weight[i] = above.present ? T(axis.coupling / (above.distance * volumes[i])) : T(0);
  }
  return AxisStencil<T>{device_copy(exec, lower, "poisson_mg_whole_lower"),
                        device_copy(exec, upper, "poisson_mg_whole_upper"),
                        device_copy(exec, lower_weight, "poisson_mg_whole_lower_weight"),
                        device_copy(exec, upper_weight, "poisson_mg_whole_upper_weight")};
}

template <class T>
WholeGridTransfer<T> whole_grid_transfer(const ExecSpace& exec, const WholeAxis& fine, bool coarsen) {
  WholeGridTransfer<T> transfer;
  transfer.coarsened = coarsen;
  if (!coarsen) return transfer;
  const WholeAxis coarse = coarser(fine, true);
  transfer.fine_points = fine.points;
  transfer.coarse_points = coarse.points;
  const std::vector<double> fine_volumes = axis_volumes(fine), coarse_volumes = axis_volumes(coarse);
  const int n = fine.points;
  // Interpolation: a fine point on a coarse one takes its value; one between
  // two coarse points (across the wrap, at the gap's distance) their linear
  // interpolation; one past a neumann line's last coarse point that value.
  std::vector<int> source_index(2 * n, 0), source_count(n);
  std::vector<double> source_weight(2 * n, 0);
  for (int i = 0; i < n; ++i) {
    const int left = std::min(i / 2, coarse.points - 1);  // coarse point c sits at fine 2c
    const double below = i - 2 * left;                    // fine spacings to it
    source_index[2 * i] = left;
    source_weight[2 * i] = 1;
    source_count[i] = 1;
    if (below == 0) continue;
    double above;  // fine spacings to the next coarse point
    int right;
    if (left + 1 < coarse.points) {
      right = left + 1;
      above = 2 * right - i;
    } else if (fine.periodic) {
      right = 0;
      above = (n - 1 - i) + fine.gap;
    } else {
      continue;
    }
    source_index[2 * i + 1] = right;
    source_weight[2 * i] = above / (below + above);
    source_weight[2 * i + 1] = below / (below + above);
    source_count[i] = 2;
  }
  // Restriction R = V_c^-1 P^T V_f, the volumes in the finest level's units
  // (a coarse spacing is two fine ones).
  std::vector<std::map<int, double>> gathered(coarse.points);
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < source_count[i]; ++k) {
      const int c = source_index[2 * i + k];
      gathered[c][i] += source_weight[2 * i + k] * fine_volumes[i] / (2 * coarse_volumes[c]);
    }
  constexpr int most = WholeGridTransfer<T>::most_gathers;
  std::vector<int> gather_index(most * coarse.points, 0), gather_count(coarse.points);
  std::vector<T> gather_weight(most * coarse.points, T(0));
  for (int c = 0; c < coarse.points; ++c) {
    if (int(gathered[c].size()) > most)
      throw std::logic_error("multigrid: a coarse point gathers " + std::to_string(gathered[c].size()) +
                             " fine points (at most " + std::to_string(most) + ")");
    int k = 0;
    for (const auto& [i, weight] : gathered[c]) {
      gather_index[most * c + k] = i;
      gather_weight[most * c + k] = T(weight);
      ++k;
    }
    gather_count[c] = k;
  }
  std::vector<T> source_weight_t(source_weight.begin(), source_weight.end());
  transfer.source_index = device_copy<int, 2>(exec, source_index, "poisson_mg_whole_source_index");
  transfer.source_weight = device_copy<T, 2>(exec, source_weight_t, "poisson_mg_whole_source_weight");
  transfer.source_count = device_copy(exec, source_count, "poisson_mg_whole_source_count");
  transfer.gather_index = device_copy<int, most>(exec, gather_index, "poisson_mg_whole_gather_index");
  transfer.gather_weight = device_copy<T, most>(exec, gather_weight, "poisson_mg_whole_gather_weight");
  transfer.gather_count = device_copy(exec, gather_count, "poisson_mg_whole_gather_count");
  return transfer;
}

std::vector<std::pair<WholeAxis, WholeAxis>> whole_grid_level_axes(std::int64_t rows, std::int64_t cols, bool periodic,
                                                                   int coarsest_size) {
  // At least one coarser level, so the finest level's B is never the
  // coarsest level's (which the coarsest solve projects in place).
  return coarsened_axes(finest_axis(rows, periodic), finest_axis(cols, periodic), coarsest_size, 2);
}

template AxisStencil<float> axis_stencil<float>(const ExecSpace&, const WholeAxis&);
template AxisStencil<double> axis_stencil<double>(const ExecSpace&, const WholeAxis&);
template WholeGridTransfer<float> whole_grid_transfer<float>(const ExecSpace&, const WholeAxis&, bool);
template WholeGridTransfer<double> whole_grid_transfer<double>(const ExecSpace&, const WholeAxis&, bool);

namespace {

// Gauss-Seidel over one colour: (i + j) parity, plus a colour of its own
// for the last row (column) of an odd periodic direction, whose wrap joins
// two points of equal parity. Points of one colour never neighbour each
// other, so each colour's points update in parallel.
template <class T>
struct ColouredGaussSeidel {
  View2D<T> u;
  View2D<const T> f;
  WholeGridOperator<T> op;
  int colour;
  int row_seam, col_seam;  // the seam's row (column), or -1
  KOKKOS_INLINE_FUNCTION void operator()(const int i, const int j) const {
    const int c = ((i + j) & 1) | (i == row_seam ? 2 : 0) | (j == col_seam ? 4 : 0);
    if (c != colour) return;
    u(i, j) = (op.template around<T>(u, i, j) - f(i, j)) / op.diagonal(i, j);
  }
};

// The coarsest level in one thread: its right-hand side made compatible (its
// volume-weighted mean removed: rounding of the restrictions), then
// lexicographic Gauss-Seidel sweeps. A point without neighbours (a level of
// one point) keeps its value: any value solves its equation.
template <class T>
struct SerialWholeGridSolve {
  View2D<T> u, f;
  WholeGridOperator<T> op;
  Kokkos::View<const double*, Kokkos::LayoutRight, MemSpace> row_volume, col_volume;
  int sweeps;
  KOKKOS_INLINE_FUNCTION void operator()(const int) const {
    double sum = 0, volume = 0;
    for (int i = 0; i < op.rows; ++i)
      for (int j = 0; j < op.cols; ++j) {
        const double v = row_volume(i) * col_volume(j);
        sum += v * double(f(i, j));
        volume += v;
      }
    const T mean = T(sum / volume);
    for (int i = 0; i < op.rows; ++i)
      for (int j = 0; j < op.cols; ++j) f(i, j) -= mean;
    for (int s = 0; s < sweeps; ++s)
      for (int i = 0; i < op.rows; ++i)
        for (int j = 0; j < op.cols; ++j) {
          const T d = op.diagonal(i, j);
          if (d > T(0)) u(i, j) = (op.template around<T>(u, i, j) - f(i, j)) / d;
        }
  }
};

template <class T>
struct WeightedValueSum {
  View2D<const T> x;
  bool periodic;
  KOKKOS_INLINE_FUNCTION void operator()(const int i, const int j, double& sum) const {
    sum += mean_weight(i, j, int(x.extent(0)), int(x.extent(1)), periodic) * double(x(i, j));
  }
};

template <class T>
struct SubtractValue {
  View2D<T> x;
  T value;
  KOKKOS_INLINE_FUNCTION void operator()(const int i, const int j) const { x(i, j) -= value; }
};

// The coarsest level is relaxed until its error has fallen by this factor,
// judged from the Gauss-Seidel rate (as multigrid.cpp does for dirichlet).
constexpr double coarsest_reduction = 1e-14;
constexpr int least_coarsest_sweeps = 8;
// Coarsest levels up to this many points are relaxed by one thread in one
// launch; larger ones (a large poisson.multigrid.coarsest) by coloured
// sweeps over all threads.
constexpr std::int64_t serial_coarsest_points = 256;

// Sweeps for coarsest_reduction: the squared Jacobi rate of the slowest
// non-constant mode, cos(pi / (N - 1)) along a direction of N points (the
// neumann line's; a periodic line's cos(2 pi / N) is smaller), weighted by
// the directions' couplings.
int whole_grid_coarsest_sweeps(const WholeAxis& rows, const WholeAxis& cols) {
  constexpr double pi = 3.14159265358979323846;
  double rate_sum = 0, coupling_sum = 0;
  for (const WholeAxis& axis : {rows, cols})
    if (axis.points >= 2) {
      rate_sum += axis.coupling * std::cos(pi / std::max(axis.points - 1, 2));
      coupling_sum += axis.coupling;
    }
  const double jacobi_rate = coupling_sum > 0 ? rate_sum / coupling_sum : 0;
  const double rate = jacobi_rate * jacobi_rate;
  if (!(rate > 0)) return least_coarsest_sweeps;
  return std::max(least_coarsest_sweeps, static_cast<int>(std::ceil(std::log(coarsest_reduction) / std::log(rate))));
}

// Sum of V f over a level (its points' control volumes).
template <class T>
struct VolumeWeightedSum {
  View2D<const T> f;
  Kokkos::View<const double*, Kokkos::LayoutRight, MemSpace> row_volume, col_volume;
  KOKKOS_INLINE_FUNCTION void operator()(const int i, const int j, double& sum) const {
    sum += row_volume(i) * col_volume(j) * double(f(i, j));
  }
};

template <class T>
struct WholeLevel {
  View2D<T> u, f, residual, step;
  WholeAxis row_axis, col_axis;
  WholeGridOperator<T> op;
  WholeGridTransfer<T> row_transfer, col_transfer;  // to the next coarser level
  std::vector<int> colours;                         // the Gauss-Seidel colours present
  int row_seam = -1, col_seam = -1;
};

template <class T>
class WholeGridHierarchy {
 public:
  WholeGridHierarchy(const ExecSpace& exec, const View2D<T>& x, const View2D<T>& rhs, const MultigridOptions& options,
                     bool periodic)
      : options_(options) {
    const auto axes = whole_grid_level_axes(x.extent(0), x.extent(1), periodic, options.coarsest_size);
    for (std::size_t l = 0; l < axes.size(); ++l) {
      WholeLevel<T> level;
      level.row_axis = axes[l].first;
      level.col_axis = axes[l].second;
      const int rows = level.row_axis.points, cols = level.col_axis.points;
      level.op = WholeGridOperator<T>{axis_stencil<T>(exec, level.row_axis),
                                      axis_stencil<T>(exec, level.col_axis),
                                      rows,
                                      cols,
                                      T(level.row_axis.coupling),
                                      T(level.col_axis.coupling)};
      make_level_grids(exec, level, l, rows, cols, x, rhs, options, "poisson_mg_whole_");
      if (l + 1 < axes.size()) {
        level.row_transfer =
            whole_grid_transfer<T>(exec, level.row_axis, axes[l + 1].first.points != level.row_axis.points);
        level.col_transfer =
            whole_grid_transfer<T>(exec, level.col_axis, axes[l + 1].second.points != level.col_axis.points);
      }
      level.row_seam = has_seam(level.row_axis) ? rows - 1 : -1;
      level.col_seam = has_seam(level.col_axis) ? cols - 1 : -1;
      for (int colour = 0; colour < 8; ++colour)
        if (((colour & 2) == 0 || level.row_seam >= 0) && ((colour & 4) == 0 || level.col_seam >= 0))
          level.colours.push_back(colour);
      levels_.push_back(level);
    }
    const WholeLevel<T>& coarsest = levels_.back();
    coarsest_row_volume_ = device_copy(exec, axis_volumes(coarsest.row_axis), "poisson_mg_whole_row_volume");
    coarsest_col_volume_ = device_copy(exec, axis_volumes(coarsest.col_axis), "poisson_mg_whole_col_volume");
    coarsest_sweeps_ = whole_grid_coarsest_sweeps(coarsest.row_axis, coarsest.col_axis);
    double row_volume = 0, col_volume = 0;
    for (const double v : axis_volumes(coarsest.row_axis)) row_volume += v;
    for (const double v : axis_volumes(coarsest.col_axis)) col_volume += v;
    coarsest_volume_ = row_volume * col_volume;
    chebyshev_ = chebyshev_coefficients(std::max(options.pre_sweeps, options.post_sweeps));
  }

  void cycle(const ExecSpace& exec, MultigridCycle shape) { run_cycle(*this, exec, 0, shape, options_); }
  void full_multigrid_cycle(const ExecSpace& exec, MultigridCycle shape) {
    run_full_multigrid_cycle(*this, exec, shape, options_);
  }

  // The steps run_cycle takes (multigrid_cycles.hpp).
  bool cycle_in_one_launch(const ExecSpace&, std::size_t, MultigridCycle) { return false; }
  std::size_t depth() const { return levels_.size(); }

  void smooth(const ExecSpace& exec, std::size_t l, int sweeps, bool /*post: the same sweeps*/) {
    const WholeLevel<T>& level = levels_[l];
    const GridRectangle points = whole_grid(level.op.rows, level.op.cols);
    if (options_.smoother != MultigridSmoother::rbgs) {
      smooth_from_residual<T>(exec, points, level, options_, chebyshev_, sweeps);
      return;
    }
    for (int s = 0; s < sweeps; ++s)
      for (const int colour : level.colours)
        for_rectangle(exec, "poisson_mg_whole_gauss_seidel", points,
                      ColouredGaussSeidel<T>{level.u, level.f, level.op, colour, level.row_seam, level.col_seam});
  }

  void solve_coarsest(const ExecSpace& exec) {
    WholeLevel<T>& level = levels_.back();
    if (std::int64_t(level.op.rows) * level.op.cols <= serial_coarsest_points) {
      Kokkos::parallel_for("poisson_mg_whole_coarsest", Kokkos::RangePolicy<ExecSpace>(exec, 0, 1),
                           SerialWholeGridSolve<T>{level.u, level.f, level.op, coarsest_row_volume_,
                                                   coarsest_col_volume_, coarsest_sweeps_});
      return;
    }
    // The right-hand side made compatible, then coloured sweeps.
    const GridRectangle points = whole_grid(level.op.rows, level.op.cols);
    double sum = 0;
    reduce_rectangle<double>(exec, "poisson_mg_whole_coarsest_mean", points,
                             VolumeWeightedSum<T>{level.f, coarsest_row_volume_, coarsest_col_volume_}, sum);
    for_rectangle(exec, "poisson_mg_whole_coarsest_project", points,
                  SubtractValue<T>{level.f, T(sum / coarsest_volume_)});
    for (int s = 0; s < coarsest_sweeps_; ++s)
      for (const int colour : level.colours)
        for_rectangle(exec, "poisson_mg_whole_coarsest_sweep", points,
                      ColouredGaussSeidel<T>{level.u, level.f, level.op, colour, level.row_seam, level.col_seam});
  }

  void restrict_residual(const ExecSpace& exec, std::size_t l) {
    const WholeLevel<T>& fine = levels_[l];
    const WholeLevel<T>& coarse = levels_[l + 1];
    for_rectangle(
        exec, "poisson_mg_whole_restrict_residual", whole_grid(coarse.op.rows, coarse.op.cols),
        RestrictResidual<T, Op, Tr>{fine.u, fine.f, fine.op, fine.row_transfer, fine.col_transfer, coarse.u, coarse.f});
  }

  void prolong_and_correct(const ExecSpace& exec, std::size_t l) {
    const WholeLevel<T>& fine = levels_[l];
    for_rectangle(exec, "poisson_mg_whole_prolong_correct", whole_grid(fine.op.rows, fine.op.cols),
                  ProlongAndCorrect<T, Tr>{fine.u, levels_[l + 1].u, fine.row_transfer, fine.col_transfer});
  }

 private:
  using Op = WholeGridOperator<T>;
  using Tr = WholeGridTransfer<T>;

  MultigridOptions options_;
  std::vector<WholeLevel<T>> levels_;
  Kokkos::View<double*, Kokkos::LayoutRight, MemSpace> coarsest_row_volume_, coarsest_col_volume_;
  int coarsest_sweeps_ = 1;
  double coarsest_volume_ = 1;  // the coarsest level's total control volume
  ChebyshevCoefficients chebyshev_;
};

// x shifted to zero weighted mean (mean_weight): the solution the spectral
// method returns; L x is unchanged.
template <class T>
void remove_weighted_mean(const ExecSpace& exec, const View2D<T>& x, bool periodic) {
  const GridRectangle grid = whole_grid(x.extent(0), x.extent(1));
  double sum = 0;
  reduce_rectangle<double>(exec, "poisson_mg_whole_mean", grid, WeightedValueSum<T>{x, periodic}, sum);
  const double rows = double(x.extent(0)), cols = double(x.extent(1));
  const double weights = periodic ? rows * cols : (rows - 1) * (cols - 1);
  for_rectangle(exec, "poisson_mg_whole_shift", grid, SubtractValue<T>{x, T(sum / weights)});
}

}  // namespace

}  // namespace multigrid

template <class T>
void run_whole_grid_multigrid(const ExecSpace& exec, const View2D<T>& x, const View2D<T>& rhs,
                              const SolverOptions& options, CheckSchedule& schedule) {
  require_solvable(exec, rhs, options.boundary);
  const bool periodic = options.boundary == Boundary::periodic;
  const MultigridOptions& mg = options.multigrid;
  multigrid::WholeGridHierarchy<T> hierarchy(exec, x, rhs, mg, periodic);
  for (std::int64_t done = 0;;) {
    if (mg.fmg && done == 0)
      hierarchy.full_multigrid_cycle(exec, mg.cycle);
    else
      hierarchy.cycle(exec, mg.cycle);
    ++done;
    multigrid::remove_weighted_mean(exec, x, periodic);
    if (schedule.record(done, whole_grid_residual_norm(exec, x, rhs, options.boundary))) {
      exec.fence();  // the hierarchy's buffers go on return
      return;
    }
  }
}

template void run_whole_grid_multigrid<float>(const ExecSpace&, const View2D<float>&, const View2D<float>&,
                                              const SolverOptions&, CheckSchedule&);
template void run_whole_grid_multigrid<double>(const ExecSpace&, const View2D<double>&, const View2D<double>&,
                                               const SolverOptions&, CheckSchedule&);

}  // namespace portasolve::poisson::detail
