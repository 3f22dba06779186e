#pragma once
// How a Poisson solve runs. The problem is L X = B on the interior of a
// rows x cols grid whose outer ring holds fixed (Dirichlet) values; L is the
// 5-point Laplacian with unit spacing, so one Jacobi sweep is
//   X'[i,j] = (X[i-1,j] + X[i+1,j] + X[i,j-1] + X[i,j+1] - B[i,j]) / 4.
#include <cstdint>
#include <string>
#include <vector>

namespace portasolve::poisson {

// jacobi: one launch per sweep. jacobi_blocked: `sweeps_per_launch` sweeps per
// launch inside team scratch. cg: conjugate gradients on Kokkos Kernels'
// BLAS. cg_fused: the same iteration in two fused kernels per step whose
// scalars stay on the device, the host reading them only at checks.
// multigrid: geometric matrix-free multigrid cycles (multigrid.cpp); an
// iteration is one cycle and every cycle ends with a residual check.
// spectral: a direct solve through fast sine transforms (spectral.cpp), one
// "iteration", exact to rounding.
// automatic ("auto"): the fastest method that applies: spectral, on every
// backend (chosen_method; HIP's FFTs run on the portable kernels).
enum class Method { jacobi, jacobi_blocked, cg, cg_fused, multigrid, spectral, automatic };

// jacobi_blocked's kernel: register bands (jacobi_registers.hpp: a warp per
// band of columns, the sweeps in registers, at most 8 per launch), tiles in
// team scratch (jacobi_blocked.hpp, any count), or resident tiles
// (jacobi_resident.hpp: one launch per residual check, a tile per
// multiprocessor in registers, k sweeps between exchanges with the
// neighbouring tiles; grids that one tile per multiprocessor covers). auto:
// where no tile shape (tile_rows, tile_cols, team_rows) is asked for, on
// GPUs resident tiles where they fit, register bands where they apply and the
// grid fills the device; tiles otherwise.
enum class BlockedKernel { automatic, registers, tiles, resident };
constexpr int register_band_sweeps = 8;

// How cg applies L: a matrix-free stencil functor or an assembled
// KokkosSparse::CrsMatrix through KokkosSparse::spmv.
enum class CgOperator { matrix_free, crs };

// cg_fused's kernels: two launches a step, or one resident launch a residual
// check (cg_resident.hpp: a team per multiprocessor, the step's two
// reductions through a grid-wide barrier of its own). auto: resident on
// GPUs, where launches set the pace of small grids; launches on hosts.
enum class CgKernel { automatic, launches, resident };

// Multigrid's cycle shape (V: one coarse visit per level, W: two, F: an F
// then a V cycle on the coarser level) and smoother (red-black Gauss-Seidel,
// weighted Jacobi, Chebyshev polynomial in D^-1 L).
enum class MultigridCycle { v, w, f };
enum class MultigridSmoother { rbgs, jacobi, chebyshev };

// cg's preconditioner M ~ A = -L, z = M^-1 r: none; jacobi (A's diagonal,
// 4: a scaling, so the iterates are plain CG's); multigrid (one cycle of
// `multigrid`'s shape and smoother from zero, the Gauss-Seidel post-smoothing
// in the reverse colour order so that M is symmetric; pre_sweeps and
// post_sweeps should be equal; fmg does not apply).
enum class CgPreconditioner { none, jacobi, multigrid };

struct MultigridOptions {
  MultigridCycle cycle = MultigridCycle::v;
  MultigridSmoother smoother = MultigridSmoother::rbgs;
  int pre_sweeps = 2, post_sweeps = 2;  // smoothing sweeps before and after the coarse correction
  // Coarsening stops at a level with at most this many points (dirichlet:
  // interior points); that level is solved by Gauss-Seidel to rounding.
  int coarsest_size = 16;
  // Over MPI ranks: the first coarse level with at most this many points
  // (or where a rank would own fewer than a few points each way it is
  // split) is gathered onto every rank, which runs that level and the
  // coarser ones itself, in place of exchanges that carry almost nothing.
  int gather_size = 4096;
  bool fmg = false;           // full multigrid start (counted as the first cycle)
  double jacobi_omega = 0.8;  // weighted Jacobi smoother's weight, in (0, 1]
};
// Which problem is solved. dirichlet: the outer ring holds fixed values, L X
// = B on the interior (every method). The other two have no fixed values:
// the whole rows x cols grid is the domain and L X = B at every point (the
// spectral and multigrid methods only; whole_grid.hpp defines them):
//   periodic: neighbours wrap around (row -1 is row rows-1). B must sum to
//     zero; X is the solution of zero mean.
//   neumann: zero flux through mirror points, X[-1, j] = X[1, j] and
//     X[rows, j] = X[rows-2, j] (likewise for columns): the node-centred
//     mirror that DCT-I diagonalises. B's trapezoid-weighted sum (weight 1/2
//     on each edge row and column) must be zero; X is the solution of zero
//     trapezoid-weighted mean.
// B that breaks its condition (beyond rounding) is an InputError.
enum class Boundary { dirichlet, neumann, periodic };

// What runs the spectral method's FFTs: the build's library (FFTW3 on hosts,
// cuFFT on CUDA; HIP's are the portable kernels) or portasolve's portable
// Kokkos kernels (fft/fft.hpp, Implementation::portable), which a CUDA or
// host build runs to check or time what a HIP build runs.
enum class SpectralFft { library, portable };

// The length the dirichlet spectral solve's row transforms run at. fast: the
// nearest n' >= n (n the interior's columns) whose FFTs are fast, n' + 1
// factoring into 2, 3, 5 and 7 on the libraries, a power of two on the
// portable kernels; the n' - n columns added beyond the interior are an
// embedding, the right boundary enforced on its column by a capacitance
// correction (spectral.cpp), exact to rounding as the plain solve.
// exact: at n itself (8192 columns: n + 1 = 8191 is prime, and FFTs of
// such lengths run Bluestein's algorithm, 3-8x slower).
enum class SpectralLength { fast, exact };

struct SolverOptions {
  Method method = Method::jacobi;
  Boundary boundary = Boundary::dirichlet;
  std::int64_t max_iterations = 10000;  // sweeps (Jacobi) or steps (CG)
  double tolerance = 0;                 // relative residual; 0 runs max_iterations
  std::int64_t check_every = 1000;      // iterations between residual checks (multigrid: 1)
  double omega = 1;                     // Jacobi weight; 1 is the plain sweep
  int sweeps_per_launch = 8;            // jacobi_blocked: k, also the halo width
  BlockedKernel blocked_kernel = BlockedKernel::automatic;
  // jacobi_blocked tiles: points each team writes; 0 picks the largest square
  // tile whose region (tile plus halo) fits the backend's team scratch.
  // Register bands: tile_rows is the rows a band writes (0: 64).
  int tile_rows = 0, tile_cols = 0;
  // jacobi_blocked on GPUs: region rows a team works on at once (a warp
  // each); 0 = as many as fit 1024 threads. Hosts use one thread per team.
  int team_rows = 0;
  CgOperator cg_operator = CgOperator::matrix_free;
  CgKernel cg_kernel = CgKernel::automatic;
  MultigridOptions multigrid;
  CgPreconditioner cg_preconditioner = CgPreconditioner::none;  // Method::cg only
  SpectralFft spectral_fft = SpectralFft::library;              // Method::spectral only
  SpectralLength spectral_length = SpectralLength::fast;        // Method::spectral, dirichlet only
};

const std::vector<std::string>& method_names();          // "jacobi", ..., "multigrid", "spectral", "auto"
const std::vector<std::string>& cg_operator_names();     // "matrix_free", "crs"
const std::vector<std::string>& blocked_kernel_names();  // "auto", "registers", "tiles", "resident"
const std::vector<std::string>& cg_kernel_names();       // "auto", "launches", "resident"
const std::vector<std::string>& boundary_names();        // "dirichlet", "neumann", "periodic"
Boundary boundary_from_name(const std::string& name);
std::string name_of(Boundary boundary);
Method method_from_name(const std::string& name);
CgOperator cg_operator_from_name(const std::string& name);
std::string name_of(Method method);
std::string name_of(CgOperator cg_operator);
BlockedKernel blocked_kernel_from_name(const std::string& name);
std::string name_of(BlockedKernel kernel);
CgKernel cg_kernel_from_name(const std::string& name);
std::string name_of(CgKernel kernel);

const std::vector<std::string>& multigrid_cycle_names();     // "v", "w", "f"
const std::vector<std::string>& multigrid_smoother_names();  // "rbgs", "jacobi", "chebyshev"
const std::vector<std::string>& cg_preconditioner_names();   // "none", "jacobi", "multigrid"
CgPreconditioner cg_preconditioner_from_name(const std::string& name);
std::string name_of(CgPreconditioner preconditioner);
const std::vector<std::string>& spectral_fft_names();  // "library", "portable"
SpectralFft spectral_fft_from_name(const std::string& name);
std::string name_of(SpectralFft fft);
const std::vector<std::string>& spectral_length_names();  // "fast", "exact"
SpectralLength spectral_length_from_name(const std::string& name);
std::string name_of(SpectralLength length);

// n' of SpectralLength for an interior of `interior_rows` x `interior_cols`
// points: the dirichlet spectral solve's row transform length (the workspace
// holds three grids of that width), fft::fast_length's for a DST-I of n
// points (n itself where longer rows would exceed the libraries' int range).
std::int64_t spectral_row_length(std::int64_t interior_rows, std::int64_t interior_cols, SpectralFft fft,
                                 SpectralLength length);
MultigridCycle multigrid_cycle_from_name(const std::string& name);
MultigridSmoother multigrid_smoother_from_name(const std::string& name);
std::string name_of(MultigridCycle cycle);
std::string name_of(MultigridSmoother smoother);

// The kernel jacobi_blocked runs with these options on a rows x cols grid
// (never automatic). Needs Kokkos initialised.
BlockedKernel chosen_blocked_kernel(const SolverOptions& options, std::int64_t rows, std::int64_t cols);

// The method solve() runs with these options (never automatic): auto runs
// spectral, on every backend (fft/fft.hpp: HIP's plans run on the portable
// kernels).
Method chosen_method(const SolverOptions& options);

// The kernel cg_fused runs with these options (never automatic).
CgKernel chosen_cg_kernel(const SolverOptions& options);

// Throws std::invalid_argument naming the first option out of range.
void check(const SolverOptions& options);
// The coarsest level is relaxed to rounding, so keep it small.
constexpr int max_coarsest_size = 4096;
void check(const MultigridOptions& options);

}  // namespace portasolve::poisson
