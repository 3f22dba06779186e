// Calls every solver of an installed portasolve through its public header and
// checks each answer against a closed form; exit 0 only if all hold.
#include <Kokkos_Core.hpp>
#include <cmath>
#include <cstdio>
#include <portasolve/lombscargle.hpp>
#include <portasolve/lorenz05.hpp>
#include <portasolve/poisson.hpp>
#include <portasolve/smoothing.hpp>
#include <vector>

namespace {

int failures = 0;

void expect(bool ok, const char* what, double value) {
  std::printf("%-48s %-4s (%.3g)\n", what, ok ? "ok" : "FAIL", value);
  if (!ok) ++failures;
}

// u = i^2 + 2 j^2 has the 5-point Laplacian 2 + 4 = 6 exactly: a solve with B = 6
// and u on the ring must give u back.
void poisson_quadratic() {
  namespace poisson = portasolve::poisson;
  const int rows = 33, cols = 40;
  poisson::HostGrid exact(rows, cols), rhs(rows, cols, 6.0), start(rows, cols);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) {
      exact(i, j) = double(i) * i + 2.0 * j * j;
      const bool ring = i == 0 || j == 0 || i == rows - 1 || j == cols - 1;
      start(i, j) = ring ? exact(i, j) : 0.0;
    }
  auto x = poisson::to_device<double>(start, "x");
  auto b = poisson::to_device<double>(rhs, "rhs");
  poisson::SolverOptions options;
  options.method = poisson::Method::multigrid;
  options.tolerance = 1e-12;
  options.max_iterations = 50;
  const poisson::SolveReport report = poisson::solve(x, b, options);
  const poisson::HostGrid solution = poisson::to_host(x);
  double error = 0;
  for (std::size_t k = 0; k < solution.values.size(); ++k)
    error = std::fmax(error, std::fabs(solution.values[k] - exact.values[k]));
  expect(report.converged && error < 1e-7, "poisson multigrid: i^2 + 2 j^2 rebuilt", error);
}

// A 3x3 box keeps a linear ramp unchanged away from the border.
void smoothing_ramp() {
  namespace smoothing = portasolve::smoothing;
  const int rows = 20, cols = 30;
  portasolve::View2D<double> input("input", rows, cols), output("output", rows, cols);
  auto host = Kokkos::create_mirror_view(input);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) host(i, j) = 3.0 * i - 0.5 * j + 1;
  Kokkos::deep_copy(input, host);
  smoothing::SmoothingOptions options;  // box, radius 1, one pass
  smoothing::smooth<double>(input, output, options);
  Kokkos::deep_copy(host, output);
  double error = 0;
  for (int i = 1; i < rows - 1; ++i)
    for (int j = 1; j < cols - 1; ++j) error = std::fmax(error, std::fabs(host(i, j) - (3.0 * i - 0.5 * j + 1)));
  expect(error < 1e-12, "smoothing box 3x3: linear ramp unchanged", error);
}

// A sinusoid sampled at uneven times peaks at its own frequency.
void lombscargle_peak() {
  namespace ls = portasolve::lombscargle;
  const double frequency = 0.37;
  ls::Series series;
  for (int k = 0; k < 200; ++k) {
    const double t = 0.7 * k + 0.3 * std::sin(1.3 * k);  // uneven, increasing
    series.t.push_back(t);
    series.y.push_back(std::sin(2 * M_PI * frequency * t) + 0.1);
  }
  const ls::FrequencyGrid grid = ls::uniform_grid(0.01, 0.7, 691, false);
  const auto power = ls::periodogram<double>({series}, grid, ls::Options{});
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), power);
  std::size_t best = 0;
  for (std::size_t k = 1; k < grid.size(); ++k)
    if (host(0, k) > host(0, best)) best = k;
  const double miss = std::fabs(grid.values[best] - frequency);
  expect(miss < 2e-3 && host(0, best) > 0.9, "lombscargle: peak at the signal's frequency", miss);
}

// x_n = F is a fixed point of Lorenz 96: dX_n/dt = (X_{n+1} - X_{n-2}) X_{n-1} - X_n + F = 0.
void lorenz96_fixed_point() {
  namespace lorenz05 = portasolve::lorenz05;
  const lorenz05::ModelParameters parameters = lorenz05::lorenz96_defaults();
  lorenz05::Ensemble<double> ensemble(parameters, lorenz05::Layout::automatic);
  portasolve::View2D<double> states("states", 3, parameters.model_size);
  Kokkos::deep_copy(states, parameters.forcing);
  ensemble.advance(states, 20);
  const lorenz05::EnsembleStatistics statistics = lorenz05::ensemble_statistics(states);
  double error = 0;
  for (double mean : statistics.mean) error = std::fmax(error, std::fabs(mean - parameters.forcing));
  expect(error < 1e-12, "lorenz96: x = F stays fixed", error);
}

}  // namespace

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  poisson_quadratic();
  smoothing_ramp();
  lombscargle_peak();
  lorenz96_fixed_point();
  portasolve::poisson::release_workspaces();
  return failures == 0 ? 0 : 1;
}
