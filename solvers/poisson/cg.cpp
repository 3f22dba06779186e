// Conjugate gradients: the textbook loop on Kokkos Kernels' BLAS (operator
// matrix-free or an assembled CrsMatrix through spmv), the preconditioned
// matrix-free loop with its scalars on the device, and the fused loop.
#include <KokkosBlas1_axpby.hpp>
#include <KokkosBlas1_dot.hpp>
#include <KokkosBlas1_scal.hpp>
#include <KokkosSparse_CrsMatrix.hpp>
#include <KokkosSparse_spmv.hpp>
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>

#include "core/errors.hpp"
#include "core/grid_range.hpp"
#include "core/kokkos_session.hpp"
#include "core/spaces.hpp"
#include "core/workspace_cache.hpp"
#include "solvers/poisson/detail/cg_kernels.hpp"
#include "solvers/poisson/detail/cg_resident.hpp"
#include "solvers/poisson/detail/methods.hpp"
#include "solvers/poisson/detail/multigrid_preconditioner.hpp"

namespace portasolve::poisson::detail {

namespace {

template <class T>
using Flat = Kokkos::View<T*, Kokkos::LayoutRight, MemSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

template <class T>
Flat<T> flat(const View2D<T>& v) {
  return Flat<T>(v.data(), v.size());
}

template <class T>
View2D<T> zero_grid(const ExecSpace& exec, const char* label, std::int64_t rows, std::int64_t cols) {
  return zeroed_on<View2D<T>>(exec, label, rows, cols);
}

// Kokkos Kernels of this build (Trilinos 13.2) has no execution space
// overloads: its BLAS and spmv launch on the default instance. On another
// instance, a call waits for exec's work before it, and exec's later work
// waits for the call (a fence of the default instance after it); on the
// default instance it runs as it is. Which one exec is, is asked once.
class KernelsCalls {
 public:
  explicit KernelsCalls(const ExecSpace& exec) : exec_(exec), other_(!is_default_instance(exec)) {}

  // Runs call() (Kokkos Kernels calls) so; returns what it returns.
  template <class Call>
  auto operator()(const Call& call) const {
    if (other_) exec_.fence();
    if constexpr (std::is_void<decltype(call())>::value) {
      call();
      if (other_) default_.fence();
    } else {
      const auto result = call();
      if (other_) default_.fence();
      return result;
    }
  }

 private:
  const ExecSpace& exec_;
  ExecSpace default_;
  bool other_;
};

using Ordinal = int;
using Offset = std::int64_t;  // 5 entries a row overflow int beyond ~20000^2 points

template <class T>
using CrsMatrix = KokkosSparse::CrsMatrix<T, Ordinal, Kokkos::Device<ExecSpace, MemSpace>, void, Offset>;

// Row lengths of -L on the whole grid: 1 + interior neighbours for interior
// points, 0 for the ring (their rows are empty, so spmv leaves q's ring 0).
struct RowLengths {
  Kokkos::View<Offset*, MemSpace> row_map;
  std::int64_t rows, cols;
  KOKKOS_INLINE_FUNCTION bool interior(std::int64_t i, std::int64_t j) const {
    return i >= 1 && i < rows - 1 && j >= 1 && j < cols - 1;
  }
  KOKKOS_INLINE_FUNCTION Offset length(std::int64_t point) const {
    const std::int64_t i = point / cols, j = point % cols;
    if (!interior(i, j)) return 0;
    return 1 + interior(i - 1, j) + interior(i + 1, j) + interior(i, j - 1) + interior(i, j + 1);
  }
  // Exclusive scan into row_map(point), the total into row_map(rows * cols).
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t point, Offset& offset, const bool final) const {
    const Offset n = point < rows * cols ? length(point) : 0;
    if (final) row_map(point) = offset;
    offset += n;
  }
};

template <class T>
struct FillRows {
  RowLengths lengths;
  Kokkos::View<Ordinal*, MemSpace> columns;
  Kokkos::View<T*, MemSpace> values;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t point) const {
    const std::int64_t i = point / lengths.cols, j = point % lengths.cols;
    if (!lengths.interior(i, j)) return;
    Offset k = lengths.row_map(point);
    const auto add = [&](std::int64_t ni, std::int64_t nj, T value) {
      if (!lengths.interior(ni, nj)) return;
      columns(k) = static_cast<Ordinal>(ni * lengths.cols + nj);
      values(k) = value;
      ++k;
    };
    add(i - 1, j, T(-1));
    add(i, j - 1, T(-1));
    add(i, j, T(4));
    add(i, j + 1, T(-1));
    add(i + 1, j, T(-1));
  }
};

template <class T>
CrsMatrix<T> assemble(const ExecSpace& exec, std::int64_t rows, std::int64_t cols) {
  const std::int64_t n = rows * cols;
  if (n > std::int64_t(std::numeric_limits<Ordinal>::max()))
    throw OptionError("cg_operator", "cg with the crs operator: " + std::to_string(n) +
                                         " grid points exceed the matrix's 32-bit column indices; use matrix_free");
  // The scan writes every entry of the row map.
  RowLengths lengths{
      Kokkos::View<Offset*, MemSpace>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "poisson_row_map"), n + 1), rows,
      cols};
  Kokkos::parallel_scan("poisson_row_map", Kokkos::RangePolicy<ExecSpace>(exec, 0, n + 1), lengths);
  // The total, row_map(n), read here: Kokkos 3.4's CUDA scan with a total
  // copies it by a cudaMemcpy on the legacy default stream without waiting
  // for the instance, so on a non-blocking stream it read a stale value
  // (compute-sanitizer: FillRows wrote past the arrays sized by it).
  Offset entries = 0;
  Kokkos::deep_copy(exec, entries, Kokkos::subview(lengths.row_map, n));
  exec.fence();  // the copy into a host value is asynchronous on GPUs
  Kokkos::View<Ordinal*, MemSpace> columns(Kokkos::view_alloc(Kokkos::WithoutInitializing, "poisson_columns"), entries);
  Kokkos::View<T*, MemSpace> values(Kokkos::view_alloc(Kokkos::WithoutInitializing, "poisson_values"), entries);
  Kokkos::parallel_for("poisson_fill_rows", Kokkos::RangePolicy<ExecSpace>(exec, 0, n),
                       FillRows<T>{lengths, columns, values});
  return CrsMatrix<T>("poisson_minus_laplacian", static_cast<Ordinal>(n), static_cast<Ordinal>(n), entries, values,
                      lengths.row_map, columns);
}

// A check restarts CG from the true residual when the recursive one has
// fallen below half of it: rounding has taken over the recurrence.
bool drifted(double true_norm, double recursive_rr) { return true_norm > 2 * std::sqrt(recursive_rr); }

// The host side of a CG loop whose scalars stay on the device (cg_fused and
// the preconditioned loop): restart(0), then steps(first, count,
// restart_step) up to each check, where the scalars are read once, the true
// residual is measured, CG restarts from it (restart(step)) if the recursive
// r drifted, and a breakdown (p q <= 0 in pq_slot) stops the solve.
// rr_slot(done): the slot holding r r after `done` steps.
template <class T, class Scalars, class RrSlot, class Steps, class Restart>
void run_device_scalar_loop(const ExecSpace& exec, const View2D<T>& x, const View2D<T>& rhs, const Scalars& scalars,
                            int pq_slot, const RrSlot& rr_slot, const Steps& steps, const Restart& restart,
                            CheckSchedule& schedule) {
  const auto host_scalars = Kokkos::create_mirror_view(scalars);
  // The scalars on the host, once exec has written them (the copy is
  // asynchronous on GPUs).
  const auto read_scalars = [&] {
    Kokkos::deep_copy(exec, host_scalars, scalars);
    exec.fence();
  };
  restart(0);
  std::int64_t restart_step = 0;
  std::int64_t done = 0;
  for (bool stop = false; !stop;) {
    const std::int64_t check = schedule.next_check(done);
    steps(done, check - done, restart_step);
    done = check;
    read_scalars();
    double norm = residual_norm(exec, x, rhs);
    if (drifted(norm, static_cast<double>(host_scalars(rr_slot(done))))) {
      restart(done);
      restart_step = done;
      read_scalars();
      norm = std::sqrt(static_cast<double>(host_scalars(rr_slot(done))));
    }
    if (!(host_scalars(pq_slot) > 0) && done > 0) {  // r = 0 exactly, or rounding broke A's positivity
      schedule.stop(done, norm, "breakdown");
      return;
    }
    stop = schedule.record(done, norm);
  }
}

// Runs cg_fused's steps [first, first + steps), restarting (beta = 0) at
// step `restart`; the scalars stay on the device.
using StepRunner = std::function<void(std::int64_t first, std::int64_t steps, std::int64_t restart)>;

// Two launches a step (cg_kernels.hpp).
template <class T, class Sum>
StepRunner launched_steps(const ExecSpace& exec, const View2D<T>& x, const View2D<T>& r, const View2D<T>& p,
                          const View2D<T>& q, const typename FusedCg<T, Sum>::Scalars& scalars) {
  using Kernel = FusedCg<T, Sum>;
  return [=](std::int64_t first, std::int64_t steps, std::int64_t restart) {
    const std::int64_t rows = x.extent(0), cols = x.extent(1);
    for (std::int64_t step = first; step < first + steps; ++step) {
      const Kernel kernel{x, r, p, q, scalars, step, restart};
      reduce_interior<Sum, typename Kernel::Direction>(exec, "poisson_cg_direction", rows, cols, kernel,
                                                       Kokkos::subview(scalars, static_cast<int>(Kernel::pq_slot)));
      reduce_interior<Sum, typename Kernel::Update>(exec, "poisson_cg_update", rows, cols, kernel,
                                                    Kokkos::subview(scalars, (step + 1) & 1));
    }
  };
}

// Resident launches (cg_resident.hpp), a team per compute unit.
template <class T, class Sum>
StepRunner resident_steps(const ExecSpace& exec, const View2D<T>& x, const View2D<T>& r, const View2D<T>& p,
                          const View2D<T>& q, const typename FusedCg<T, Sum>::Scalars& scalars) {
  using Kernel = ResidentCg<T, Sum>;
  const std::int64_t points = (std::int64_t(x.extent(0)) - 2) * (std::int64_t(x.extent(1)) - 2);
  const int teams = static_cast<int>(std::min<std::int64_t>(compute_units(), points));
  const auto partials = zeroed_on<typename Kernel::Partials>(exec, "poisson_cg_partials", 2, teams);
  const auto arrivals = zeroed_on<Kokkos::View<int, MemSpace>>(exec, "poisson_cg_arrivals");
  const auto stalled = zeroed_on<Kokkos::View<int, MemSpace>>(exec, "poisson_cg_stalled");
  // Two barriers a step, each counting every team: keep the count an int.
  const std::int64_t most_steps = std::numeric_limits<int>::max() / (2 * std::int64_t(teams)) - 1;
  const long long patience = resident_patience_from_environment();
  const std::uint64_t lag = resident_lag_from_environment();
  return [=](std::int64_t first, std::int64_t steps, std::int64_t restart) {
    for (std::int64_t step = first; step < first + steps; step += most_steps) {
      Kokkos::deep_copy(exec, arrivals, 0);
      const Kernel kernel{x,        r,        p,        q,
                          scalars,  partials, arrivals, stalled,
                          patience, step,     restart,  static_cast<int>(std::min(most_steps, first + steps - step)),
                          lag};
      Kokkos::parallel_for("poisson_cg_resident",
                           typename Kernel::Policy(exec, teams, resident_cg_team_size).set_chunk_size(1), kernel);
    }
    int stall = 0;
    Kokkos::deep_copy(exec, stall, stalled);
    exec.fence();  // the copy into a host value is asynchronous on GPUs
    if (stall)
      throw SolverError(
          "cg_fused: the resident kernel's teams did not all run at once (is the device shared with "
          "other work?); use poisson.cg.kernel: launches");
  };
}

}  // namespace

// A solve's vectors, assembled matrix and multigrid preconditioner, kept for
// the next solve of the same grid and options (core/workspace_cache.hpp): on
// the talk's grid their allocation cost more than the solve. Their rings
// are zeroed (r's, from which z and p follow) and their insides written
// before they are read.
template <class T>
struct CgWorkspace {
  // The multigrid options only where they build the preconditioner.
  using Key = std::tuple<std::int64_t, std::int64_t, CgOperator, CgPreconditioner, MultigridKey>;
  static Key key_of(const View2D<T>& x, const SolverOptions& o) {
    const bool multigrid = o.cg_preconditioner == CgPreconditioner::multigrid;
    return Key{std::int64_t(x.extent(0)), std::int64_t(x.extent(1)), o.cg_operator, o.cg_preconditioner,
               multigrid_key(multigrid ? o.multigrid : MultigridOptions{})};
  }
  CgWorkspace(const ExecSpace& exec, std::int64_t rows, std::int64_t cols, const SolverOptions& options)
      : r(zero_grid<T>(exec, "poisson_cg_r", rows, cols)),
        p(zero_grid<T>(exec, "poisson_cg_p", rows, cols)),
        q(zero_grid<T>(exec, "poisson_cg_q", rows, cols)),
        // without a preconditioner z is r itself (the plain iteration)
        z(options.cg_preconditioner == CgPreconditioner::none ? r : zero_grid<T>(exec, "poisson_cg_z", rows, cols)) {
    if (options.cg_operator == CgOperator::crs) matrix = assemble<T>(exec, rows, cols);
    if (options.cg_preconditioner == CgPreconditioner::multigrid)
      multigrid = std::make_unique<MultigridPreconditioner<T>>(exec, rows, cols, options.multigrid);
  }
  View2D<T> r, p, q, z;
  CrsMatrix<T> matrix;
  std::unique_ptr<MultigridPreconditioner<T>> multigrid;
  // rz (two slots), pq, r r of the preconditioned loop on the device
  Kokkos::View<typename Accumulator<T>::type[4], MemSpace> device_scalars;
};

namespace {

// Preconditioned CG on the matrix-free operator with its scalars on the
// device (FusedPreconditionedCg, cg_kernels.hpp): three reductions and the
// preconditioner's launches a step, none waited for by the host, which
// reads the scalars at checks only. (The textbook loop below waits for each
// of its four dot products a step: on the talk's grid those waits and
// launches cost more than the multigrid cycle's arithmetic.)
template <class T>
void run_preconditioned_on_device(const ExecSpace& exec, const View2D<T>& x, const View2D<T>& rhs,
                                  CgWorkspace<T>& workspace, CheckSchedule& schedule) {
  using Sum = typename Accumulator<T>::type;
  using Kernel = FusedPreconditionedCg<T, Sum>;
  const std::int64_t rows = x.extent(0), cols = x.extent(1);
  const View2D<T> r = workspace.r, p = workspace.p, q = workspace.q, z = workspace.z;
  if (!workspace.device_scalars.is_allocated())
    workspace.device_scalars = zeroed_on<typename Kernel::Scalars>(exec, "poisson_pcg_scalars");
  const typename Kernel::Scalars scalars = workspace.device_scalars;
  const auto slot = [&](int k) { return Kokkos::subview(scalars, k); };
  MultigridPreconditioner<T>* multigrid = workspace.multigrid.get();
  // z = M^-1 r. Only the interior of z, p and q is ever written here: their
  // rings keep the zeros they were allocated with.
  const auto precondition = [&] {
    if (multigrid)
      multigrid->apply(exec, r, z);
    else
      for_interior(exec, "poisson_cg_jacobi", rows, cols, JacobiPreconditioner<T>{r, z});
  };
  // (Re)start at `step` from the true residual: r, its r r, z and r z.
  const auto restart = [&](std::int64_t step) {
    reduce_interior<Sum>(exec, "poisson_cg_true_residual", rows, cols, TrueResidual<T, Sum>{x, rhs, r},
                         slot(Kernel::rr_slot));
    precondition();
    reduce_interior<Sum, typename Kernel::Rz>(exec, "poisson_pcg_rz", rows, cols,
                                              Kernel{x, r, z, p, q, scalars, step, step}, slot(step & 1));
  };
  const auto steps = [&](std::int64_t first, std::int64_t count, std::int64_t restart_step) {
    for (std::int64_t step = first; step < first + count; ++step) {
      const Kernel kernel{x, r, z, p, q, scalars, step, restart_step};
      reduce_interior<Sum, typename Kernel::Direction>(exec, "poisson_pcg_direction", rows, cols, kernel,
                                                       slot(Kernel::pq_slot));
      reduce_interior<Sum, typename Kernel::Update>(exec, "poisson_pcg_update", rows, cols, kernel,
                                                    slot(Kernel::rr_slot));
      precondition();
      reduce_interior<Sum, typename Kernel::Rz>(exec, "poisson_pcg_rz", rows, cols, kernel, slot((step + 1) & 1));
    }
  };
  run_device_scalar_loop(
      exec, x, rhs, scalars, Kernel::pq_slot, [](std::int64_t) { return int(Kernel::rr_slot); }, steps, restart,
      schedule);
}

}  // namespace

template <class T>
void run_cg(const ExecSpace& exec, const View2D<T>& x, const View2D<T>& rhs, const SolverOptions& options,
            CheckSchedule& schedule) {
  const std::int64_t rows = x.extent(0), cols = x.extent(1);
  // A kept workspace was last used by a solve that ended with a fence of its
  // instance: nothing of that solve still runs on it.
  const BorrowedWorkspace<CgWorkspace<T>> workspace(CgWorkspace<T>::key_of(x, options),
                                                    [&] { return CgWorkspace<T>(exec, rows, cols, options); });
  const bool assembled = options.cg_operator == CgOperator::crs;
  if (options.cg_preconditioner != CgPreconditioner::none && !assembled) {
    run_preconditioned_on_device(exec, x, rhs, *workspace, schedule);
    return;
  }
  const View2D<T> r = workspace->r, p = workspace->p, q = workspace->q, z = workspace->z;
  const CrsMatrix<T>& matrix = workspace->matrix;
  const KernelsCalls on_default_instance(exec);
  const auto apply = [&] {
    if (assembled)
      on_default_instance([&] { KokkosSparse::spmv("N", T(1), matrix, flat(p), T(0), flat(q)); });
    else
      for_interior(exec, "poisson_cg_apply", rows, cols, ApplyOperator<T>{p, q});
  };

  // z = M^-1 r; without a preconditioner z is r itself (the plain iteration).
  const CgPreconditioner preconditioner = options.cg_preconditioner;
  MultigridPreconditioner<T>* multigrid = workspace->multigrid.get();
  const auto precondition = [&] {
    if (preconditioner == CgPreconditioner::jacobi)  // A's diagonal
      on_default_instance([&] { KokkosBlas::scal(flat(z), T(1) / T(4), flat(r)); });
    if (multigrid) multigrid->apply(exec, r, z);
  };
  const auto dot = [&](const View2D<T>& a, const View2D<T>& b) {
    return on_default_instance([&] { return KokkosBlas::dot(flat(a), flat(b)); });
  };

  using Sum = typename Accumulator<T>::type;
  // r from scratch, then z and the search direction; returns r r.
  const auto replace_residual = [&] {
    // r's ring is zero (z and p follow from r) whatever the last solve left.
    const ZeroRing<T> zero_ring{r};
    Kokkos::parallel_for("poisson_cg_zero_ring", Kokkos::RangePolicy<ExecSpace>(exec, 0, zero_ring.points()),
                         zero_ring);
    Sum rr_true = 0;
    reduce_interior<Sum>(exec, "poisson_cg_true_residual", rows, cols, TrueResidual<T, Sum>{x, rhs, r}, rr_true);
    precondition();
    Kokkos::deep_copy(exec, p, z);
    return static_cast<T>(rr_true);
  };
  T rr = replace_residual();
  T rz = preconditioner == CgPreconditioner::none ? rr : dot(r, z);
  std::int64_t done = 0;
  for (bool stop = false; !stop;) {
    const std::int64_t check = schedule.next_check(done);
    for (; done < check; ++done) {
      apply();
      const T pq = dot(p, q);
      if (!(pq > 0)) {  // r = 0 exactly, or rounding broke A's positivity
        schedule.stop(done, residual_norm(exec, x, rhs), "breakdown");
        return;
      }
      const T alpha = rz / pq;
      on_default_instance([&] {
        KokkosBlas::axpby(alpha, flat(p), T(1), flat(x));
        KokkosBlas::axpby(-alpha, flat(q), T(1), flat(r));
      });
      precondition();
      const T rz_next = dot(r, z);
      on_default_instance([&] { KokkosBlas::axpby(T(1), flat(z), rz_next / rz, flat(p)); });
      rz = rz_next;
    }
    // The drift test compares norms of r: preconditioned, r r is formed here.
    rr = preconditioner == CgPreconditioner::none ? rz : dot(r, r);
    double norm = residual_norm(exec, x, rhs);
    if (drifted(norm, static_cast<double>(rr))) {
      rr = replace_residual();
      rz = preconditioner == CgPreconditioner::none ? rr : dot(r, z);
      norm = std::sqrt(static_cast<double>(rr));
    }
    stop = schedule.record(done, norm);
  }
  exec.fence();  // a restart's copy into p may still run; p is freed on return
}

template <class T>
void run_cg_fused(const ExecSpace& exec, const View2D<T>& x, const View2D<T>& rhs, const SolverOptions& options,
                  CheckSchedule& schedule) {
  using Sum = typename Accumulator<T>::type;
  using Kernel = FusedCg<T, Sum>;
  const std::int64_t rows = x.extent(0), cols = x.extent(1);
  View2D<T> r = zero_grid<T>(exec, "poisson_cg_r", rows, cols), p = zero_grid<T>(exec, "poisson_cg_p", rows, cols),
            q = zero_grid<T>(exec, "poisson_cg_q", rows, cols);
  const auto scalars = zeroed_on<typename Kernel::Scalars>(exec, "poisson_cg_scalars");
  const auto replace_residual = [&](std::int64_t step) {
    reduce_interior<Sum>(exec, "poisson_cg_true_residual", rows, cols, TrueResidual<T, Sum>{x, rhs, r},
                         Kokkos::subview(scalars, step & 1));
  };
  const StepRunner run_steps = chosen_cg_kernel(options) == CgKernel::resident
                                   ? resident_steps<T, Sum>(exec, x, r, p, q, scalars)
                                   : launched_steps<T, Sum>(exec, x, r, p, q, scalars);
  // r r alternates between two slots by step parity.
  run_device_scalar_loop(
      exec, x, rhs, scalars, Kernel::pq_slot, [](std::int64_t done) { return int(done & 1); }, run_steps,
      replace_residual, schedule);
}

#define PORTASOLVE_POISSON_CG(T)                                                                                       \
  template void run_cg<T>(const ExecSpace&, const View2D<T>&, const View2D<T>&, const SolverOptions&, CheckSchedule&); \
  template void run_cg_fused<T>(const ExecSpace&, const View2D<T>&, const View2D<T>&, const SolverOptions&,            \
                                CheckSchedule&);
PORTASOLVE_POISSON_CG(float)
PORTASOLVE_POISSON_CG(double)
#undef PORTASOLVE_POISSON_CG

}  // namespace portasolve::poisson::detail
