#pragma once
// The weighted running smoother of Lorenz (2005), model III, on a cyclic row
// of n values: X_i = sum'_{j=-I..I} a_j Z_{i+j}, a_j = alpha - beta |j|, the
// primed sum halving its first and last terms, with
//   alpha = (3 I^2 + 3) / (2 I^3 + 4 I),  beta = (2 I^2 + 1) / (I^4 + 2 I^2),
// chosen so that sum' a_j = 1 and sum' j^2 a_j = 0: X reproduces Z wherever Z
// varies quadratically over 2I points. I = 0 is the identity.
#include <Kokkos_Core.hpp>
#include <vector>

namespace portasolve::smoothing {

// The 2I+1 weights a_j (end halving included), j = -I..I.
std::vector<double> running_smoother_weights(int half_width);

// X_i for a cyclic row: weights[j + I] for j = -I..I, read(k) gives Z_k for
// 0 <= k < n (n > 2I). Terms are added from j = -I up.
template <class T, class Weights, class Read>
KOKKOS_INLINE_FUNCTION T cyclic_running_smoother(const Weights& weights, const int half_width, const int n, const int i,
                                                 const Read& read) {
  T sum = 0;
  for (int j = -half_width; j <= half_width; ++j) {
    int k = i + j;
    k = k < 0 ? k + n : (k >= n ? k - n : k);
    sum += static_cast<T>(weights[j + half_width]) * read(k);
  }
  return sum;
}

}  // namespace portasolve::smoothing
