#pragma once
// Poisson solves over MPI ranks (built with PORTASOLVE_MPI): the interior of
// the grid split into blocks (distributed/grid_decomposition.hpp), one per
// rank, halos exchanged after every sweep. Same options and report as
// solve(); collective over the decomposition's communicator.
//
// jacobi: every sweep updates each point from the same four neighbours as on
// one rank, so the iterate is bit for bit the single-rank one for any rank
// count and split. Residual norms are summed per rank, then across ranks in
// rank order: reruns give the same bits, and they agree with one rank's to
// rounding (the stopping test may then fall one check apart only at a tie).
//
// jacobi_blocked: k = sweeps_per_launch sweeps a launch on the block plus a
// deep halo of k, exchanged every k sweeps (k times fewer, deeper
// exchanges); the same bits as jacobi. Blocks must be at least k points
// across where the grid is split; the resident kernel does not run here.
//
// cg (and cg_fused, which runs as cg here): matrix-free CG, plain or with
// the diagonal (jacobi) or a multigrid cycle over the ranks (the single-rank
// preconditioner's bits) as preconditioner; the dot products are summed across
// ranks in rank order, so the iterates agree with one rank's to rounding and
// reach the same tolerance within a step or two.
//
// multigrid: the single-rank cycles (dirichlet) with every level split like
// the grid while its blocks stay a few points thick and it holds more than
// multigrid.gather_size points; that level and the coarser ones are
// gathered onto every rank and run there (detail/multigrid_ranks.hpp).
// Every point is updated from the same values as on one rank: the iterates
// are the single-rank multigrid's bit for bit, the residual histories agree
// to rounding.
//
// These run on the default execution space instance: there is no overload
// taking an instance (solve(exec, ...) is single-rank), since the halo
// exchange (distributed/) packs on the default instance and waits with
// global fences.
#include <array>
#include <cstdint>
#include <memory>
#include <string>

#include "distributed/grid_decomposition.hpp"
#include "distributed/halo_statistics.hpp"
#include "solvers/poisson/solver.hpp"

namespace portasolve::poisson {

using HaloStatistics = distributed::HaloStatistics;

// x, rhs: this rank's local arrays, (rows_owned + 2) x (cols_owned + 2): its
// block plus a ring holding the grid's boundary values where the block
// touches the grid's edge (the rest of the ring is filled here). Methods:
// jacobi, jacobi_blocked, cg, cg_fused, multigrid; others throw OptionError("method"),
// blocks too thin for the deep halo or the resident blocked kernel
// OptionError("sweeps_per_launch" / "blocked_kernel"), boundaries other than
// dirichlet OptionError("boundary").
// Why jacobi_blocked's deep halo of `depth` cannot run on an interior split
// into a dims process grid (a block thinner than depth where split), or
// empty; the drivers ask before any work.
std::string deep_halo_refusal(const std::array<int, 2>& dims, std::int64_t interior_rows, std::int64_t interior_cols,
                              std::int64_t depth);

template <class T>
struct RankArrays;  // distributed.cpp

// What solve_distributed() keeps between calls when given one (a driver's
// repeats, a time-stepping code): the halo exchanges, with the
// device-to-device links they set up, and the methods' local arrays
// (jacobi_blocked's three deep-ringed ones: the size of the block each;
// multigrid's hierarchy, or cg's multigrid preconditioner, for the same
// multigrid options).
// Reused while the decomposition stays the same (pass a workspace with one
// decomposition only, while it lives); let it go to free them.
template <class T>
struct DistributedWorkspace {
  std::shared_ptr<RankArrays<T>> kept;
  std::int64_t calls() const;  // solves run on what it holds
};

template <class T>
SolveReport solve_distributed(const distributed::GridDecomposition& grid, const View2D<T>& x, const View2D<T>& rhs,
                              const SolverOptions& options, const CheckCallback& on_check = {},
                              HaloStatistics* halo = nullptr, DistributedWorkspace<T>* workspace = nullptr);

}  // namespace portasolve::poisson
