#pragma once
// portasolve's Lorenz 2005 models I-III: ensembles integrated by RK4 on the
// device, one row of an E x N View per member.
//
//   lorenz05::Ensemble<T>([exec,] parameters, layout): parameters
//       (ModelParameters: model, N, K, I, F, b, c, dt), layout automatic |
//       team | flat | vector | resident; advance([exec,] states, steps) integrates every
//       member in place.
//   lorenz05::ensemble_statistics([exec,] states) -> mean and spread per
//       point; partial_statistics([exec,] states), merge_statistics,
//       finish_statistics: the same for blocks of members held apart (MPI
//       ranks), merged in a fixed order.
//   exec: the ExecSpace instance (a CUDA stream, say) every kernel and copy
//       runs on, in order after its earlier work; the caller fences its own
//       earlier work on other instances. On return the result is complete,
//       except advance(), which is asynchronous: fence exec before the host
//       reads states. Without it: ExecSpace(), the default instance.
// Errors: OptionError (an std::invalid_argument naming the parameter, or
// "layout") for bad parameters, or the team (vector, resident) layout when a
// member's state does not fit the team (thread, team) scratch; std::invalid_argument for
// states of another N, partial statistics of no members, merging blocks of
// different N, or an unknown layout name.
#include "solvers/lorenz05/ensemble.hpp"
#include "solvers/lorenz05/parameters.hpp"
