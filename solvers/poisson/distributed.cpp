// Poisson solves over MPI ranks. Each rank holds its block plus a ring
// (distributed/grid_decomposition.hpp); LocalGrid does what every method
// needs on it: halo exchanges and norms summed across ranks in rank order.
//
// jacobi: each sweep first updates the block's edge points, starts their
// exchange, updates the rest of the block while the halos travel, then
// writes the neighbours' edges into the ring.
// cg: the plain or preconditioned (diagonal, or a multigrid cycle over the
// ranks: multigrid_ranks.hpp) iteration, matrix-free; the
// search direction's halo is exchanged before each operator application,
// overlapped with the direction update and the operator inside the block's
// frame; the two dot products a step are summed across ranks in rank order.
#include "solvers/poisson/distributed.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/errors.hpp"
#include "core/timer.hpp"
#include "distributed/halo_exchange.hpp"
#include "distributed/mpi_session.hpp"
#include "distributed/rim_strips.hpp"
#include "solvers/poisson/detail/cg_kernels.hpp"
#include "solvers/poisson/detail/check_schedule.hpp"
#include "solvers/poisson/detail/methods.hpp"
#include "solvers/poisson/detail/multigrid_ranks.hpp"
#include "solvers/poisson/detail/stencil.hpp"

namespace portasolve::poisson {

using namespace detail;

namespace {

// (B - L X0)^2 over the block, X0 the grid's boundary with a zero interior:
// of the ring, only the sides that are the grid's edge hold boundary values;
// the sides facing other ranks are interior points, zero in X0.
template <class T, class Sum>
struct LocalZeroInteriorResidualSquared {
  View2D<const T> x, rhs;
  bool north_edge, south_edge, west_edge, east_edge;

  KOKKOS_INLINE_FUNCTION Sum x0(const std::int64_t i, const std::int64_t j) const {
    const std::int64_t last_row = x.extent(0) - 1, last_col = x.extent(1) - 1;
    const bool boundary = (i == 0 && north_edge) || (i == last_row && south_edge) || (j == 0 && west_edge) ||
                          (j == last_col && east_edge);
    return boundary ? Sum(x(i, j)) : Sum(0);
  }
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i, const std::int64_t j, Sum& sum) const {
    const Sum r = Sum(rhs(i, j)) - (x0(i - 1, j) + x0(i + 1, j) + x0(i, j - 1) + x0(i, j + 1));
    sum += r * r;
  }
};

// sum a b over the block's own points, in Sum.
template <class T, class Sum>
struct BlockDot {
  View2D<const T> a, b;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i, const std::int64_t j, Sum& sum) const {
    sum += Sum(a(i, j)) * Sum(b(i, j));
  }
};

// CG's vector updates on the block's own points; the ring is left alone
// (boundary values, or halos the next exchange refreshes).
struct AdvanceTag {};       // x += alpha p, r -= alpha q
struct PreconditionTag {};  // z = r / 4 (the operator's diagonal)
struct DirectionTag {};     // p = z + beta p
template <class T>
struct CgBlockUpdate {
  View2D<T> x, r, p, z;
  View2D<const T> q;
  T alpha, beta;
  KOKKOS_INLINE_FUNCTION void operator()(AdvanceTag, const std::int64_t i, const std::int64_t j) const {
    x(i, j) += alpha * p(i, j);
    r(i, j) -= alpha * q(i, j);
  }
  KOKKOS_INLINE_FUNCTION void operator()(PreconditionTag, const std::int64_t i, const std::int64_t j) const {
    z(i, j) = r(i, j) * T(0.25);
  }
  KOKKOS_INLINE_FUNCTION void operator()(DirectionTag, const std::int64_t i, const std::int64_t j) const {
    p(i, j) = z(i, j) + beta * p(i, j);
  }
};

// A tagged functor as for_interior's (i, j) callable.
template <class Tag, class Functor>
struct Tagged {
  Functor functor;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i, const std::int64_t j) const { functor(Tag{}, i, j); }
};

template <class T>
class LocalGrid {
 public:
  using Sum = typename Accumulator<T>::type;

  // `halo`: an exchange of width 1 on `grid`, kept by the caller (its totals
  // run on over calls: this grid's statistics are the differences).
  LocalGrid(const distributed::GridDecomposition& grid, const View2D<T>& rhs, distributed::HaloExchange<T>& halo)
      : grid_(grid),
        rhs_(rhs),
        halo_(halo),
        seconds_before_(halo.seconds()),
        exchanges_before_(halo.exchanges()),
        rows_(static_cast<int>(grid.rows_owned().count)),
        cols_(static_cast<int>(grid.cols_owned().count)) {}

  double global_sum(Sum local) const { return distributed::ordered_sum(static_cast<double>(local), grid_.comm()); }

  double reference_norm(const View2D<T>& x) const {
    Sum sum = 0;
    reduce_interior<Sum>("poisson_reference_residual", x.extent(0), x.extent(1),
                         LocalZeroInteriorResidualSquared<T, Sum>{
                             x, rhs_, grid_.north() == MPI_PROC_NULL, grid_.south() == MPI_PROC_NULL,
                             grid_.west() == MPI_PROC_NULL, grid_.east() == MPI_PROC_NULL},
                         sum);
    return std::sqrt(global_sum(sum));
  }

  // ||B - L X||_2 over the whole grid's interior; x's halo must be current.
  double residual_norm(const View2D<T>& x) const {
    Sum sum = 0;
    reduce_interior<Sum>("poisson_residual", x.extent(0), x.extent(1), ResidualSquared<T, Sum>{x, rhs_}, sum);
    return std::sqrt(global_sum(sum));
  }

  double dot(const View2D<T>& a, const View2D<T>& b) const {
    Sum sum = 0;
    reduce_interior<Sum>("poisson_cg_dot", a.extent(0), a.extent(1), BlockDot<T, Sum>{a, b}, sum);
    return global_sum(sum);
  }

  void exchange(const View2D<T>& x) { halo_.exchange(x); }

  // One Jacobi sweep current -> next, next's halo filled on return.
  void jacobi_sweep(const View2D<T>& current, const View2D<T>& next, T omega, bool weighted) {
    const JacobiSweep<T> update{current, next, rhs_, omega, weighted};
    if (rows_ <= 2 || cols_ <= 2) {  // no inner points to overlap with
      for_rectangle("poisson_jacobi", GridRectangle{1, 1, rows_, cols_}, update);
      halo_.exchange(next);
      return;
    }
    for_frame("poisson_jacobi_edges", update);
    halo_.start(next);
    for_rectangle("poisson_jacobi_inner", inner(), update);
    halo_.finish(next);
  }

  // CG's direction update p = z + beta p (`direction`, on the block), then
  // q = A p, with p's halo exchanged in between and overlapped: the block's
  // frame first, its exchange started, the rest of the direction and the
  // operator on the points whose neighbours are all on this rank while the
  // halos travel, then the operator on the frame. Pointwise kernels in
  // another order: the bits of update, exchange, apply.
  template <class Direction>
  void direction_and_operator(const Direction& direction, const View2D<T>& p, const View2D<T>& q) {
    const ApplyOperator<T> apply{p, q};
    if (rows_ <= 2 || cols_ <= 2) {  // no inner points to overlap with
      for_rectangle("poisson_cg_direction", GridRectangle{1, 1, rows_, cols_}, direction);
      halo_.exchange(p);
      for_rectangle("poisson_cg_apply", GridRectangle{1, 1, rows_, cols_}, apply);
      return;
    }
    for_frame("poisson_cg_direction_edges", direction);
    halo_.start(p);
    for_rectangle("poisson_cg_direction_inner", inner(), direction);
    for_rectangle("poisson_cg_apply_inner", inner(), apply);
    halo_.finish(p);
    for_frame("poisson_cg_apply_edges", apply);
  }

  HaloStatistics statistics() const {
    return HaloStatistics{halo_.seconds() - seconds_before_, halo_.exchanges() - exchanges_before_, halo_.transport()};
  }
  const View2D<T>& rhs() const { return rhs_; }

 private:
  // The block's frame, the points the neighbours need (rows_, cols_ > 2).
  template <class Functor>
  void for_frame(const char* name, const Functor& functor) const {
    for (const GridRectangle& edge : frame_of(rows_, cols_)) for_rectangle(name, edge, functor);
  }
  // The points inside the frame.
  GridRectangle inner() const { return inside_frame_of(rows_, cols_); }

  const distributed::GridDecomposition& grid_;
  View2D<T> rhs_;
  distributed::HaloExchange<T>& halo_;
  double seconds_before_;
  std::int64_t exchanges_before_;
  int rows_, cols_;
};

template <class T>
void run_jacobi(LocalGrid<T>& local, RankArrays<T>& arrays, const View2D<T>& x, const SolverOptions& options,
                CheckSchedule& schedule) {
  View2D<T> current = x;
  View2D<T> next = arrays.plain_next(x);
  Kokkos::deep_copy(next, x);  // the grid's boundary, which sweeps never write
  const T omega = static_cast<T>(options.omega);
  std::int64_t done = 0;
  for (bool stop = false; !stop;) {
    for (const std::int64_t until = schedule.next_check(done); done < until; ++done) {
      local.jacobi_sweep(current, next, omega, options.omega != 1);
      std::swap(current, next);
    }
    stop = schedule.record(done, local.residual_norm(current));
  }
  if (current.data() != x.data()) Kokkos::deep_copy(x, current);
}

// jacobi_blocked over ranks: the block plus a deep halo, `depth` points
// (the sweeps a launch) on each side that faces a neighbour and a ring of 1
// (the boundary values) on the grid's edges. Every round exchanges the halo
// (west and east, then north and south the full width, which brings the
// corners), then jacobi_blocked's kernel runs up to `depth` sweeps on the
// whole deep array with its outer ring held (the boundary values, which the
// west and east messages also carry where the block meets the grid's north
// or south edge, so the halo's corners hold them too): after s sweeps the points
// within s of that ring are stale, so after `depth` the block is exact, the
// plain sweep's bits. `depth` times fewer exchanges than jacobi, each
// `depth` times deeper, for the halo swept again on both sides.
template <class T>
class DeepHalo {
 public:
  DeepHalo(const distributed::GridDecomposition& grid, int depth)
      : ring_(distributed::RingWidths::toward_neighbours(grid, depth, /*at_edges=*/1, /*edge_rows=*/true)),
        rows_(static_cast<int>(grid.rows_owned().count)),
        cols_(static_cast<int>(grid.cols_owned().count)),
        halo_(grid, depth, ring_),
        strips_(distributed::overlap_exchanges()
                    ? distributed::rim_strips(rows_, cols_, ring_, depth,
                                              distributed::overlapped_sides(halo_.across(), halo_.down()))
                    : std::vector<distributed::StripGeometry>{}) {}

  View2D<T> make(const char* label) const {
    return View2D<T>(std::string(label), static_cast<std::size_t>(rows_ + ring_.north + ring_.south),
                     static_cast<std::size_t>(cols_ + ring_.west + ring_.east));
  }
  // The block with its ring of 1 inside a deep array: the local arrays' layout.
  auto near(const View2D<T>& deep) const {
    return Kokkos::subview(deep, std::make_pair(ring_.north - 1, ring_.north + rows_ + 1),
                           std::make_pair(ring_.west - 1, ring_.west + cols_ + 1));
  }
  GridRectangle block() const { return GridRectangle{ring_.north, ring_.west, rows_, cols_}; }

  void exchange(const View2D<T>& deep) { halo_.exchange(deep); }
  // The exchange with `sweep` run while its second half travels, the rim
  // then swept again from strips (rim_strips.hpp); blocks too thin for strips,
  // and hosts (overlap_exchanges), exchange first.
  const distributed::RimStrips<T>& strips() const { return strips_; }
  template <class Sweep>
  void exchange_around(const View2D<T>& deep, Sweep&& sweep) {
    distributed::exchange_around(halo_.across(), halo_.down(), deep, sweep);
  }
  // Since the last restart_statistics() (the exchanges' totals run on over calls).
  HaloStatistics statistics() const {
    return HaloStatistics{halo_.seconds() - seconds_before_, halo_.exchanges() - exchanges_before_, halo_.transport()};
  }
  void restart_statistics() {
    seconds_before_ = halo_.seconds();
    exchanges_before_ = halo_.exchanges();
  }

 private:
  distributed::RingWidths ring_;
  int rows_, cols_;
  distributed::CornerHaloExchange<T> halo_;  // across, then down the full width: the corners too
  distributed::RimStrips<T> strips_;
  double seconds_before_ = 0;
  std::int64_t exchanges_before_ = 0;
};

}  // namespace

// What a solve keeps for the next one on the same decomposition: the halo
// exchanges (and the device-to-device links they set up) and the methods'
// local arrays. Every point of a kept array is written before a solve reads
// it (copies in, exchanges, the boundary copy).
template <class T>
struct RankArrays {
  const distributed::GridDecomposition* grid;
  std::int64_t global_rows, global_cols, rows, cols;  // the grid's and the block's
  std::array<int, 2> dims;
  distributed::HaloExchange<T> ring_one;
  View2D<T> jacobi_next;  // plain jacobi's second iterate
  int depth = 0;          // jacobi_blocked's: its deep halo and arrays
  std::optional<DeepHalo<T>> deep;
  View2D<T> deep_current, deep_next, deep_rhs;
  std::unique_ptr<RankMultigrid<T>> multigrid;  // multigrid's hierarchy, or cg's multigrid preconditioner
  std::int64_t calls = 0;

  explicit RankArrays(const distributed::GridDecomposition& decomposition)
      : grid(&decomposition),
        global_rows(decomposition.global_rows()),
        global_cols(decomposition.global_cols()),
        rows(decomposition.rows_owned().count),
        cols(decomposition.cols_owned().count),
        dims(decomposition.dims()),
        ring_one(decomposition, 1) {}

  // A workspace belongs to one decomposition; these catch most mix-ups.
  bool fits(const distributed::GridDecomposition& decomposition) const {
    return grid == &decomposition && global_rows == decomposition.global_rows() &&
           global_cols == decomposition.global_cols() && dims == decomposition.dims() &&
           rows == decomposition.rows_owned().count && cols == decomposition.cols_owned().count;
  }
  // jacobi_blocked's deep halo and arrays for `sweeps` a launch, kept or made.
  DeepHalo<T>& deep_halo(int sweeps) {
    if (!deep || depth != sweeps) {
      deep.reset();  // the old arrays' memory first
      deep_current = deep_next = deep_rhs = View2D<T>();
      deep.emplace(*grid, sweeps);
      depth = sweeps;
      deep_current = deep->make("poisson_jacobi_deep");
      deep_next = deep->make("poisson_jacobi_deep_next");
      deep_rhs = deep->make("poisson_rhs_deep");
    }
    deep->restart_statistics();
    return *deep;
  }
  // The multigrid hierarchy for these options, kept or made.
  RankMultigrid<T>& multigrid_for(const MultigridOptions& options, bool preconditioner) {
    if (!multigrid || !multigrid->fits(*grid, options, preconditioner)) {
      multigrid.reset();  // the old levels' memory and links first
      multigrid = std::make_unique<RankMultigrid<T>>(*grid, options, preconditioner);
    }
    return *multigrid;
  }
  const View2D<T>& plain_next(const View2D<T>& x) {
    if (jacobi_next.extent(0) != x.extent(0) || jacobi_next.extent(1) != x.extent(1))
      jacobi_next =
          View2D<T>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "poisson_jacobi_next"), x.extent(0), x.extent(1));
    return jacobi_next;
  }
};

template <class T>
std::int64_t DistributedWorkspace<T>::calls() const {
  return kept ? kept->calls : 0;
}

namespace {

template <class T>
void run_jacobi_blocked(LocalGrid<T>& local, RankArrays<T>& arrays, const View2D<T>& x, const SolverOptions& options,
                        CheckSchedule& schedule, HaloStatistics& halo) {
  using Sum = typename LocalGrid<T>::Sum;
  const int depth = options.sweeps_per_launch;
  Stopwatch arrays_watch;
  DeepHalo<T>& deep = arrays.deep_halo(depth);
  View2D<T> current = arrays.deep_current, next = arrays.deep_next, rhs = arrays.deep_rhs;
  copy_grid("poisson_deep_x_in", deep.near(current), x);
  copy_grid("poisson_deep_rhs_in", deep.near(rhs), local.rhs());
  double arrays_seconds = arrays_watch.seconds();
  deep.exchange(rhs);
  deep.exchange(current);
  Kokkos::deep_copy(next, current);  // the grid's boundary, which sweeps never write
  const BlockedSweeps<T> sweeps(current.extent(0), current.extent(1), options);
  const T omega = static_cast<T>(options.omega);
  const bool weighted = options.omega != 1;
  // The rim's strips: their own sweeps (the kernel picked for their shape)
  // and their part of B.
  const distributed::RimStrips<T>& strips = deep.strips();
  SolverOptions strip_options = options;
  strip_options.blocked_kernel = BlockedKernel::automatic;
  std::vector<BlockedSweeps<T>> strip_sweeps;
  std::vector<View2D<T>> strip_rhs;
  for (std::size_t s = 0; s < strips.strips().size(); ++s) {
    const View2D<T>& in = strips.strips()[s].in;
    strip_sweeps.emplace_back(in.extent(0), in.extent(1), strip_options);
    strip_rhs.push_back(strips.cut(rhs, s));
  }
  bool halo_current = true;
  std::int64_t done = 0;
  for (bool stop = false; !stop;) {
    for (const std::int64_t until = schedule.next_check(done); done < until;) {
      const int count = static_cast<int>(std::min<std::int64_t>(depth, until - done));
      const auto sweep = [&] { sweeps.run(current, next, rhs, omega, weighted, count); };
      if (halo_current) {
        sweep();
      } else if (strips.empty()) {
        deep.exchange(current);
        sweep();
      } else {
        deep.exchange_around(current, sweep);
        strips.redo(current, next, [&](std::size_t s, const View2D<T>& in, const View2D<T>& out) {
          strip_sweeps[s].run(in, out, strip_rhs[s], omega, weighted, count);
        });
      }
      std::swap(current, next);
      done += count;
      halo_current = false;
    }
    deep.exchange(current);
    halo_current = true;
    Sum sum = 0;
    reduce_rectangle<Sum>("poisson_residual", deep.block(), ResidualSquared<T, Sum>{current, rhs}, sum);
    stop = schedule.record(done, std::sqrt(local.global_sum(sum)));
  }
  arrays_watch.restart();
  copy_grid("poisson_deep_x_out", x, deep.near(current));
  halo = deep.statistics();
  halo.arrays_seconds = arrays_seconds + arrays_watch.seconds();
}

// A check restarts CG from the true residual when the recursive one has
// fallen below half of it (as on one rank, cg.cpp).
bool drifted(double true_norm, double recursive_rr) { return true_norm > 2 * std::sqrt(recursive_rr); }

template <class T>
void run_cg(RankArrays<T>& arrays, LocalGrid<T>& local, const View2D<T>& x, const SolverOptions& options,
            CheckSchedule& schedule, std::optional<HaloStatistics>& own_halo) {
  using Sum = typename LocalGrid<T>::Sum;
  const std::int64_t rows = x.extent(0), cols = x.extent(1);
  // Zero rings: on the grid's edge p must be 0 for q = A p (cg_kernels.hpp).
  View2D<T> r("poisson_cg_r", rows, cols), p("poisson_cg_p", rows, cols), q("poisson_cg_q", rows, cols);
  const bool jacobi = options.cg_preconditioner == CgPreconditioner::jacobi;
  RankMultigrid<T>* multigrid = nullptr;
  if (options.cg_preconditioner == CgPreconditioner::multigrid) {
    multigrid = &arrays.multigrid_for(options.multigrid, /*preconditioner=*/true);
    multigrid->start_preconditioning();
  }
  // Preconditioned: z = M^-1 r in its own array (the multigrid cycle's), r r and r z apart.
  const bool preconditioned = jacobi || multigrid != nullptr;
  const View2D<T> z = multigrid ? multigrid->z() : jacobi ? View2D<T>("poisson_cg_z", rows, cols) : r;
  CgBlockUpdate<T> update{x, r, p, z, q, T(0), T(0)};
  const auto precondition = [&] {
    if (jacobi) for_interior("poisson_cg_precondition", rows, cols, Tagged<PreconditionTag, CgBlockUpdate<T>>{update});
    if (multigrid) multigrid->apply(r);
  };
  const auto keep_statistics = [&] {
    if (multigrid) own_halo = multigrid->statistics();
  };
  // r from scratch, then z and p = z; returns r r.
  const auto replace_residual = [&] {
    local.exchange(x);
    Sum rr = 0;
    reduce_interior<Sum>("poisson_cg_true_residual", rows, cols, TrueResidual<T, Sum>{x, local.rhs(), r}, rr);
    precondition();
    Kokkos::deep_copy(p, z);
    return local.global_sum(rr);
  };
  double rr = replace_residual();
  double rz = preconditioned ? local.dot(r, z) : rr;
  std::int64_t done = 0;
  for (bool stop = false; !stop;) {
    // q = A p holds already when the last step's direction update computed
    // it (overlapped with p's exchange); not after a check, which may have
    // replaced p.
    bool applied = false;
    for (const std::int64_t until = schedule.next_check(done); done < until; ++done) {
      if (!applied) {
        local.exchange(p);
        for_interior("poisson_cg_apply", rows, cols, ApplyOperator<T>{p, q});
      }
      const double pq = local.dot(p, q);
      if (!(pq > 0)) {  // r = 0 exactly, or rounding broke A's positivity
        local.exchange(x);
        schedule.stop(done, local.residual_norm(x), "breakdown");
        keep_statistics();
        return;
      }
      update.alpha = static_cast<T>(rz / pq);
      for_interior("poisson_cg_advance", rows, cols, Tagged<AdvanceTag, CgBlockUpdate<T>>{update});
      precondition();
      const double rz_next = preconditioned ? local.dot(r, z) : local.dot(r, r);
      update.beta = static_cast<T>(rz_next / rz);
      const Tagged<DirectionTag, CgBlockUpdate<T>> direction{update};
      applied = done + 1 < until;  // another step before the check: its operator now, overlapped
      if (applied)
        local.direction_and_operator(direction, p, q);
      else
        for_interior("poisson_cg_direction", rows, cols, direction);
      rz = rz_next;
    }
    rr = preconditioned ? local.dot(r, r) : rz;
    local.exchange(x);
    double norm = local.residual_norm(x);
    if (drifted(norm, rr)) {
      rr = replace_residual();
      rz = preconditioned ? local.dot(r, z) : rr;
      norm = std::sqrt(rr);
    }
    stop = schedule.record(done, norm);
  }
  keep_statistics();
}

// A deep halo reaches one neighbour only: every block at least `depth`
// points across in each direction the grid is split. Every rank finds the
// same answer (the smallest blocks are the process grid's last ones).
void check_deep_halo(const distributed::GridDecomposition& grid, int depth) {
  const std::string why = deep_halo_refusal(grid.dims(), grid.global_rows() - 2, grid.global_cols() - 2, depth);
  if (!why.empty())
    throw OptionError("sweeps_per_launch",
                      "jacobi_blocked over MPI ranks: " + why + ": use fewer sweeps per launch or fewer ranks");
}

// Relative disagreement allowed between the last check and the re-check of
// the returned x (as solve() does on one rank).
constexpr double recheck_agreement = 1e-3;

}  // namespace

std::string deep_halo_refusal(const std::array<int, 2>& dims, std::int64_t interior_rows, std::int64_t interior_cols,
                              std::int64_t depth) {
  const std::int64_t rows = interior_rows / dims[0], cols = interior_cols / dims[1];
  if ((dims[0] == 1 || rows >= depth) && (dims[1] == 1 || cols >= depth)) return {};
  return std::to_string(depth) + " sweeps a launch need blocks at least " + std::to_string(depth) +
         " points across where the grid is split; a " + std::to_string(dims[0]) + "x" + std::to_string(dims[1]) +
         " process grid leaves blocks of " + std::to_string(rows) + "x" + std::to_string(cols);
}

template <class T>
SolveReport solve_distributed(const distributed::GridDecomposition& grid, const View2D<T>& x, const View2D<T>& rhs,
                              const SolverOptions& asked, const CheckCallback& on_check, HaloStatistics* halo,
                              DistributedWorkspace<T>* workspace) {
  check(asked);
  SolverOptions options = asked;
  if (options.method == Method::automatic) options.method = Method::jacobi;
  const bool cg = options.method == Method::cg || options.method == Method::cg_fused;
  const bool blocked = options.method == Method::jacobi_blocked;
  const bool multigrid = options.method == Method::multigrid;
  if (options.method != Method::jacobi && !blocked && !cg && !multigrid)
    throw OptionError("method", "Poisson over " + std::to_string(grid.size()) + " MPI ranks: method " +
                                    name_of(options.method) +
                                    " does not run distributed yet; jacobi, jacobi_blocked, cg and multigrid do");
  if (blocked && options.blocked_kernel == BlockedKernel::resident)
    throw OptionError("blocked_kernel",
                      "jacobi_blocked over MPI ranks: blocked kernel resident keeps the whole grid in one launch; use "
                      "tiles, registers or auto");
  if (blocked) check_deep_halo(grid, options.sweeps_per_launch);
  if (options.boundary != Boundary::dirichlet)
    throw OptionError("boundary", "Poisson over MPI ranks: boundary " + name_of(options.boundary) +
                                      " does not run distributed yet; dirichlet does");
  const auto expect_rows = static_cast<std::size_t>(grid.rows_owned().count + 2);
  const auto expect_cols = static_cast<std::size_t>(grid.cols_owned().count + 2);
  if (x.extent(0) != expect_rows || x.extent(1) != expect_cols || rhs.extent(0) != expect_rows ||
      rhs.extent(1) != expect_cols)
    throw std::invalid_argument("Poisson over MPI ranks: rank " + std::to_string(grid.rank()) + "'s arrays are " +
                                std::to_string(x.extent(0)) + "x" + std::to_string(x.extent(1)) + " and " +
                                std::to_string(rhs.extent(0)) + "x" + std::to_string(rhs.extent(1)) +
                                ", its block with ring " + std::to_string(expect_rows) + "x" +
                                std::to_string(expect_cols));

  DistributedWorkspace<T> this_call;  // without a caller's workspace, kept for this call alone
  DistributedWorkspace<T>& kept = workspace ? *workspace : this_call;
  if (!kept.kept || !kept.kept->fits(grid)) {
    kept.kept.reset();  // its memory and links first
    kept.kept = std::make_shared<RankArrays<T>>(grid);
  }
  RankArrays<T>& arrays = *kept.kept;
  ++arrays.calls;
  LocalGrid<T> local(grid, rhs, arrays.ring_one);
  local.exchange(x);
  CheckSchedule schedule(options, local.reference_norm(x), on_check);
  std::optional<HaloStatistics> deep_halo;  // jacobi_blocked's and multigrid's own exchanges
  if (!schedule.record(0, local.residual_norm(x))) {
    if (cg)
      run_cg(arrays, local, x, options, schedule, deep_halo);
    else if (multigrid) {
      RankMultigrid<T>& hierarchy = arrays.multigrid_for(options.multigrid, /*preconditioner=*/false);
      hierarchy.solve(x, rhs, schedule, [&] {
        local.exchange(x);
        return local.residual_norm(x);
      });
      deep_halo = hierarchy.statistics();
    } else if (blocked)
      run_jacobi_blocked(local, arrays, x, options, schedule, deep_halo.emplace());
    else
      run_jacobi(local, arrays, x, options, schedule);
  }
  SolveReport& report = schedule.report();
  local.exchange(x);
  const double norm = local.residual_norm(x);
  const double relative = report.reference_norm > 0 ? norm / report.reference_norm : norm;
  if (!std::isfinite(relative) ||
      std::abs(relative - report.relative_residual) > recheck_agreement * std::max(relative, report.relative_residual))
    throw SolverError("Poisson " + name_of(options.method) +
                      " over MPI ranks: the solution's residual re-checked from scratch is " +
                      std::to_string(relative) + ", not the " + std::to_string(report.relative_residual) +
                      " its last check measured: the result is not trusted");
  report.method = options.method;
  if (halo) {
    *halo = local.statistics();
    if (deep_halo) {
      halo->seconds += deep_halo->seconds;
      halo->exchanges += deep_halo->exchanges;
      halo->arrays_seconds = deep_halo->arrays_seconds;
    }
  }
  return report;
}

template SolveReport solve_distributed<float>(const distributed::GridDecomposition&, const View2D<float>&,
                                              const View2D<float>&, const SolverOptions&, const CheckCallback&,
                                              HaloStatistics*, DistributedWorkspace<float>*);
template SolveReport solve_distributed<double>(const distributed::GridDecomposition&, const View2D<double>&,
                                               const View2D<double>&, const SolverOptions&, const CheckCallback&,
                                               HaloStatistics*, DistributedWorkspace<double>*);
template struct DistributedWorkspace<float>;
template struct DistributedWorkspace<double>;

}  // namespace portasolve::poisson
