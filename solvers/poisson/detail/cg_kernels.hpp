#pragma once
// Conjugate gradients for A = -L (symmetric positive definite) on the
// interior. Vectors live on the whole grid with a zero outer ring, so x keeps
// its boundary values through x += alpha p and the stencil needs no gather.
// The residual r = L X - B is then A's residual for the interior unknowns
// with the boundary moved to the right-hand side.
#include <cstdint>

#include "core/spaces.hpp"
#include "solvers/poisson/detail/stencil.hpp"

namespace portasolve::poisson::detail {

// r = L X - B on the interior (the ring of r stays zero), formed in Sum and
// rounded once, and sum r^2. Run at the start and whenever a check finds the
// recursively updated r has drifted from the true residual (in float CG
// stalls near 1e-5 otherwise): CG then restarts from the true residual and
// goes on to what the precision of x allows.
template <class T, class Sum>
struct TrueResidual {
  View2D<const T> x, rhs;
  View2D<T> r;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i, const std::int64_t j, Sum& rr) const {
    const T value = static_cast<T>(laplacian_at<Sum>(x, i, j) - Sum(rhs(i, j)));
    r(i, j) = value;
    rr += Sum(value) * Sum(value);
  }
};

// Zero on a grid's ring, point k of 2 (rows + cols) - 4 (row 0, the last
// row, then the columns' ends between them): a kept CG workspace whose solve
// ended on a step of infinite alpha may hold NaN there.
template <class T>
struct ZeroRing {
  View2D<T> grid;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t k) const {
    const std::int64_t rows = grid.extent(0), cols = grid.extent(1);
    if (k < cols) {
      grid(0, k) = T(0);
    } else if (k < 2 * cols) {
      grid(rows - 1, k - cols) = T(0);
    } else {
      const std::int64_t i = 1 + (k - 2 * cols) / 2;
      grid(i, (k - 2 * cols) % 2 == 0 ? 0 : cols - 1) = T(0);
    }
  }
  std::int64_t points() const { return 2 * std::int64_t(grid.extent(1)) + 2 * (std::int64_t(grid.extent(0)) - 2); }
};

// q = A p, p zero on the ring.
template <class T>
struct ApplyOperator {
  View2D<const T> p;
  View2D<T> q;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i, const std::int64_t j) const {
    q(i, j) = T(4) * p(i, j) - (p(i - 1, j) + p(i + 1, j) + p(i, j - 1) + p(i, j + 1));
  }
};

// The fused iteration keeps q = A p as an invariant so a step needs two
// kernels, each with its reduction written to device memory:
//   Direction: beta = rr_k / rr_{k-1} (0 at a (re)start); p = r + beta p;
//              q = A r + beta q; pq = sum p q
//   Update:    alpha = rr_k / pq; x += alpha p; r -= alpha q; rr_{k+1} = sum r r
// rr alternates between two slots by step parity, so no kernel reads the slot
// its own reduction writes. The scalars and the per-point work below are
// shared with the resident kernel (cg_resident.hpp).

// Once r is exactly 0 these guards turn further steps into no-ops, not NaN.
template <class T, class Sum>
KOKKOS_INLINE_FUNCTION T fused_cg_beta(const bool restart, const Sum rr, const Sum rr_previous) {
  return restart || !(rr_previous > 0) ? T(0) : static_cast<T>(rr / rr_previous);
}
template <class T, class Sum>
KOKKOS_INLINE_FUNCTION T fused_cg_alpha(const Sum rr, const Sum pq) {
  return pq > 0 ? static_cast<T>(rr / pq) : T(0);
}

// Direction at one point, r_around = r's up + down + left + right; returns p q.
template <class T, class Sum>
KOKKOS_INLINE_FUNCTION Sum fused_cg_direction(const T r_centre, const T r_around, const T beta, T& p, T& q) {
  const T a_r = T(4) * r_centre - r_around;
  p = r_centre + beta * p;
  q = a_r + beta * q;
  return Sum(p) * Sum(q);
}

// Update at one point; returns r r.
template <class T, class Sum>
KOKKOS_INLINE_FUNCTION Sum fused_cg_update(const T alpha, const T p, const T q, T& x, T& r) {
  x += alpha * p;
  r = r - alpha * q;
  return Sum(r) * Sum(r);
}

template <class T, class Sum>
struct FusedCg {
  struct Direction {};
  struct Update {};
  using Scalars = Kokkos::View<Sum[3], MemSpace>;  // rr (two slots), pq
  enum : int { pq_slot = 2 };

  View2D<T> x, r, p, q;
  Scalars scalars;
  std::int64_t step;
  std::int64_t restart_step;  // beta = 0 here: p = r, q = A r

  KOKKOS_INLINE_FUNCTION void operator()(Direction, const std::int64_t i, const std::int64_t j, Sum& pq) const {
    const T beta = fused_cg_beta<T>(step == restart_step, scalars(step & 1), scalars((step + 1) & 1));
    pq += fused_cg_direction<T, Sum>(r(i, j), r(i - 1, j) + r(i + 1, j) + r(i, j - 1) + r(i, j + 1), beta, p(i, j),
                                     q(i, j));
  }

  KOKKOS_INLINE_FUNCTION void operator()(Update, const std::int64_t i, const std::int64_t j, Sum& rr) const {
    const T alpha = fused_cg_alpha<T>(scalars(step & 1), scalars(pq_slot));
    rr += fused_cg_update<T, Sum>(alpha, p(i, j), q(i, j), x(i, j), r(i, j));
  }
};

// Preconditioned CG (z = M^-1 r from the preconditioner's own launches
// between Update and Rz) on the same invariant q = A p, its scalars on the
// device too, so a step waits for the host nowhere:
//   Direction: beta = rz_k / rz_{k-1} (0 at a (re)start); p = z + beta p;
//              q = A z + beta q; pq = sum p q
//   Update:    alpha = rz_k / pq; x += alpha p; r -= alpha q; rr = sum r r
//   Rz:        rz_{k+1} = sum r z
// rz alternates between two slots by step parity as rr does above; rr (the
// drift check's) has a slot of its own.
template <class T, class Sum>
struct FusedPreconditionedCg {
  struct Direction {};
  struct Update {};
  struct Rz {};
  using Scalars = Kokkos::View<Sum[4], MemSpace>;  // rz (two slots), pq, rr
  enum : int { pq_slot = 2, rr_slot = 3 };

  View2D<T> x, r, z, p, q;
  Scalars scalars;
  std::int64_t step;
  std::int64_t restart_step;  // beta = 0 here: p = z, q = A z

  KOKKOS_INLINE_FUNCTION void operator()(Direction, const std::int64_t i, const std::int64_t j, Sum& pq) const {
    const T beta = fused_cg_beta<T>(step == restart_step, scalars(step & 1), scalars((step + 1) & 1));
    pq += fused_cg_direction<T, Sum>(z(i, j), z(i - 1, j) + z(i + 1, j) + z(i, j - 1) + z(i, j + 1), beta, p(i, j),
                                     q(i, j));
  }

  KOKKOS_INLINE_FUNCTION void operator()(Update, const std::int64_t i, const std::int64_t j, Sum& rr) const {
    const T alpha = fused_cg_alpha<T>(scalars(step & 1), scalars(pq_slot));
    rr += fused_cg_update<T, Sum>(alpha, p(i, j), q(i, j), x(i, j), r(i, j));
  }

  KOKKOS_INLINE_FUNCTION void operator()(Rz, const std::int64_t i, const std::int64_t j, Sum& rz) const {
    rz += Sum(r(i, j)) * Sum(z(i, j));
  }
};

// z = r / 4: the Jacobi preconditioner (A's diagonal is 4) on the interior.
template <class T>
struct JacobiPreconditioner {
  View2D<const T> r;
  View2D<T> z;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i, const std::int64_t j) const { z(i, j) = r(i, j) / T(4); }
};

}  // namespace portasolve::poisson::detail
