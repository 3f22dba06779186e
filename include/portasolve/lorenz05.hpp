#pragma once
// portasolve's Lorenz 2005 models I-III: ensembles integrated by RK4 on the
// device, one row of an E x N View per member.
//
//   lorenz05::Ensemble<T>([exec,] parameters, layout): parameters
//       (ModelParameters: model, N, K, I, F, b, c, dt), layout automatic |
//       team | flat | vector | resident; advance([exec,] states, steps) integrates every
//       member in place.
//   lorenz05::ensemble_statistics([exec,] states) -> mean and spread per
//       point, summed pairwise over the members' indices; for blocks of
//       members held apart (MPI ranks): partial_sums([exec,] states, block)
//       and partial_squares(..., mean) at the block's sum_nodes, then
//       complete_sums of every block's in member order, ensemble_mean and
//       ensemble_spread: the same bits as one block of all members.
//   exec: the ExecSpace instance (a CUDA stream, say) every kernel and copy
//       runs on, in order after its earlier work; the caller fences its own
//       earlier work on other instances. On return the result is complete,
//       except advance(), which is asynchronous: fence exec before the host
//       reads states. Without it: ExecSpace(), the default instance.
// Errors: OptionError (an std::invalid_argument naming the parameter, or
// "layout") for bad parameters, or the team (vector, resident) layout when a
// member's state does not fit the team (thread, team) scratch; std::invalid_argument for
// states of another N, partial sums of a block that is not the states' or
// not within the ensemble, completing from blocks that do not tile the
// ensemble in order, or an unknown layout name.
#include "solvers/lorenz05/ensemble.hpp"
#include "solvers/lorenz05/parameters.hpp"
#include "solvers/lorenz05/statistics.hpp"
