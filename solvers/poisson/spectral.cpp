// The spectral method: the Dirichlet problem solved directly, exact to
// rounding. With the boundary ring folded into the right-hand side, the
// interior (m = rows-2 by n = cols-2 points) satisfies L_m U + U L_n = B'
// with L_k the 1-D second difference of k points and zero ends. L_n's
// eigenvectors are the DST-I modes sin(pi (j+1)(q+1) / (n+1)), eigenvalues
//   lambda_q = 2 cos(pi (q+1) / (n+1)) - 2 = -4 sin^2(pi (q+1) / (2 (n+1))),
// the second form free of cancellation for the smooth modes. A DST-I along
// every row (fft/fft.hpp) turns the problem into one tridiagonal system per
// mode q down the columns,
//   u[i-1] + (lambda_q - 2) u[i] + u[i+1] = g[i],   u[-1] = u[m] = 0,
// solved by the Thomas algorithm; a second DST-I along the rows (S^-1 =
// S / (2(n+1))) gives U. Two transforms instead of four, no transposes, and
// the columns walked with consecutive threads on consecutive modes (Hockney's
// method). The neumann and periodic boundaries: spectral_whole_grid.cpp.
//
// Rows of a fast length (SpectralLength::fast). A DST-I of n points is an FFT
// of 2(n+1); where n+1 has a large prime factor (8192 columns: 8191) the
// libraries run Bluestein's algorithm, several times slower. The rows then run
// at n' > n, n'+1 of small factors: the interior is embedded in m x n' points
// whose column n (the right ring) becomes an unknown, and a source s on that
// column makes it equal the ring values g. By linearity the embedded solution
// is X0 + R s with X0 the solve without source and R s its response; on column
// n that is X0[:, n] + K s with K = sum_q w_q^2 (L_m + lambda_q)^-1 / (2(n'+1)),
// w_q = 2 sin(pi (n+1)(q+1) / (n'+1)). K is diagonal in the DST-I modes p of
// the columns: kappa_p is the (n, n) entry (counting from 0; c = n + 1 in
// capacitance_inverse, counting from 1) of (L_n' + nu_p)^-1, nu_p = L_m's
// eigenvalues, in closed form (capacitance_inverse below). So
//   s = K^-1 (g - X0[:, n])         (two DST-I of one column, length m)
// and the response is added to the modes before the inverse transform:
//   U_q += w_q (L_m + lambda_q)^-1 s / (2(n'+1))   (a second Thomas walk).
// Columns 0..n-1 then satisfy the original equations with column n = g; the
// columns beyond n are discarded. Cost: one reduction and one Thomas walk
// more, against two Bluestein transforms.
#include <cmath>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/workspace_cache.hpp"
#include "solvers/poisson/detail/methods.hpp"
#include "solvers/poisson/detail/spectral_columns.hpp"
#include "solvers/poisson/detail/spectral_kernels.hpp"
#include "solvers/poisson/detail/stencil.hpp"

namespace portasolve::poisson::detail {

namespace {

// The interior's points as (i, j), 0 <= i < m, 0 <= j < width (the rows'
// transform length, >= n): the kernels that fill the transform's input
// write zeros in the columns beyond the interior.
inline GridRectangle padded_interior(std::int64_t m, std::int64_t width) {
  return GridRectangle{0, 0, static_cast<int>(m), static_cast<int>(width)};
}

// folded(i, j) = B[i+1, j+1] minus the ring values among its neighbours:
// L X = B with X's ring fixed is L_interior U = folded. Only the points next
// to the ring have ring neighbours; the others copy B (the difference with
// four zeros, the same bits). An embedded solve leaves the right ring out
// (its column is an unknown there, enforced by the capacitance correction);
// the columns beyond the interior are zero.
template <class T>
struct FoldBoundary {
  View2D<const T> x, rhs;
  View2D<T> folded;
  bool fold_right_ring;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i, const std::int64_t j) const {
    const std::int64_t m = x.extent(0) - 2, n = x.extent(1) - 2;
    if (j >= n) {
      folded(i, j) = T(0);
    } else if (i > 0 && i + 1 < m && j > 0 && j + 1 < n) {
      folded(i, j) = rhs(i + 1, j + 1);
    } else {
      const T right = fold_right_ring || j + 1 < n ? ring_value(x, i + 1, j + 2) : T(0);
      folded(i, j) =
          rhs(i + 1, j + 1) - (ring_value(x, i, j + 1) + ring_value(x, i + 2, j + 1) + ring_value(x, i + 1, j) + right);
    }
  }
};

template <class T>
struct WriteInterior {
  View2D<const T> interior;
  View2D<T> x;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i, const std::int64_t j) const {
    x(i, j) = interior(i - 1, j - 1);
  }
};

// The residual B - L X of the whole current x (ring included) on the
// interior, formed in Sum and rounded once: a refinement step's right-hand
// side, with a zero ring (the correction's boundary); zeros beyond column n.
template <class T>
struct InteriorResidual {
  View2D<const T> x, rhs;
  View2D<T> residual;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i, const std::int64_t j) const {
    using Sum = typename Accumulator<T>::type;
    residual(i, j) =
        j < std::int64_t(x.extent(1)) - 2 ? T(Sum(rhs(i + 1, j + 1)) - laplacian_at<Sum>(x, i + 1, j + 1)) : T(0);
  }
};

template <class T>
struct AddCorrection {
  View2D<const T> correction;
  View2D<T> x;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i, const std::int64_t j) const {
    x(i, j) += correction(i - 1, j - 1);
  }
};

// The embedded solve's mismatch on the ring's column n: target(i) - X0(i, n),
// X0(i, n) = sum_q w_q modes(i, q) (the inverse transform's value there),
// summed in double by a team per row. target is the right ring of x, or zero
// (a refinement step's correction).
template <class T>
struct RingColumnMismatch {
  View2D<const T> modes, x;
  View1D<const double> weights;
  bool zero_target;
  View2D<double> mismatch;  // 1 x m, the column transform's row
  using Team = Kokkos::TeamPolicy<ExecSpace>::member_type;
  KOKKOS_INLINE_FUNCTION void operator()(const Team& team) const {
    const int i = team.league_rank();
    double value = 0;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, int(modes.extent(1))),
        [&](const int q, double& sum) { sum += weights(q) * double(modes(i, q)); }, value);
    Kokkos::single(Kokkos::PerTeam(team), [&] {
      const double target = zero_target ? 0.0 : double(x(i + 1, x.extent(1) - 1));
      mismatch(0, i) = target - value;
    });
  }
};

struct ScaleColumnModes {
  View2D<double> values;
  View1D<const double> factors;
  KOKKOS_INLINE_FUNCTION void operator()(const int p) const { values(0, p) *= factors(p); }
};

// 1 / (kappa_p 2(m+1)) for the columns' modes p: kappa_p, the (c, c) entry
// (c = n + 1 of 1..N, N = n') of (L_N + nu_p)^-1, nu_p = -mu_p = -4 sin^2(pi
// (p+1) / (2(m+1))), is -sinh(c theta) sinh((N+1-c) theta) / (sinh(theta)
// sinh((N+1) theta)) with cosh(theta) = 1 + mu_p / 2 (the 1-D Green's
// function), written with t = exp(-theta) and expm1 so that neither large
// N theta overflows nor small theta cancels; theta = 2 asinh(sqrt(mu_p) / 2).
// The 2(m+1) is the column transform's inverse scale.
inline std::vector<double> capacitance_inverse(std::int64_t m, std::int64_t n, std::int64_t width) {
  const double pi = std::acos(-1.0);
  const double c = double(n + 1), size = double(width);
  std::vector<double> values(static_cast<std::size_t>(m));
  for (std::int64_t p = 0; p < m; ++p) {
    const double theta = 2 * std::asinh(std::sin(pi * double(p + 1) / double(2 * (m + 1))));
    const double one_minus = -std::expm1(-2 * theta);
    const double green = std::exp(-theta) * -std::expm1(-2 * c * theta) * -std::expm1(-2 * (size + 1 - c) * theta) /
                         (one_minus * -std::expm1(-2 * (size + 1) * theta));
    values[std::size_t(p)] = 1 / (-green * double(2 * (m + 1)));
  }
  return values;
}

inline View1D<double> device_copy(const ExecSpace& exec, const char* label, const std::vector<double>& values) {
  View1D<double> device(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), values.size());
  const Kokkos::View<const double*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> host(values.data(),
                                                                                                     values.size());
  Kokkos::deep_copy(exec, device, host);
  exec.fence();  // the host vector goes with the caller
  return device;
}

// What a Dirichlet solve of one shape needs besides x and B: built once and
// kept for the next solve of that shape (core/workspace_cache.hpp). The rows
// are `width` long (spectral_row_length); an embedded solve (width > n) also
// keeps the capacitance correction's column transform and factors.
template <class T>
struct DirichletWorkspace {
  using Key = std::tuple<std::int64_t, std::int64_t, fft::Implementation, std::int64_t>;  // rows, cols, FFT, width
  std::int64_t width;
  View2D<T> interior, modes, factors;
  fft::Plan<T> row_transform;
  // Embedded solves only.
  std::optional<fft::Plan<double>> column_transform;
  View1D<double> ring_weights, capacitance;
  View2D<double> column, column_modes;

  // Built on exec (its Thomas factors computed there); a kept workspace was
  // last used by a solve that ended with a host reduction on its instance,
  // so nothing still runs on it when another solve takes it.
  DirichletWorkspace(const ExecSpace& exec, std::int64_t m, std::int64_t n, std::int64_t width_,
                     fft::Implementation fft)
      : width(width_),
        interior(spectral_grid<T>("spectral_interior", m, width)),
        modes(spectral_grid<T>("spectral_modes", m, width)),
        factors(spectral_grid<T>("spectral_thomas_factors", m, width)),
        row_transform(fft::Kind::dst1, width, m, fft::Planning::estimate, fft::Threading::library, fft) {
    const View1D<double> eigenvalues =
        second_difference_eigenvalues<double>(exec, width, 1, std::acos(-1.0) / double(2 * (width + 1)));
    Kokkos::parallel_for("spectral_thomas_factors", Kokkos::RangePolicy<ExecSpace>(exec, 0, width),
                         ThomasFactors<T>{factors, eigenvalues});
    if (width == n) return;
    column_transform.emplace(fft::Kind::dst1, m, 1, fft::Planning::estimate, fft::Threading::library, fft);
    column = spectral_grid<double>("spectral_ring_column", 1, m);
    column_modes = spectral_grid<double>("spectral_ring_column_modes", 1, m);
    const double pi = std::acos(-1.0);
    std::vector<double> weights(static_cast<std::size_t>(width));
    for (std::int64_t q = 0; q < width; ++q)
      weights[std::size_t(q)] = 2 * std::sin(pi * double((n + 1) * (q + 1) % (2 * (width + 1))) / double(width + 1));
    ring_weights = device_copy(exec, "spectral_ring_weights", weights);
    capacitance = device_copy(exec, "spectral_capacitance", capacitance_inverse(m, n, width));
  }
};

// U = L_interior^-1 of w.interior, in place; an embedded solve makes column
// n equal the right ring of x (zero_ring: zero, a refinement's correction).
template <class T>
void apply_inverse(const ExecSpace& exec, DirichletWorkspace<T>& w, const View2D<T>& x, bool zero_ring) {
  const std::int64_t m = w.interior.extent(0), width = w.width;
  const double scale = 1.0 / double(2 * (width + 1));
  w.row_transform.execute(exec, w.interior, w.modes);
  solve_columns<SolveModes>(exec, "spectral_column_solve", ColumnSolve<T>{w.modes, w.factors, scale, {}, {}, {}});
  if (w.column_transform) {
    Kokkos::parallel_for("spectral_ring_mismatch", Kokkos::TeamPolicy<ExecSpace>(exec, int(m), Kokkos::AUTO),
                         RingColumnMismatch<T>{w.modes, x, w.ring_weights, zero_ring, w.column});
    w.column_transform->execute(exec, w.column, w.column_modes);
    Kokkos::parallel_for("spectral_capacitance", Kokkos::RangePolicy<ExecSpace>(exec, 0, m),
                         ScaleColumnModes{w.column_modes, w.capacitance});
    w.column_transform->execute(exec, w.column_modes, w.column);
    const View1D<const double> source(w.column.data(), m);
    solve_columns<AddSourceResponse>(exec, "spectral_ring_source_response",
                                     ColumnSolve<T>{w.modes, w.factors, scale, source, w.ring_weights, w.interior});
  }
  w.row_transform.execute(exec, w.modes, w.interior);
}

// Direct solves (one, then refinement steps) a solve may run. In float one
// solve leaves a relative residual of a few 1e-6 (the transforms' rounding,
// amplified by L's conditioning); a refinement step (solve L E = B - L X
// with a zero ring, the residual formed in double, then X += E) takes it to
// the rounding of X itself. More steps gain nothing.
constexpr std::int64_t most_direct_solves = 3;
// A step that does not at least halve the residual has reached that floor.
constexpr double least_refinement_gain = 2;

template <class T>
void solve_dirichlet(const ExecSpace& exec, const View2D<T>& x, const View2D<T>& rhs, const SolverOptions& options,
                     CheckSchedule& schedule) {
  const std::int64_t rows = x.extent(0), cols = x.extent(1), m = rows - 2, n = cols - 2;
  const fft::Implementation fft = fft_implementation(options.spectral_fft);
  const std::int64_t width = spectral_row_length(m, n, options.spectral_fft, options.spectral_length);
  const BorrowedWorkspace<DirichletWorkspace<T>> w({rows, cols, fft, width},
                                                   [&] { return DirichletWorkspace<T>(exec, m, n, width, fft); });
  const GridRectangle padded = padded_interior(m, width);
  for_rectangle(exec, "spectral_fold_boundary", padded, FoldBoundary<T>{x, rhs, w->interior, width == n});
  apply_inverse(exec, *w, x, false);
  for_interior(exec, "spectral_write_interior", rows, cols, WriteInterior<T>{w->interior, x});
  // Refinement runs only when a tolerance asks for it and is not yet met.
  for (std::int64_t solves = 1;; ++solves) {
    const double before = schedule.report().relative_residual;
    if (schedule.record(solves, residual_norm(exec, x, rhs))) {
      if (!schedule.report().converged) schedule.report().stop_reason = "direct";
      return;
    }
    const bool gained = solves == 1 || schedule.report().relative_residual * least_refinement_gain <= before;
    if (options.tolerance <= 0 || solves >= most_direct_solves || !gained) {
      schedule.report().stop_reason = "direct";
      return;
    }
    for_rectangle(exec, "spectral_residual", padded, InteriorResidual<T>{x, rhs, w->interior});
    apply_inverse(exec, *w, x, true);
    for_interior(exec, "spectral_add_correction", rows, cols, AddCorrection<T>{w->interior, x});
  }
}

}  // namespace

template <class T>
void run_spectral(const ExecSpace& exec, const View2D<T>& x, const View2D<T>& rhs, const SolverOptions& options,
                  CheckSchedule& schedule) {
  switch (options.boundary) {
    case Boundary::dirichlet:
      solve_dirichlet(exec, x, rhs, options, schedule);
      return;
    case Boundary::neumann:
      solve_neumann(exec, x, rhs, fft_implementation(options.spectral_fft));
      break;
    case Boundary::periodic:
      solve_periodic(exec, x, rhs, fft_implementation(options.spectral_fft));
      break;
  }
  // One direct solve: "tolerance" when one was asked for and met, else "direct".
  if (!schedule.record(1, residual_norm(exec, x, rhs, options.boundary)) || !schedule.report().converged)
    schedule.report().stop_reason = "direct";
}

template void run_spectral<float>(const ExecSpace&, const View2D<float>&, const View2D<float>&, const SolverOptions&,
                                  CheckSchedule&);
template void run_spectral<double>(const ExecSpace&, const View2D<double>&, const View2D<double>&, const SolverOptions&,
                                   CheckSchedule&);

}  // namespace portasolve::poisson::detail
