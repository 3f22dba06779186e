#pragma once
// The models of Lorenz (2005), "Designing chaotic models", J. Atmos. Sci. 62,
// 1574-1587, on a cyclic domain of N points, with NCAR DART's parameter names
// (models/lorenz_05): model_size N, forcing F, delta_t, space_time_scale b,
// coupling c, K, smooth_steps I.
//
//   model I   (Lorenz 96): dX_n/dt = -X_{n-2} X_{n-1} + X_{n-1} X_{n+1} - X_n + F
//   model II:  dX_n/dt = [X, X]_{K,n} - X_n + F
//   model III: dZ_n/dt = [X, X]_{K,n} + b^2 [Y, Y]_{1,n} + c [Y, X]_{1,n} - X_n - b Y_n + F,
//              X the running smooth of Z (solvers/smoothing/running_smoother.hpp), Y = Z - X
//   [X, Y]_{K,n} = -W_{n-2K} V_{n-K} + sum'_{j=-J..J} W_{n-K+j} Y_{n+K+j} / K,
//   W_n = sum'_{j=-J..J} X_{n-j} / K, V the same average of Y; with K = 1,
//   [Y, X]_1 = -Y_{n-2} X_{n-1} + Y_{n-1} X_{n+1} (the paper's eq. 9, as DART codes it).
// For even K, J = K/2 and sum' halves the first and last terms; for odd K
// (which the paper allows and DART does not implement), J = (K-1)/2 and sum'
// is the plain sum. Model I is model II with K = 1. Time steps are classical
// fourth-order Runge-Kutta.
#include <cstdint>
#include <string>
#include <vector>

namespace portasolve::lorenz05 {

struct ModelParameters {
  int model = 3;         // 1, 2 or 3
  int model_size = 960;  // N
  double forcing = 15;   // F
  double delta_t = 0.001;
  double space_time_scale = 10;  // b (model III)
  double coupling = 2.5;         // c (model III): the paper's 2.5 (DART's default is 3)
  int K = 32;                    // models II and III (model I: 1)
  int smooth_steps = 12;         // I (model III)
};

// DART's defaults for model III with the paper's coupling; Lorenz 96 (N=40, F=8, dt=0.05).
ModelParameters model_three_defaults();
ModelParameters lorenz96_defaults();

// The K the tendency uses: 1 for model I.
int effective_k(const ModelParameters& parameters);

// Throws std::invalid_argument naming the first bad parameter (K > N,
// I >= N/2, delta_t <= 0, ...).
void check(const ModelParameters& parameters);

}  // namespace portasolve::lorenz05
