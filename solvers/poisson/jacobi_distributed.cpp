// Jacobi over MPI ranks: each sweep first updates the block's edge points,
// starts their exchange, updates the rest of the block while the halos
// travel, then writes the neighbours' edges into the ring.
#include <cmath>
#include <string>
#include <utility>

#include "core/errors.hpp"
#include "distributed/halo_exchange.hpp"
#include "distributed/mpi_session.hpp"
#include "solvers/poisson/check_schedule.hpp"
#include "solvers/poisson/distributed.hpp"
#include "solvers/poisson/methods.hpp"
#include "solvers/poisson/stencil.hpp"

namespace portasolve::poisson {

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

template <class T>
class DistributedJacobi {
  using Sum = typename Accumulator<T>::type;

 public:
  DistributedJacobi(const distributed::GridDecomposition& grid, const View2D<T>& rhs, const SolverOptions& options)
      : grid_(grid),
        rhs_(rhs),
        halo_(grid, 1),
        omega_(static_cast<T>(options.omega)),
        weighted_(options.omega != 1),
        rows_(static_cast<int>(grid.rows_owned().count)),
        cols_(static_cast<int>(grid.cols_owned().count)) {}

  double reference_norm(const View2D<T>& x) const {
    Sum sum = 0;
    reduce_interior<Sum>("poisson_reference_residual", x.extent(0), x.extent(1),
                         LocalZeroInteriorResidualSquared<T, Sum>{x, rhs_, grid_.north() == MPI_PROC_NULL,
                                                                  grid_.south() == MPI_PROC_NULL,
                                                                  grid_.west() == MPI_PROC_NULL,
                                                                  grid_.east() == MPI_PROC_NULL},
                         sum);
    return std::sqrt(distributed::ordered_sum(static_cast<double>(sum), grid_.comm()));
  }

  // ||B - L X||_2 over the whole grid's interior; x's halo must be current.
  double residual_norm(const View2D<T>& x) const {
    Sum sum = 0;
    reduce_interior<Sum>("poisson_residual", x.extent(0), x.extent(1), ResidualSquared<T, Sum>{x, rhs_}, sum);
    return std::sqrt(distributed::ordered_sum(static_cast<double>(sum), grid_.comm()));
  }

  void exchange(const View2D<T>& x) { halo_.exchange(x); }

  // One sweep current -> next, next's halo filled on return.
  void sweep(const View2D<T>& current, const View2D<T>& next) {
    const JacobiSweep<T> update{current, next, rhs_, omega_, weighted_};
    if (rows_ <= 2 || cols_ <= 2) {  // no inner points to overlap with
      for_rectangle("poisson_jacobi", GridRectangle{1, 1, rows_, cols_}, update);
      halo_.exchange(next);
      return;
    }
    // The frame: the points the neighbours need.
    for_rectangle("poisson_jacobi_edges", GridRectangle{1, 1, 1, cols_}, update);
    for_rectangle("poisson_jacobi_edges", GridRectangle{rows_, 1, 1, cols_}, update);
    for_rectangle("poisson_jacobi_edges", GridRectangle{2, 1, rows_ - 2, 1}, update);
    for_rectangle("poisson_jacobi_edges", GridRectangle{2, cols_, rows_ - 2, 1}, update);
    halo_.start(next);
    for_rectangle("poisson_jacobi_inner", GridRectangle{2, 2, rows_ - 2, cols_ - 2}, update);
    halo_.finish(next);
  }

  HaloStatistics statistics() const { return HaloStatistics{halo_.seconds(), halo_.exchanges(), halo_.device_aware()}; }

 private:
  const distributed::GridDecomposition& grid_;
  View2D<T> rhs_;
  distributed::HaloExchange<T> halo_;
  T omega_;
  bool weighted_;
  int rows_, cols_;
};

// Relative disagreement allowed between the last check and the re-check of
// the returned x (as solve() does on one rank).
constexpr double recheck_agreement = 1e-3;

}  // namespace

template <class T>
SolveReport solve_distributed(const distributed::GridDecomposition& grid, const View2D<T>& x, const View2D<T>& rhs,
                              const SolverOptions& asked, const CheckCallback& on_check, HaloStatistics* halo) {
  check(asked);
  SolverOptions options = asked;
  if (options.method == Method::automatic) options.method = Method::jacobi;
  if (options.method != Method::jacobi)
    throw OptionError("method", "Poisson over " + std::to_string(grid.size()) + " MPI ranks: method " +
                                    name_of(options.method) + " does not run distributed yet; jacobi does");
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

  DistributedJacobi<T> jacobi(grid, rhs, options);
  jacobi.exchange(x);
  CheckSchedule schedule(options, jacobi.reference_norm(x), on_check);
  View2D<T> current = x;
  if (!schedule.record(0, jacobi.residual_norm(x))) {
    View2D<T> next(Kokkos::view_alloc(Kokkos::WithoutInitializing, "poisson_jacobi_next"), x.extent(0), x.extent(1));
    Kokkos::deep_copy(next, x);  // the grid's boundary, which sweeps never write
    std::int64_t done = 0;
    for (bool stop = false; !stop;) {
      for (const std::int64_t until = schedule.next_check(done); done < until; ++done) {
        jacobi.sweep(current, next);
        std::swap(current, next);
      }
      stop = schedule.record(done, jacobi.residual_norm(current));
    }
  }
  if (current.data() != x.data()) Kokkos::deep_copy(x, current);
  SolveReport& report = schedule.report();
  const double norm = jacobi.residual_norm(x);
  const double relative = report.reference_norm > 0 ? norm / report.reference_norm : norm;
  if (!std::isfinite(relative) ||
      std::abs(relative - report.relative_residual) > recheck_agreement * std::max(relative, report.relative_residual))
    throw SolverError("Poisson jacobi over MPI ranks: the solution's residual re-checked from scratch is " +
                      std::to_string(relative) + ", not the " + std::to_string(report.relative_residual) +
                      " its last check measured: the result is not trusted");
  report.method = options.method;
  if (halo) *halo = jacobi.statistics();
  return report;
}

template SolveReport solve_distributed<float>(const distributed::GridDecomposition&, const View2D<float>&,
                                              const View2D<float>&, const SolverOptions&, const CheckCallback&,
                                              HaloStatistics*);
template SolveReport solve_distributed<double>(const distributed::GridDecomposition&, const View2D<double>&,
                                               const View2D<double>&, const SolverOptions&, const CheckCallback&,
                                               HaloStatistics*);

}  // namespace portasolve::poisson
