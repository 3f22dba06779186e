// Multigrid over MPI ranks (detail/multigrid_ranks.hpp). Levels 0 .. g-1 are
// split over the ranks, each rank's block with a ring of 1 indexed from 1
// (LevelOperator's shifts and RankTransfer turn local indices into the
// level's); level g and the coarser ones are gathered onto every rank and
// run there by the single-rank Hierarchy, redundantly, so no result has to
// be sent back: each rank takes its window of the coarse correction.
//
// Halos on the split levels: u's before every red-black half sweep (and
// before each Jacobi or Chebyshev residual), u's before the residual that
// is restricted, that residual's with the ring's corners (in Sum, so the
// restriction adds exactly the single-rank kernel's values; full weighting
// reads diagonal neighbours), and the coarse correction's with corners
// before it is interpolated.
#include "solvers/poisson/detail/multigrid_ranks.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/grid_range.hpp"
#include "distributed/halo_exchange.hpp"
#include "distributed/mpi_session.hpp"
#include "distributed/rim_strips.hpp"
#include "solvers/poisson/detail/multigrid_cycles.hpp"
#include "solvers/poisson/detail/multigrid_hierarchy.hpp"
#include "solvers/poisson/detail/multigrid_kernels.hpp"

namespace portasolve::poisson::detail {

namespace {

using namespace multigrid;
using distributed::GridDecomposition;
using distributed::HaloExchange;

// A coarse level stays split while every rank owns at least this many of its
// points each way the grid is split: thinner blocks spend their time on
// exchanges of a few points each.
constexpr std::int64_t least_rank_side = 4;

// A level's transfer on rank blocks: local index + shift = level index, on
// the fine and the coarse level.
template <class T>
struct RankTransfer {
  static constexpr int most_gathers = Transfer<T>::most_gathers;
  Transfer<T> level;
  int fine_shift, coarse_shift;

  KOKKOS_INLINE_FUNCTION int sources(const int i, int (&index)[2], T (&weight)[2]) const {
    const int n = level.sources(i + fine_shift, index, weight);
    for (int k = 0; k < n; ++k) index[k] -= coarse_shift;
    return n;
  }
  KOKKOS_INLINE_FUNCTION int gathers(const int c, int (&index)[most_gathers], T (&weight)[most_gathers]) const {
    const int n = level.gathers(c + coarse_shift, index, weight);
    for (int k = 0; k < n; ++k) index[k] -= fine_shift;
    return n;
  }
};

int shift_of(const distributed::Span& owned) { return static_cast<int>(owned.first - 1); }

GridRectangle block_of(const GridDecomposition& grid) {
  return GridRectangle{1, 1, static_cast<int>(grid.rows_owned().count), static_cast<int>(grid.cols_owned().count)};
}

// Every rank's local array (block and ring) gathered into `global` on every
// rank (host, row-major, the level's rows x cols): the rings first, then the
// blocks over them, so a point takes its owner's value and the level's own
// ring the value of a rank on that edge.
template <class T>
void all_gather_blocks(const GridDecomposition& grid, const View2D<T>& local, std::vector<T>& global) {
  const int ranks = grid.size();
  const auto mine = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), local);  // row-major, contiguous
  std::vector<int> counts(ranks), offsets(ranks);
  for (int r = 0; r < ranks; ++r)
    counts[r] = static_cast<int>((grid.rows_owned_by(r).count + 2) * (grid.cols_owned_by(r).count + 2));
  std::exclusive_scan(counts.begin(), counts.end(), offsets.begin(), 0);
  std::vector<T> all(static_cast<std::size_t>(offsets.back()) + counts.back());
  MPI_Allgatherv(mine.data(), counts[grid.rank()], distributed::mpi_type<T>(), all.data(), counts.data(),
                 offsets.data(), distributed::mpi_type<T>(), grid.comm());
  const std::int64_t cols = grid.global_cols();
  global.assign(static_cast<std::size_t>(grid.global_rows() * cols), T(0));
  for (const bool blocks : {false, true})
    for (int r = 0; r < ranks; ++r) {
      const distributed::Span rs = grid.rows_owned_by(r), cs = grid.cols_owned_by(r);
      const std::int64_t width = cs.count + 2;
      const T* block = all.data() + offsets[r];
      for (std::int64_t i = 0; i < rs.count + 2; ++i)
        for (std::int64_t j = 0; j < width; ++j) {
          const bool ring = i == 0 || i == rs.count + 1 || j == 0 || j == width - 1;
          if (ring != blocks) global[(rs.first - 1 + i) * cols + cs.first - 1 + j] = block[i * width + j];
        }
    }
}

// This rank's window (block and ring) of a level held whole on every rank.
template <class T>
void take_window(const GridDecomposition& grid, const View2D<T>& whole, const View2D<T>& local) {
  const auto first_row = static_cast<std::size_t>(grid.rows_owned().first - 1);
  const auto first_col = static_cast<std::size_t>(grid.cols_owned().first - 1);
  copy_grid("poisson_mg_take_window", local,
            Kokkos::subview(whole, std::make_pair(first_row, first_row + local.extent(0)),
                            std::make_pair(first_col, first_col + local.extent(1))));
}

template <class T>
void put_whole(const std::vector<T>& global, const View2D<T>& whole) {
  using Unmanaged = Kokkos::View<const T**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;
  Kokkos::deep_copy(whole, Unmanaged(global.data(), whole.extent(0), whole.extent(1)));
}

// The sum of a grid's squares at the points walked.
template <class Sum>
struct SumOfSquares {
  View2D<const Sum> values;
  KOKKOS_INLINE_FUNCTION void operator()(const int i, const int j, Sum& sum) const {
    sum += values(i, j) * values(i, j);
  }
};

// One split level: its decomposition, grids on this rank's block, exchanges.
template <class T>
struct RankLevel {
  using Sum = typename Accumulator<T>::type;
  std::unique_ptr<GridDecomposition> own_grid;  // coarse levels (level 0: the caller's)
  const GridDecomposition* grid = nullptr;
  Level<T> level;                         // op shifted to the block
  View2D<Sum> fine_residual;              // f - L u before the restriction
  std::unique_ptr<HaloExchange<T>> halo;  // u's edges, for the smoothers and the residual
  std::unique_ptr<distributed::CornerHaloExchange<T>>
      correction_halo;  // u's ring with corners, before it is interpolated
  std::unique_ptr<distributed::CornerHaloExchange<Sum>>
      residual_halo;                               // fine_residual's ring with corners, before restriction
  RankTransfer<T> row_transfer{}, col_transfer{};  // to the next coarser level
};

template <class T>
class RankHierarchy {
  using Sum = typename Accumulator<T>::type;

 public:
  // symmetric: Gauss-Seidel post-smoothing in the reverse colour order (cg's preconditioner).
  RankHierarchy(const ExecSpace& exec, const GridDecomposition& grid, const View2D<T>& x, const View2D<T>& rhs,
                const MultigridOptions& options, bool symmetric = false)
      : options_(options),
        symmetric_(symmetric),
        chebyshev_(chebyshev_coefficients(std::max(options.pre_sweeps, options.post_sweeps))) {
    const auto axes = level_axes(grid.global_rows(), grid.global_cols(), options.coarsest_size);
    depth_ = axes.size();
    add_level(exec, grid, nullptr, axes[0], x, rhs);
    // Split levels while they are large and thick enough; the next is gathered.
    gathered_ = 0;
    if (depth_ > 1) {
      for (std::size_t l = 1;; ++l) {
        RankLevel<T>& fine = levels_.back();
        const bool coarsen_rows = axes[l].first.points != axes[l - 1].first.points;
        const bool coarsen_cols = axes[l].second.points != axes[l - 1].second.points;
        std::unique_ptr<GridDecomposition> coarse = fine.grid->coarsened(coarsen_rows, coarsen_cols);
        fine.row_transfer = RankTransfer<T>{transfer<T>(axes[l - 1].first, coarsen_rows),
                                            shift_of(fine.grid->rows_owned()), shift_of(coarse->rows_owned())};
        fine.col_transfer = RankTransfer<T>{transfer<T>(axes[l - 1].second, coarsen_cols),
                                            shift_of(fine.grid->cols_owned()), shift_of(coarse->cols_owned())};
        fine.fine_residual = View2D<Sum>("poisson_mg_rank_residual", fine.grid->rows_owned().count + 2,
                                         fine.grid->cols_owned().count + 2);  // level 0's u may not be bound yet
        fine.residual_halo = std::make_unique<distributed::CornerHaloExchange<Sum>>(*fine.grid, 1);
        if (l + 1 == depth_ || !stays_split(*coarse, axes[l])) {
          gathered_ = l;
          gathered_grid_ = std::move(coarse);
          break;
        }
        const GridDecomposition& split = *coarse;  // before `coarse` moves into the level
        add_level(exec, split, std::move(coarse), axes[l], View2D<T>(), View2D<T>());
      }
    }
    // Level g whole on every rank, with the coarser levels.
    const std::vector<std::pair<Axis, Axis>> tail(axes.begin() + gathered_, axes.end());
    whole_u_ = zeroed_on<View2D<T>>(exec, "poisson_mg_whole_u", tail[0].first.points + 2, tail[0].second.points + 2);
    whole_f_ = zeroed_on<View2D<T>>(exec, "poisson_mg_whole_f", whole_u_.extent(0), whole_u_.extent(1));
    whole_ = std::make_unique<Hierarchy<T>>(exec, tail, whole_u_, whole_f_, options, symmetric);
    if (gathered_ > 0) {
      const GridDecomposition& coarse = *gathered_grid_;
      block_u_ = zeroed_on<View2D<T>>(exec, "poisson_mg_gathered_u", coarse.rows_owned().count + 2,
                                      coarse.cols_owned().count + 2);
      block_f_ = zeroed_on<View2D<T>>(exec, "poisson_mg_gathered_f", block_u_.extent(0), block_u_.extent(1));
    }
  }

  // Level 0 is the caller's x and B (with rings): a kept hierarchy is
  // pointed at each solve's, and at nothing between solves.
  void bind_finest(const View2D<T>& x, const View2D<T>& rhs) {
    levels_.front().level.u = x;
    levels_.front().level.f = rhs;
    if (gathered_ == 0 && rhs.data()) {  // the finest level is the coarsest: B whole on every rank
      std::vector<T> global;
      all_gather_blocks(*levels_.front().grid, rhs, global);
      put_whole(global, whole_f_);
    }
  }

  void cycle(const ExecSpace& exec) { run_cycle(*this, exec, 0, options_.cycle, options_); }

  distributed::HaloStatistics statistics() const {
    distributed::HaloStatistics total;
    total.transport = levels_.front().halo->transport();
    for (const RankLevel<T>& level : levels_) {
      total.seconds += level.halo->seconds();
      total.exchanges += level.halo->exchanges();
      const auto add = [&](const auto& corners) {
        if (!corners) return;
        total.seconds += corners->seconds();
        total.exchanges += corners->exchanges();
      };
      add(level.residual_halo);
      add(level.correction_halo);
    }
    return total;
  }

  // The steps run_cycle takes (multigrid_cycles.hpp).
  // The gathered levels' cycles: the whole hierarchy's, its tail in one launch on GPUs.
  bool cycle_in_one_launch(const ExecSpace& exec, std::size_t l, MultigridCycle shape) {
    return gathered_ > 0 && l >= gathered_ && whole_->cycle_in_one_launch(exec, l - gathered_, shape);
  }
  std::size_t depth() const { return depth_; }

  void smooth(const ExecSpace& exec, std::size_t l, int sweeps, bool post) {
    if (l >= gathered_ && gathered_ > 0) {
      whole_->smooth(exec, l - gathered_, sweeps, post);
      return;
    }
    RankLevel<T>& rank = levels_[l];
    Level<T>& level = rank.level;
    const GridRectangle block = block_of(*rank.grid);
    if (options_.smoother != MultigridSmoother::rbgs) {
      smooth_from_residual<T>(exec, block, level, options_, chebyshev_, sweeps, [&] { rank.halo->exchange(level.u); });
      return;
    }
    const bool black_first = post && symmetric_;
    for (int s = 0; s < sweeps; ++s) {
      if (black_first) {
        exchanged_half_sweep<Black>(exec, rank, block);
        exchanged_half_sweep<Red>(exec, rank, block);
      } else {
        exchanged_half_sweep<Red>(exec, rank, block);
        exchanged_half_sweep<Black>(exec, rank, block);
      }
    }
  }

  // u's halo (the other colour's last values), then one colour's points.
  // Large blocks on devices overlap the two: the exchange starts, the points
  // inside the block's frame (whose neighbours are all this rank's) are
  // updated while it travels, then the frame. A colour's points read only the
  // other colour: the same bits in any order.
  template <class Colour>
  void exchanged_half_sweep(const ExecSpace& exec, RankLevel<T>& rank, const GridRectangle& block) {
    Level<T>& level = rank.level;
    if (!overlap_half_sweeps_ || block.rows <= 2 || block.cols <= 2 ||
        std::int64_t(block.rows) * block.cols < overlap_least_points_) {
      rank.halo->exchange(level.u);
      half_sweep<Colour>(exec, level, block);
      return;
    }
    const RedBlackSweep<T, Colour> sweep{level.u, level.f, level.op};
    rank.halo->start(level.u);
    for_rectangle(exec, "poisson_mg_rank_half_sweep_inner", inside_frame_of(block.rows, block.cols), sweep);
    rank.halo->finish(level.u);
    for (const GridRectangle& edge : frame_of(block.rows, block.cols))
      for_rectangle(exec, "poisson_mg_rank_half_sweep_frame", edge, sweep);
  }

  // One colour's points of the block: hosts a row per iteration, stepping
  // over the other colour (RedBlackRowBlocks' rows), devices a point each.
  template <class Colour>
  static void half_sweep(const ExecSpace& exec, const Level<T>& level, const GridRectangle& block) {
    if constexpr (host_execution) {
      Kokkos::parallel_for("poisson_mg_rank_half_sweep_rows",
                           Kokkos::RangePolicy<ExecSpace, OneColour>(exec, 1, block.rows + 1),
                           RedBlackRowBlocks<T>{level.u, level.f, level.op, Colour::parity, 1});
    } else {
      for_rectangle(exec, "poisson_mg_rank_half_sweep", block, RedBlackSweep<T, Colour>{level.u, level.f, level.op});
    }
  }

  void restrict_residual(const ExecSpace& exec, std::size_t l) {
    if (l >= gathered_) {
      whole_->restrict_residual(exec, l - gathered_);
      return;
    }
    RankLevel<T>& fine = levels_[l];
    const bool into_gathered = l + 1 == gathered_;
    const View2D<T> coarse_u = into_gathered ? block_u_ : levels_[l + 1].level.u;
    const View2D<T> coarse_f = into_gathered ? block_f_ : levels_[l + 1].level.f;
    const GridDecomposition& coarse_grid = into_gathered ? *gathered_grid_ : *levels_[l + 1].grid;
    fine.halo->exchange(fine.level.u);
    for_rectangle(
        exec, "poisson_mg_rank_residual", block_of(*fine.grid),
        LevelResidual<T, LevelOperator<T>, Sum>{fine.level.u, fine.level.f, fine.fine_residual, fine.level.op});
    fine.residual_halo->exchange(fine.fine_residual);
    for_rectangle(exec, "poisson_mg_rank_restrict", block_of(coarse_grid),
                  RestrictStoredResidual<T, RankTransfer<T>>{fine.fine_residual, fine.row_transfer, fine.col_transfer,
                                                             coarse_u, coarse_f});
    if (into_gathered) {
      std::vector<T> global;
      all_gather_blocks(coarse_grid, block_f_, global);
      put_whole(global, whole_f_);
      Kokkos::deep_copy(exec, whole_u_, T(0));
    }
  }

  // restrict_residual, and the 2-norm of level l's residual over all ranks:
  // the squares of the fine residuals formed for the restriction, summed in
  // rank order (the same on every rank). A gathered level is whole on every
  // rank. (run_solve_cycles)
  double restrict_residual_and_norm(const ExecSpace& exec, std::size_t l) {
    if (l >= gathered_) return whole_->restrict_residual_and_norm(exec, l - gathered_);
    restrict_residual(exec, l);
    const RankLevel<T>& fine = levels_[l];
    Sum squares = 0;
    reduce_rectangle<Sum>(exec, "poisson_mg_rank_residual_norm", block_of(*fine.grid),
                          SumOfSquares<Sum>{fine.fine_residual}, squares);
    return std::sqrt(distributed::ordered_sum(static_cast<double>(squares), fine.grid->comm()));
  }

  void prolong_and_correct(const ExecSpace& exec, std::size_t l) {
    if (l >= gathered_) {
      whole_->prolong_and_correct(exec, l - gathered_);
      return;
    }
    RankLevel<T>& fine = levels_[l];
    View2D<T> coarse_u;
    if (l + 1 == gathered_) {
      take_window(*gathered_grid_, whole_u_, block_u_);
      coarse_u = block_u_;
    } else {
      RankLevel<T>& coarse = levels_[l + 1];
      coarse.correction_halo->exchange(coarse.level.u);
      coarse_u = coarse.level.u;
    }
    for_rectangle(exec, "poisson_mg_rank_prolong_correct", block_of(*fine.grid),
                  ProlongAndCorrect<T, RankTransfer<T>>{fine.level.u, coarse_u, fine.row_transfer, fine.col_transfer});
  }

  void solve_coarsest(const ExecSpace& exec) {
    if (gathered_ > 0) {
      whole_->solve_coarsest(exec);
      return;
    }
    // One level in all: x whole on every rank (its ring the boundary values),
    // solved there, this rank's window back.
    RankLevel<T>& finest = levels_.front();
    std::vector<T> global;
    all_gather_blocks(*finest.grid, finest.level.u, global);
    put_whole(global, whole_u_);
    whole_->solve_coarsest(exec);
    take_window(*finest.grid, whole_u_, finest.level.u);
  }

 private:
  bool stays_split(const GridDecomposition& coarse, const std::pair<Axis, Axis>& axes) const {
    if (std::int64_t(axes.first.points) * axes.second.points <= options_.gather_size) return false;
    for (int dim = 0; dim < 2; ++dim)
      if (coarse.dims()[dim] > 1 && coarse.thinnest_block(dim) < least_rank_side) return false;
    return true;
  }

  void add_level(const ExecSpace& exec, const GridDecomposition& grid, std::unique_ptr<GridDecomposition> own,
                 const std::pair<Axis, Axis>& axes, const View2D<T>& x, const View2D<T>& rhs) {
    RankLevel<T> rank;
    rank.own_grid = std::move(own);
    rank.grid = &grid;
    Level<T>& level = rank.level;
    level.row_axis = axes.first;
    level.col_axis = axes.second;
    level.op = level_operator<T>(level.row_axis, level.col_axis);
    level.op.row_shift = shift_of(grid.rows_owned());
    level.op.col_shift = shift_of(grid.cols_owned());
    make_level_grids(exec, level, levels_.size(), static_cast<int>(grid.rows_owned().count + 2),
                     static_cast<int>(grid.cols_owned().count + 2), x, rhs, options_, "poisson_mg_rank_");
    rank.halo = std::make_unique<HaloExchange<T>>(grid, 1);
    if (!levels_.empty()) rank.correction_halo = std::make_unique<distributed::CornerHaloExchange<T>>(grid, 1);
    levels_.push_back(std::move(rank));
  }

  MultigridOptions options_;
  bool symmetric_;
  // exchanged_half_sweep's overlap: on devices (distributed/rim_strips.hpp), for
  // blocks of at least overlap_least_points (smaller ones: the frame's four
  // extra launches cost more than the exchange they hide; a guess, not yet
  // measured), any size where forced.
  static constexpr std::int64_t overlap_least_points = std::int64_t{1} << 18;
  bool overlap_half_sweeps_ = distributed::overlap_exchanges();
  std::int64_t overlap_least_points_ = distributed::overlap_forced() ? 0 : overlap_least_points;
  ChebyshevCoefficients chebyshev_;
  std::size_t depth_ = 1, gathered_ = 0;
  std::vector<RankLevel<T>> levels_;
  std::unique_ptr<GridDecomposition> gathered_grid_;  // level g's split (its blocks may be empty)
  View2D<T> block_u_, block_f_;                       // level g on this rank's block, with ring
  View2D<T> whole_u_, whole_f_;                       // level g whole
  std::unique_ptr<Hierarchy<T>> whole_;               // levels g .. depth - 1, whole on every rank
};

}  // namespace

template <class T>
struct RankMultigrid<T>::Kept {
  const distributed::GridDecomposition* grid;
  MultigridOptions options;
  bool preconditioner;
  View2D<T> f, z;  // the preconditioner's level 0 (its B and its iterate)
  std::unique_ptr<RankHierarchy<T>> hierarchy;
  distributed::HaloStatistics before;  // the exchanges' totals when the last call began
};

template <class T>
RankMultigrid<T>::RankMultigrid(const distributed::GridDecomposition& grid, const MultigridOptions& options,
                                bool preconditioner)
    : kept_(std::make_unique<Kept>()) {
  const ExecSpace exec;
  Kept& k = *kept_;
  k.grid = &grid;
  k.options = options;
  k.preconditioner = preconditioner;
  if (preconditioner) {
    const auto rows = static_cast<std::size_t>(grid.rows_owned().count + 2);
    const auto cols = static_cast<std::size_t>(grid.cols_owned().count + 2);
    k.f = zeroed_on<View2D<T>>(exec, "poisson_mg_rank_f", rows, cols);
    k.z = zeroed_on<View2D<T>>(exec, "poisson_mg_rank_z", rows, cols);
  }
  k.hierarchy = std::make_unique<RankHierarchy<T>>(exec, grid, k.z, k.f, options, /*symmetric=*/preconditioner);
  k.hierarchy->bind_finest(k.z, k.f);
}

template <class T>
RankMultigrid<T>::~RankMultigrid() = default;

template <class T>
bool RankMultigrid<T>::fits(const distributed::GridDecomposition& grid, const MultigridOptions& options,
                            bool preconditioner) const {
  const MultigridOptions& o = kept_->options;
  const auto fields = [](const MultigridOptions& m) {
    return std::make_tuple(m.cycle, m.smoother, m.pre_sweeps, m.post_sweeps, m.coarsest_size, m.gather_size, m.fmg,
                           m.jacobi_omega);
  };
  return kept_->grid == &grid && kept_->preconditioner == preconditioner && fields(o) == fields(options);
}

template <class T>
void RankMultigrid<T>::solve(const View2D<T>& x, const View2D<T>& rhs, CheckSchedule& schedule,
                             const std::function<double()>& residual_norm) {
  const ExecSpace exec;
  Kept& k = *kept_;
  k.before = k.hierarchy->statistics();
  k.hierarchy->bind_finest(x, rhs);
  struct Unbind {  // the kept hierarchy must not keep the caller's arrays alive
    RankHierarchy<T>& hierarchy;
    ~Unbind() { hierarchy.bind_finest(View2D<T>(), View2D<T>()); }
  } unbind{*k.hierarchy};
  // Every cycle is checked, as on one rank (run_solve_cycles).
  run_solve_cycles(*k.hierarchy, exec, k.options, schedule, residual_norm);
}

template <class T>
void RankMultigrid<T>::start_preconditioning() {
  kept_->before = kept_->hierarchy->statistics();
}

template <class T>
void RankMultigrid<T>::apply(const View2D<T>& r) {
  const ExecSpace exec;
  Kept& k = *kept_;
  for_rectangle(exec, "poisson_mg_rank_precondition_start",
                GridRectangle{0, 0, static_cast<int>(r.extent(0)), static_cast<int>(r.extent(1))},
                StartPreconditioner<T>{r, k.f, k.z});
  k.hierarchy->cycle(exec);
}

template <class T>
const View2D<T>& RankMultigrid<T>::z() const {
  return kept_->z;
}

template <class T>
distributed::HaloStatistics RankMultigrid<T>::statistics() const {
  distributed::HaloStatistics now = kept_->hierarchy->statistics();
  now.seconds -= kept_->before.seconds;
  now.exchanges -= kept_->before.exchanges;
  return now;
}

template class RankMultigrid<float>;
template class RankMultigrid<double>;

}  // namespace portasolve::poisson::detail
