// experiment: poisson. Builds L X = B from an image (its Laplacian, the
// image-reconstruction case) or a manufactured solution, runs the chosen
// solver (and, if asked, plain Jacobi on the same problem as the baseline),
// and writes the solution, the residual history and the error.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <tuple>

#include "app/pgm.hpp"
#include "core/interrupt.hpp"
#include "core/profiling.hpp"
#include "core/timer.hpp"
#include "drivers/collective_output.hpp"
#include "drivers/experiment.hpp"
#include "drivers/halo_report.hpp"
#include "drivers/image_input.hpp"
#include "drivers/option_keys.hpp"
#include "drivers/option_table.hpp"
#include "drivers/poisson_ranks.hpp"
#include "drivers/repeat_loop.hpp"
#include "fft/fft.hpp"
#include "solvers/poisson/problem.hpp"
#include "solvers/poisson/solver.hpp"
#if PORTASOLVE_HAVE_MPI
#include "distributed/grid_decomposition.hpp"
#include "distributed/halo_exchange.hpp"
#include "distributed/mpi_session.hpp"
#include "solvers/poisson/distributed.hpp"
#endif

namespace portasolve::drivers {

void add_poisson_schema(config::Schema& schema) {
  using config::Kind;
  // Every default is the library's own (SolverOptions), stated once there.
  const poisson::SolverOptions defaults;
  add_choice(schema, "poisson.solver",
             "jacobi, jacobi_blocked, cg (Kokkos Kernels), cg_fused, multigrid, spectral (direct, by fast sine "
             "transforms) "
             "or auto (spectral on every backend)",
             poisson::method_names(), poisson::name_of(defaults.method));
  add_choice(schema, "poisson.boundary",
             "dirichlet: the grid's outer ring holds fixed values (every solver); neumann (zero flux, mirrored) or "
             "periodic: L X = B on the whole grid, ring included, B summing to zero (spectral and multigrid)",
             poisson::boundary_names(), poisson::name_of(defaults.boundary));
  add_choice(schema, "poisson.spectral.fft",
             "spectral: the build's FFT library (FFTW3 on CPUs, cuFFT on CUDA; HIP: the portable kernels) or "
             "portable, portasolve's own Kokkos FFT kernels (what a HIP build runs)",
             poisson::spectral_fft_names(), poisson::name_of(defaults.spectral_fft));
  add_choice(schema, "poisson.spectral.length",
             "spectral, dirichlet: fast runs the row transforms at the nearest length whose FFT is fast (the "
             "columns added beyond the grid are an embedding, corrected exactly), exact at the grid's own length",
             poisson::spectral_length_names(), poisson::name_of(defaults.spectral_length));
  add_integer(schema, "poisson.max_iterations", "sweeps (Jacobi) or steps (CG) at most", defaults.max_iterations)
      .at_least(0);
  add_real(schema, "poisson.tolerance", "stop at this relative residual (0: run max_iterations)", defaults.tolerance)
      .at_least(0);
  add_integer(schema, "poisson.check_every",
              "iterations between residual checks and progress lines (multigrid checks every cycle)",
              defaults.check_every)
      .at_least(1);
  add_real(schema, "poisson.omega", "Jacobi weight (1: the plain sweep)", defaults.omega).greater_than(0).at_most(1);
  add_integer(schema, "poisson.blocked.sweeps_per_launch", "jacobi_blocked: sweeps per launch, the halo width",
              defaults.sweeps_per_launch)
      .at_least(1);
  add_choice(schema, "poisson.blocked.kernel",
             "jacobi_blocked: register bands (<= 8 sweeps per launch), tiles in team scratch, resident tiles "
             "(small grids: one launch per residual check, a tile per multiprocessor), or auto",
             poisson::blocked_kernel_names(), poisson::name_of(defaults.blocked_kernel));
  add_integer(schema, "poisson.blocked.tile_rows",
              "jacobi_blocked: tile height (0: largest that fits); register bands: rows a band writes (0: 64)",
              defaults.tile_rows)
      .at_least(0);
  add_integer(schema, "poisson.blocked.tile_cols", "jacobi_blocked: tile width (0: largest that fits)",
              defaults.tile_cols)
      .at_least(0);
  add_integer(schema, "poisson.blocked.team_rows", "jacobi_blocked on GPUs: rows in flight per team (0: auto)",
              defaults.team_rows)
      .at_least(0);
  add_choice(schema, "poisson.cg.operator", "cg: stencil functor or assembled CrsMatrix with spmv",
             poisson::cg_operator_names(), poisson::name_of(defaults.cg_operator));
  add_choice(schema, "poisson.cg.kernel",
             "cg_fused: launches (two a step), resident (one launch per residual check, a team per "
             "multiprocessor) or auto (resident on GPUs)",
             poisson::cg_kernel_names(), poisson::name_of(defaults.cg_kernel));
  add_choice(schema, "poisson.cg.preconditioner",
             "cg: none, jacobi (diagonal scaling) or multigrid (one symmetric cycle of poisson.multigrid.*)",
             poisson::cg_preconditioner_names(), poisson::name_of(defaults.cg_preconditioner));
  add_choice(schema, "poisson.multigrid.cycle", "multigrid: V, W or F cycles", poisson::multigrid_cycle_names(),
             poisson::name_of(defaults.multigrid.cycle));
  add_choice(schema, "poisson.multigrid.smoother", "multigrid: red-black Gauss-Seidel, weighted Jacobi or Chebyshev",
             poisson::multigrid_smoother_names(), poisson::name_of(defaults.multigrid.smoother));
  add_integer(schema, "poisson.multigrid.pre_sweeps", "multigrid: smoothing sweeps before the coarse correction",
              defaults.multigrid.pre_sweeps)
      .at_least(0);
  add_integer(schema, "poisson.multigrid.post_sweeps", "multigrid: smoothing sweeps after the coarse correction",
              defaults.multigrid.post_sweeps)
      .at_least(0);
  add_integer(schema, "poisson.multigrid.coarsest",
              "multigrid: coarsening stops at a level with at most this many interior points",
              defaults.multigrid.coarsest_size)
      .at_least(1)
      .at_most(poisson::max_coarsest_size);
  add_integer(schema, "poisson.multigrid.gather",
              "multigrid over MPI ranks: the first coarse level with at most this many points is gathered onto "
              "every rank",
              defaults.multigrid.gather_size)
      .at_least(1);
  add_boolean(schema, "poisson.multigrid.fmg", "multigrid: full multigrid start (the first cycle)",
              defaults.multigrid.fmg);
  add_real(schema, "poisson.multigrid.jacobi_omega", "multigrid: the Jacobi smoother's weight",
           defaults.multigrid.jacobi_omega)
      .greater_than(0)
      .at_most(1);
  add_choice(schema, "problem.source", "B from an image's Laplacian (pgm, hdf5, synthetic) or manufactured",
             {"synthetic", "pgm", "hdf5", "manufactured"}, "synthetic");
  add_image_input_schema(schema, "problem");
  add_choice(schema, "problem.initial", "initial interior: zeros or a PGM image of the grid's size", {"zeros", "pgm"},
             "zeros");
  schema.add("problem.initial_file", Kind::String, "initial: pgm: the file").optional();
  schema.add("output.pgm", Kind::String, "also write the solution as this PGM (image sources; empty: none)").optional();
  add_boolean(schema, "output.input_arrays", "write /input/rhs and /input/exact (large for big grids)", true);
  add_choice(schema, "benchmark.baseline", "time plain jacobi on the same problem in the same run", {"none", "jacobi"},
             "none");
}

namespace {

namespace ps = poisson;

// Every SolverOptions field: the config key that sets it (the key an
// OptionError naming the field points at) and how it is read.
const OptionTable<ps::SolverOptions>& solver_option_table() {
  using O = ps::SolverOptions;
  using M = ps::MultigridOptions;
  static const OptionTable<O> table{
      "poisson.",
      {
          {"method", "poisson.solver", choice(ps::method_from_name, &O::method)},
          {"boundary", choice(ps::boundary_from_name, &O::boundary)},
          {"max_iterations", value(&O::max_iterations)},
          {"tolerance", value(&O::tolerance)},
          {"check_every", value(&O::check_every)},
          {"omega", value(&O::omega)},
          {"sweeps_per_launch", "poisson.blocked.sweeps_per_launch", value(&O::sweeps_per_launch)},
          {"blocked_kernel", "poisson.blocked.kernel", choice(ps::blocked_kernel_from_name, &O::blocked_kernel)},
          {"tile_rows", "poisson.blocked.tile_rows", value(&O::tile_rows)},
          {"tile_cols", "poisson.blocked.tile_cols", value(&O::tile_cols)},
          {"team_rows", "poisson.blocked.team_rows", value(&O::team_rows)},
          {"cg_operator", "poisson.cg.operator", choice(ps::cg_operator_from_name, &O::cg_operator)},
          {"cg_kernel", "poisson.cg.kernel", choice(ps::cg_kernel_from_name, &O::cg_kernel)},
          {"cg_preconditioner", "poisson.cg.preconditioner",
           choice(ps::cg_preconditioner_from_name, &O::cg_preconditioner)},
          {"multigrid.cycle", choice(ps::multigrid_cycle_from_name, &O::multigrid, &M::cycle)},
          {"multigrid.smoother", choice(ps::multigrid_smoother_from_name, &O::multigrid, &M::smoother)},
          {"multigrid.pre_sweeps", value(&O::multigrid, &M::pre_sweeps)},
          {"multigrid.post_sweeps", value(&O::multigrid, &M::post_sweeps)},
          {"multigrid.coarsest_size", "poisson.multigrid.coarsest", value(&O::multigrid, &M::coarsest_size)},
          {"multigrid.gather_size", "poisson.multigrid.gather", value(&O::multigrid, &M::gather_size)},
          {"multigrid.fmg", value(&O::multigrid, &M::fmg)},
          {"multigrid.jacobi_omega", value(&O::multigrid, &M::jacobi_omega)},
          {"spectral_fft", "poisson.spectral.fft", choice(ps::spectral_fft_from_name, &O::spectral_fft)},
          {"spectral_length", "poisson.spectral.length", choice(ps::spectral_length_from_name, &O::spectral_length)},
      }};
  return table;
}

const OptionKeys& solver_option_keys() { return solver_option_table().keys(); }

poisson::SolverOptions solver_options(const config::Config& config) { return solver_option_table().read(config); }

// The problem on the whole grid, or over MPI ranks this rank's window of it
// (its block and a ring of 1: rank_window()).
struct LoadedProblem {
  ps::Problem problem;
  std::size_t rows = 0, cols = 0;  // the whole grid's
  ps::GridWindow window;           // where problem's grids lie in it
  unsigned maxval = 255;           // for PGM output
  bool image = false;
  double image_mean = 0;  // neumann and periodic: added back to the zero-mean solution in the PGM
  std::string read = "whole grid";
};

// problem.initial: pgm sets the start's interior from an image of the whole grid's size.
void apply_initial(const config::Config& config, LoadedProblem& loaded) {
  if (config.string("problem.initial") != "pgm") return;
  if (!config.has("problem.initial_file"))
    throw ConfigError(config.where("problem.initial"), "problem.initial_file", "missing for problem.initial: pgm",
                      "the path of a PGM image of the grid's size");
  const std::string file = config.string("problem.initial_file");
  const pgm::Image initial = pgm::read(file);
  if (initial.rows != loaded.rows || initial.cols != loaded.cols)
    throw InputError(file + ": the initial image is " + std::to_string(initial.cols) + "x" +
                     std::to_string(initial.rows) + " (width x height), the problem " + std::to_string(loaded.cols) +
                     "x" + std::to_string(loaded.rows));
  // The window's inner points only: the ring is the boundary or, over ranks, the neighbours' (their exchange).
  ps::HostGrid& start = loaded.problem.start;
  const ps::GridWindow& w = loaded.window;
  for (std::size_t i = 1; i + 1 < start.rows; ++i)
    for (std::size_t j = 1; j + 1 < start.cols; ++j)
      start(i, j) = initial.pixels[(w.first_row + i) * initial.cols + w.first_col + j];
}

// B from an image (the whole image, or a rank's window of it).
void set_image_problem(LoadedProblem& loaded, const Image& image, ps::Boundary boundary) {
  throw_if_interrupted();
  ps::HostGrid grid(image.rows, image.cols);
  grid.values = image.values;
  // neumann and periodic: B = the image's Laplacian with the boundary's own
  // neighbours, the answer the image minus its mean.
  loaded.problem = boundary == ps::Boundary::dirichlet ? ps::reconstruction_problem(grid)
                                                       : ps::whole_grid_reconstruction_problem(grid, boundary);
  if (boundary != ps::Boundary::dirichlet) loaded.image_mean = grid.values[0] - loaded.problem.exact->values[0];
  loaded.problem.description += " (" + image.description + ")";
  loaded.maxval = image.maxval;
  loaded.image = true;
}

LoadedProblem load_problem(const config::Config& config) {
  const std::string source = config.string("problem.source");
  LoadedProblem loaded;
  const ps::Boundary boundary = ps::boundary_from_name(config.string("poisson.boundary"));
  if (source == "manufactured" && boundary != ps::Boundary::dirichlet)
    throw ConfigError(config.where("poisson.boundary"), "poisson.boundary",
                      "the manufactured problem has Dirichlet values on its ring",
                      "dirichlet, or an image source (pgm, hdf5, synthetic) for neumann and periodic");
  if (source == "manufactured")
    loaded.problem = ps::manufactured_problem(static_cast<std::size_t>(config.integer("problem.rows")),
                                              static_cast<std::size_t>(config.integer("problem.cols")));
  else
    set_image_problem(loaded, load_image(config, "problem", source, "problem.source"), boundary);
  loaded.rows = loaded.problem.rhs.rows;
  loaded.cols = loaded.problem.rhs.cols;
  loaded.window = ps::GridWindow{0, loaded.rows, 0, loaded.cols};
  apply_initial(config, loaded);
  return loaded;
}

#if PORTASOLVE_HAVE_MPI
// Over MPI ranks (dirichlet only: check_poisson_ranks): the decomposition
// of the whole grid and this rank's window of the problem. HDF5 and
// synthetic images and the manufactured problem are built a window per rank
// from the same values; a PGM image is read whole on every rank and cut. The
// start's ring where it faces other ranks is the neighbours' to fill (an
// exchange after the upload), as is B's.
LoadedProblem load_rank_problem(const config::Config& config,
                                std::unique_ptr<distributed::GridDecomposition>& decomposition) {
  const std::string source = config.string("problem.source");
  const bool manufactured = source == "manufactured";
  LoadedProblem loaded;
  if (manufactured) {
    loaded.rows = static_cast<std::size_t>(config.integer("problem.rows"));
    loaded.cols = static_cast<std::size_t>(config.integer("problem.cols"));
  } else if (reads_windows(source)) {
    std::tie(loaded.rows, loaded.cols) = windowed_image_size(config, "problem", source, "problem.source");
  } else {
    loaded = load_problem(config);  // a PGM: whole, then cut below
  }
  decomposition = std::make_unique<distributed::GridDecomposition>(
      MPI_COMM_WORLD, static_cast<std::int64_t>(loaded.rows), static_cast<std::int64_t>(loaded.cols));
  const ps::GridWindow window = rank_window(*decomposition);
  loaded.window = window;
  if (loaded.image) {
    // This rank's block and ring of each whole grid.
    const auto cut = [&](const ps::HostGrid& whole) {
      ps::HostGrid part(window.rows, window.cols);
      part.values = decomposition->local_block(whole.values.data(), 1);
      return part;
    };
    ps::Problem& problem = loaded.problem;
    problem.rhs = cut(problem.rhs);
    problem.start = cut(problem.start);
    problem.exact = cut(*problem.exact);
    return loaded;  // the initial image is in the whole start
  }
  loaded.read = "each rank its block";
  if (manufactured) {
    loaded.problem = ps::manufactured_problem(loaded.rows, loaded.cols, window);
  } else {
    const Image image = load_image_window(config, "problem", source, "problem.source",
                                          ImageWindow{window.first_row, window.rows, window.first_col, window.cols});
    set_image_problem(loaded, image, ps::Boundary::dirichlet);
    // The whole image's: 16-bit PGM output if any window needs it.
    MPI_Allreduce(MPI_IN_PLACE, &loaded.maxval, 1, MPI_UNSIGNED, MPI_MAX, MPI_COMM_WORLD);
  }
  apply_initial(config, loaded);
  return loaded;
}
#endif

using TimedSolve = TimedRun<ps::SolveReport>;

// How a repeat solves: ps::solve on the whole grid, or over MPI ranks
// ps::solve_distributed on this rank's block.
template <class T>
using SolveFunction = std::function<ps::SolveReport(const View2D<T>&, const View2D<T>&, const ps::SolverOptions&,
                                                    const ps::CheckCallback&)>;

// Each repeat starts again from the same initial grid (reset untimed).
template <class T>
TimedSolve timed_solve(RunContext& context, const View2D<T>& x, const View2D<T>& start, const View2D<T>& rhs,
                       const ps::SolverOptions& options, const std::string& label, const SolveFunction<T>& solve) {
  const bool jacobi = options.method == ps::Method::jacobi || options.method == ps::Method::jacobi_blocked;
  const RepeatTask task{"poisson/" + label, options.max_iterations,
                        jacobi                                    ? "sweep"
                        : options.method == ps::Method::multigrid ? "cycle"
                                                                  : "step"};
  // What to do instead of an option the backend cannot run (e.g. scratch size).
  static const OptionKeys instead{{"boundary", "poisson.solver: spectral, or poisson.boundary: dirichlet"},
                                  {"sweeps_per_launch", "a smaller tile or fewer sweeps per launch"}};
  TimedSolve result;
  result.times = repeat_with_progress(
      context, task, [&] { Kokkos::deep_copy(x, start); },
      [&](const Repeat&, Progress& progress) {
        const auto on_check = [&](const ps::ResidualCheck& check) {
          throw_if_interrupted();
          progress.update(check.iteration, check.relative_residual);
        };
        ps::SolveReport report;
        const double seconds = fenced_seconds([&] {
          report = call_solver(
              context.config, solver_option_keys(), "poisson.solver", [&] { return solve(x, rhs, options, on_check); },
              instead);
        });
        result.report = std::move(report);
        return RepeatResult{seconds, result.report.relative_residual};
      });
  return result;
}

// Multigrid: the residual's mean reduction per cycle, (r_n / r_0)^(1/n).
double average_convergence_factor(const ps::SolveReport& report) {
  if (report.iterations <= 0 || report.history.empty() || !(report.history.front().relative_residual > 0)) return 0;
  return std::pow(report.relative_residual / report.history.front().relative_residual,
                  1.0 / static_cast<double>(report.iterations));
}

std::vector<double> history_rows(const ps::SolveReport& report) {
  std::vector<double> rows;
  for (const auto& check : report.history) {
    rows.push_back(static_cast<double>(check.iteration));
    rows.push_back(check.relative_residual);
  }
  return rows;
}

template <class T>
void write_grid(h5::Group& group, const std::string& name, const ps::HostGrid& grid) {
  std::vector<T> values(grid.values.begin(), grid.values.end());
  group.write_dataset(name, values.data(), h5::Dims{grid.rows, grid.cols});
}

// The error of X against the known solution over some of its points.
struct ErrorSums {
  double max_abs = 0, sum_sq = 0, scale = 0;
};

// Over the rectangle `values` of the grid starting at (first_row, first_col).
inline ErrorSums error_sums(const ps::HostGrid& values, const ps::HostGrid& exact, std::size_t first_row = 0,
                            std::size_t first_col = 0) {
  ErrorSums sums;
  for (std::size_t i = 0; i < values.rows; ++i)
    for (std::size_t j = 0; j < values.cols; ++j) {
      const double want = exact(first_row + i, first_col + j);
      const double error = std::fabs(values(i, j) - want);
      sums.max_abs = std::max(sums.max_abs, std::isnan(error) ? INFINITY : error);
      sums.sum_sq += error * error;
      sums.scale = std::max(sums.scale, std::fabs(want));
    }
  return sums;
}

template <class T>
void run_typed(RunContext& context) {
  const auto& config = context.config;
  Stopwatch setup_watch;
  const bool distributed = context.ranks.size > 1;
#if PORTASOLVE_HAVE_MPI
  // Over MPI ranks each rank holds its window of the problem (its block with
  // a ring) on its device.
  std::unique_ptr<distributed::GridDecomposition> decomposition;
  const LoadedProblem loaded = distributed ? load_rank_problem(config, decomposition) : load_problem(config);
#else
  const LoadedProblem loaded = load_problem(config);
#endif
  const ps::Problem& problem = loaded.problem;
  ps::SolverOptions options = solver_options(config);
  if (distributed && options.method == ps::Method::automatic) options.method = ps::Method::jacobi;
  if (distributed && options.method == ps::Method::cg_fused) options.method = ps::Method::cg;  // what runs over ranks
  options.method = ps::chosen_method(options);  // auto resolved once: labels and attributes name what runs
  SolveFunction<T> solve = [](const View2D<T>& x, const View2D<T>& rhs, const ps::SolverOptions& o,
                              const ps::CheckCallback& on_check) { return ps::solve(x, rhs, o, on_check); };
  std::function<View2D<T>(const ps::HostGrid&, const char*)> upload = [](const ps::HostGrid& grid, const char* label) {
    return ps::to_device<T>(grid, label);
  };
#if PORTASOLVE_HAVE_MPI
  ps::HaloStatistics halo;
  ps::DistributedWorkspace<T> workspace;             // exchanges and local arrays, kept over the repeats
  std::optional<distributed::HaloExchange<T>> ring;  // for the uploads
  if (distributed) {
    // The window's ring where it faces other ranks: their points, exchanged once.
    ring.emplace(*decomposition, 1);
    upload = [&](const ps::HostGrid& window, const char* label) {
      const View2D<T> local = ps::to_device<T>(window, label);
      ring->exchange(local);
      return local;
    };
    solve = [&](const View2D<T>& x, const View2D<T>& rhs, const ps::SolverOptions& o,
                const ps::CheckCallback& on_check) {
      return ps::solve_distributed(*decomposition, x, rhs, o, on_check, &halo, &workspace);
    };
  }
#endif
  const View2D<T> rhs = upload(problem.rhs, "poisson_rhs");
  const View2D<T> start = upload(problem.start, "poisson_start");
  const View2D<T> x("poisson_x", start.extent(0), start.extent(1));
#if PORTASOLVE_HAVE_MPI
  Kokkos::fence();  // the uploads' unpacks have run: their exchange goes
  ring.reset();
#endif
  throw_if_interrupted();
  const double setup_s = setup_watch.seconds();

  TimedSolve baseline;
  const bool with_baseline = config.string("benchmark.baseline") == "jacobi";
  if (with_baseline) {
    ps::SolverOptions plain = options;
    plain.method = ps::Method::jacobi;
    baseline = timed_solve(context, x, start, rhs, plain, "jacobi (baseline)", solve);
  }
  // Last, so x holds its answer.
  const TimedSolve solved = timed_solve(context, x, start, rhs, options, config.string("poisson.solver"), solve);
  const ps::SolveReport& report = solved.report;
  const bool wants_pgm = config.has("output.pgm") && !config.string("output.pgm").empty();
  // Over ranks with parallel HDF5 each rank writes its own block of the
  // solution at the end and the errors are reduced over ranks; the whole
  // solution is gathered only for a PGM.
  const bool collective = writes_collectively(context);
  const bool input_arrays = config.boolean("output.input_arrays");
  ps::HostGrid solution;
#if PORTASOLVE_HAVE_MPI
  WrittenBlock block;  // this rank's part of the solution
  if (decomposition) {
    block = written_part(*decomposition, ps::to_host(x));
    if (!collective || wants_pgm) solution = gather_parts(*decomposition, block, 0);
    report_ranks(context, *decomposition, halo);
  } else {
    solution = ps::to_host(x);
  }
#else
  solution = ps::to_host(x);
#endif

  auto& result = context.result;
  result.set_timing(setup_s, solved.times);
  if (with_baseline) result.set_baseline("jacobi", baseline.times);

  auto& input = result.input();
  input.set_attribute("source", config.string("problem.source"));
  input.set_attribute("description", problem.description);
  input.set_attribute("rows", static_cast<std::int64_t>(loaded.rows));
  input.set_attribute("cols", static_cast<std::int64_t>(loaded.cols));
  input.set_attribute("initial", config.string("problem.initial"));
  input.set_attribute("read", loaded.read);
  // Over ranks each rank's part of /input/rhs and /input/exact: written by
  // the rank itself at the end (parallel HDF5), or gathered on rank 0 now.
  const h5::Dims grid_dims{loaded.rows, loaded.cols};
  const auto write_input = [&](const std::string& name, const ps::HostGrid& grid, const char* description) {
#if PORTASOLVE_HAVE_MPI
    if (decomposition && collective)
      input.create_unwritten_dataset<T>(name, grid_dims);
    else if (decomposition)
      write_grid<T>(input, name, gather_parts(*decomposition, written_part(*decomposition, grid), 0));
    else
      write_grid<T>(input, name, grid);
#else
    write_grid<T>(input, name, grid);
#endif
    input.set_attribute("description", description, name);
  };
  if (input_arrays) {
    write_input("rhs", problem.rhs, "B in L X = B (5-point Laplacian, unit spacing); outer ring unused");
    if (problem.exact) write_input("exact", *problem.exact, "the known solution (the image, or the manufactured u)");
  }

  auto& output = result.output();
  if (collective)
    output.create_unwritten_dataset<T>("solution", grid_dims);
  else
    write_grid<T>(output, "solution", solution);
  record_write_mode(context, output);
  output.set_attribute("description", "X after the solve, boundary ring included", "solution");
  const std::vector<double> history = history_rows(report);
  output.write_dataset("residual_history", history.data(), h5::Dims{report.history.size(), 2});
  output.set_attribute("columns", "iteration, relative residual ||B - L X|| / ||B - L X_0||", "residual_history");
  output.set_attribute("solver", config.string("poisson.solver"));
  output.set_attribute("method", ps::name_of(report.method));
  if (options.method == ps::Method::jacobi_blocked)
    output.set_attribute("blocked_kernel", ps::name_of(ps::chosen_blocked_kernel(options, loaded.rows, loaded.cols)));
  if (options.method == ps::Method::cg)
    output.set_attribute("cg_preconditioner", ps::name_of(options.cg_preconditioner));
  if (report.method == ps::Method::spectral) {
    output.set_attribute("fft", options.spectral_fft == ps::SpectralFft::portable ? "portable" : fft::library_name());
    if (options.boundary == ps::Boundary::dirichlet)
      output.set_attribute("spectral_row_length",
                           ps::spectral_row_length(std::int64_t(loaded.rows) - 2, std::int64_t(loaded.cols) - 2,
                                                   options.spectral_fft, options.spectral_length));
  }
  if (options.method == ps::Method::cg_fused)
    output.set_attribute("cg_kernel", ps::name_of(ps::chosen_cg_kernel(options)));
  output.set_attribute("iterations", report.iterations);
  if (options.method == ps::Method::multigrid) {
    output.set_attribute("multigrid_cycle", ps::name_of(options.multigrid.cycle));
    output.set_attribute("multigrid_smoother", ps::name_of(options.multigrid.smoother));
    output.set_attribute("convergence_factor", average_convergence_factor(report));
  }
  output.set_attribute("relative_residual", report.relative_residual);
  output.set_attribute("reference_norm", report.reference_norm);
  output.set_attribute("converged", static_cast<std::int64_t>(report.converged));
  output.set_attribute("stop_reason", report.stop_reason);
  if (with_baseline) {
    output.set_attribute("baseline_relative_residual", baseline.report.relative_residual);
    output.set_attribute("baseline_iterations", baseline.report.iterations);
  }

  const char* iteration = options.method == ps::Method::jacobi || options.method == ps::Method::jacobi_blocked ? "sweep"
                          : options.method == ps::Method::multigrid                                            ? "cycle"
                          : options.method == ps::Method::spectral ? "direct solve"
                                                                   : "step";
  char line[200];
  std::snprintf(line, sizeof line, "poisson: %zux%zu grid, %s, %s: %lld %s%s, relative residual %.3e (%s)\n",
                loaded.rows, loaded.cols, config.string("precision").c_str(), config.string("poisson.solver").c_str(),
                static_cast<long long>(report.iterations), iteration, report.iterations == 1 ? "" : "s",
                report.relative_residual, report.stop_reason.c_str());
  context.out << line;
  std::snprintf(line, sizeof line, "time: %.6g s (median of %zu), %.3g us per iteration\n", solved.times.median(),
                solved.times.seconds.size(),
                report.iterations > 0 ? 1e6 * solved.times.median() / static_cast<double>(report.iterations) : 0.0);
  context.out << line;
  if (with_baseline) {
    std::snprintf(line, sizeof line, "baseline jacobi: %.6g s, relative residual %.3e; speedup %.2fx\n",
                  baseline.times.median(), baseline.report.relative_residual,
                  baseline.times.median() / solved.times.median());
    context.out << line;
  }

  if (problem.exact) {
    const ps::HostGrid& exact = *problem.exact;
    ErrorSums sums;
#if PORTASOLVE_HAVE_MPI
    if (decomposition) {
      // Each rank's part once, against its window of the known solution; the
      // sum of squares over ranks in rank order (the same bits in every rerun;
      // the last bits of the rms may differ from one rank's, whose sum runs in
      // another order).
      const ErrorSums mine = error_sums(block.values, exact, block.first_row - loaded.window.first_row,
                                        block.first_col - loaded.window.first_col);
      double extremes[2] = {mine.max_abs, mine.scale};
      MPI_Allreduce(MPI_IN_PLACE, extremes, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      sums = ErrorSums{extremes[0], distributed::ordered_sum(mine.sum_sq, MPI_COMM_WORLD), extremes[1]};
    }
#endif
    if (!distributed) sums = error_sums(solution, exact);
    const double max_abs = sums.max_abs, scale = sums.scale;
    const double rms = std::sqrt(sums.sum_sq / static_cast<double>(loaded.rows * loaded.cols));
    output.set_attribute("error_max_abs", max_abs);
    output.set_attribute("error_rms", rms);
    result.set_validation(loaded.image ? "the image B was built from" : "the manufactured solution u", max_abs,
                          scale > 0 ? max_abs / scale : max_abs);
    std::snprintf(line, sizeof line, "error against the %s: max %.3e, rms %.3e\n",
                  loaded.image ? "image" : "manufactured solution", max_abs, rms);
    context.out << line;
  }
  if (wants_pgm) {
    if (!loaded.image)
      throw ConfigError(config.where("output.pgm"), "output.pgm", "a PGM needs an image source",
                        "problem.source: pgm, hdf5 or synthetic");
    std::vector<double> picture = solution.values;
    for (double& value : picture) value += loaded.image_mean;
    write_pgm(config, result, picture, solution.rows, solution.cols, loaded.maxval);
  }
#if PORTASOLVE_HAVE_PARALLEL_HDF5
  if (collective) {
    // The parts' values in T, alive until the writes are done.
    std::vector<std::vector<T>> values;
    std::vector<h5::BlockPart> parts;
    const auto part = [&](const char* path, const WrittenBlock& written) {
      values.emplace_back(written.values.values.begin(), written.values.values.end());
      parts.push_back(h5::block_part(path, values.back().data(), {written.first_row, written.first_col},
                                     {written.values.rows, written.values.cols}));
    };
    values.reserve(3);
    part("/output/solution", block);
    if (input_arrays) {
      part("/input/rhs", written_part(*decomposition, problem.rhs));
      if (problem.exact) part("/input/exact", written_part(*decomposition, *problem.exact));
    }
    write_blocks_and_close(context, parts);
  }
#endif
}

}  // namespace

void run_poisson(RunContext& context) {
  with_precision(context.config, [&](auto zero) { run_typed<decltype(zero)>(context); });
}

void check_poisson_ranks(const config::Config& config, int ranks) {
  const std::string solver = config.string("poisson.solver");
  if (solver != "jacobi" && solver != "jacobi_blocked" && solver != "auto" && solver != "cg" && solver != "cg_fused" &&
      solver != "multigrid")
    throw ConfigError(config.where("poisson.solver"), "poisson.solver",
                      "'" + solver + "' runs on one rank only so far, this run has " + std::to_string(ranks),
                      "jacobi, jacobi_blocked, cg or multigrid (auto means jacobi, cg_fused runs as cg over MPI "
                      "ranks), or run without mpirun");
  if (solver == "jacobi_blocked" && config.string("poisson.blocked.kernel") == "resident")
    throw ConfigError(config.where("poisson.blocked.kernel"), "poisson.blocked.kernel",
                      "'resident' keeps the whole grid in one launch and runs on one rank only",
                      "tiles, registers or auto over MPI ranks");
  if (config.string("poisson.boundary") != "dirichlet")
    throw ConfigError(config.where("poisson.boundary"), "poisson.boundary",
                      "'" + config.string("poisson.boundary") + "' runs on one rank only so far",
                      "dirichlet over MPI ranks");
#if PORTASOLVE_HAVE_MPI
  const std::string source = config.string("problem.source");
  const ImageSize size = source == "manufactured" ? ImageSize{static_cast<double>(config.integer("problem.rows")),
                                                              static_cast<double>(config.integer("problem.cols"))}
                                                  : image_size(config, "problem", source, "problem.source");
  const std::int64_t interior_rows = static_cast<std::int64_t>(size.rows) - 2,
                     interior_cols = static_cast<std::int64_t>(size.cols) - 2;
  std::array<int, 2> dims{1, 1};
  try {
    dims = distributed::process_grid(ranks, interior_rows, interior_cols);
  } catch (const std::invalid_argument& error) {
    const std::string key = image_size_key("problem", source == "manufactured" ? "synthetic" : source);
    throw ConfigError(config.where(key), key, error.what(), "a larger grid or fewer ranks");
  }
  // jacobi_blocked's deep halo reaches one neighbour: blocks at least k across where the grid is split.
  const std::string why = poisson::deep_halo_refusal(dims, interior_rows, interior_cols,
                                                     config.integer("poisson.blocked.sweeps_per_launch"));
  if (solver == "jacobi_blocked" && !why.empty())
    throw ConfigError(config.where("poisson.blocked.sweeps_per_launch"), "poisson.blocked.sweeps_per_launch", why,
                      "fewer sweeps per launch or fewer ranks");
#endif
}

Preflight preflight_poisson(const config::Config& config) {
  const std::string source = config.string("problem.source");
  const ImageSize size = source == "manufactured" ? ImageSize{static_cast<double>(config.integer("problem.rows")),
                                                              static_cast<double>(config.integer("problem.cols"))}
                                                  : image_size(config, "problem", source, "problem.source");
  if (config.string("problem.initial") == "pgm" && config.has("problem.initial_file"))
    require_readable_pgm(config.string("problem.initial_file"));
  const double n = size.pixels();
  const double t = precision_bytes(config);
  Preflight plan{{},
                 image_size_key("problem", source == "manufactured" ? "synthetic" : source),
                 "reduce problem.rows/cols (or the image) or use precision: float"};
  // Device: B, the start and X, and the solver's own grids.
  plan.memory.device(3 * n, t);
  ps::SolverOptions asked;
  asked.method = ps::method_from_name(config.string("poisson.solver"));
  const std::string solver = ps::name_of(ps::chosen_method(asked));  // what auto runs
  if (solver == "jacobi" || config.string("benchmark.baseline") == "jacobi") plan.memory.device(n, t);  // next sweep
  const std::string blocked_kernel = config.string("poisson.blocked.kernel");
  if (solver == "jacobi_blocked" && (blocked_kernel == "resident" || blocked_kernel == "auto"))
    plan.memory.device(2 * n, t + 4);  // resident tiles' stamped copies (auto picks them on GPUs)
  if (solver == "cg" || solver == "cg_fused") plan.memory.device(3 * n, t);  // r, p, q
  // Coarse levels: u and f, a third of the fine grid's points in all (4/3 - 1 under full coarsening,
  // semi-coarsened levels can reach the fine grid's size); Jacobi and Chebyshev add buffers on every level.
  const std::string preconditioner = config.string("poisson.cg.preconditioner");
  if (solver == "cg" && preconditioner != "none") plan.memory.device(preconditioner == "multigrid" ? 3 * n : n, t);
  if (solver == "multigrid") {
    const std::string smoother = config.string("poisson.multigrid.smoother");
    const double buffers = 2 + (smoother == "jacobi" ? 1 : smoother == "chebyshev" ? 2 : 0);
    plan.memory.device(buffers * n, t);
  }
  // spectral: the interior, its row transforms and two transposed copies;
  // on CUDA the sine transforms' extended rows and their spectra as much again.
  // Dirichlet rows run at the transform length, up to twice the width (portable FFT).
  if (solver == "spectral") {
    double widening = 1;
    if (config.string("poisson.boundary") == "dirichlet") {
      const double rows = std::max(size.rows - 2, 1.0), cols = std::max(size.cols - 2, 1.0);
      widening =
          double(ps::spectral_row_length(std::int64_t(rows), std::int64_t(cols),
                                         ps::spectral_fft_from_name(config.string("poisson.spectral.fft")),
                                         ps::spectral_length_from_name(config.string("poisson.spectral.length")))) /
          cols;
    }
    plan.memory.device(8 * n * widening, t);
  }
  if (solver == "cg" && config.string("poisson.cg.operator") == "crs")
    plan.memory.device(n, 8 + 5 * (8 + t));  // row map, 5 columns and values a row
  // Host, in float64: while loading the image, its copy, B, the start and the
  // known solution; then the solution read back and one grid converted for
  // writing, and the staging mirror of each upload.
  plan.memory.host(5 * n, 8);
  plan.memory.host(n, t);
  return plan;
}

Experiment poisson_experiment() {
  const char* summary = "2-D Poisson equation: Jacobi (plain, blocked), CG; image reconstruction from its Laplacian";
  return {"poisson", summary, add_poisson_schema, run_poisson, preflight_poisson, check_poisson_ranks};
}

}  // namespace portasolve::drivers
