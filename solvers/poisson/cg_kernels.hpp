#pragma once
// Conjugate gradients for A = -L (symmetric positive definite) on the
// interior. Vectors live on the whole grid with a zero outer ring, so x keeps
// its boundary values through x += alpha p and the stencil needs no gather.
// The residual r = L X - B is then A's residual for the interior unknowns
// with the boundary moved to the right-hand side.
#include <cstdint>

#include "core/spaces.hpp"
#include "solvers/poisson/stencil.hpp"

namespace portasolve::poisson {

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
    const Sum laplacian = Sum(x(i - 1, j)) + Sum(x(i + 1, j)) + Sum(x(i, j - 1)) + Sum(x(i, j + 1)) - 4 * Sum(x(i, j));
    const T value = static_cast<T>(laplacian - Sum(rhs(i, j)));
    r(i, j) = value;
    rr += Sum(value) * Sum(value);
  }
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
// its own reduction writes.
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
    // Once r is exactly 0 the guards turn further steps into no-ops, not NaN.
    const Sum rr_previous = scalars((step + 1) & 1);
    const T beta = step == restart_step || !(rr_previous > 0) ? T(0) : static_cast<T>(scalars(step & 1) / rr_previous);
    const T a_r = T(4) * r(i, j) - (r(i - 1, j) + r(i + 1, j) + r(i, j - 1) + r(i, j + 1));
    const T p_new = r(i, j) + beta * p(i, j);
    const T q_new = a_r + beta * q(i, j);
    p(i, j) = p_new;
    q(i, j) = q_new;
    pq += Sum(p_new) * Sum(q_new);
  }

  KOKKOS_INLINE_FUNCTION void operator()(Update, const std::int64_t i, const std::int64_t j, Sum& rr) const {
    const Sum pq = scalars(pq_slot);
    const T alpha = pq > 0 ? static_cast<T>(scalars(step & 1) / pq) : T(0);
    x(i, j) += alpha * p(i, j);
    const T r_new = r(i, j) - alpha * q(i, j);
    r(i, j) = r_new;
    rr += Sum(r_new) * Sum(r_new);
  }
};

}  // namespace portasolve::poisson
