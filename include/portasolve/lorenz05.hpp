#pragma once
// portasolve's Lorenz 2005 models I-III: ensembles integrated by RK4 on the
// device, one row of an E x N View per member.
//
//   lorenz05::Ensemble<T>(parameters, layout): parameters (ModelParameters:
//       model, N, K, I, F, b, c, dt), layout automatic | team | flat | vector;
//       advance(states, steps) integrates every member in place.
//   lorenz05::ensemble_statistics(states) -> mean and spread per point;
//       partial_statistics, merge_statistics, finish_statistics: the same
//       for blocks of members held apart (MPI ranks), merged in a fixed order.
// Errors: std::invalid_argument for bad parameters, or the team (vector)
// layout when a member's state does not fit the team (thread) scratch.
#include "solvers/lorenz05/ensemble.hpp"
#include "solvers/lorenz05/parameters.hpp"
