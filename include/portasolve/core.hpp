#pragma once
// What every portasolve solver shares: the execution and memory spaces
// (ExecSpace, View2D, ...), the error types (Error, InputError, SolverError,
// IoError), Kokkos session helpers, and cooperative interruption
// (throw_if_interrupted, polled by long solves).
#include "core/errors.hpp"
#include "core/interrupt.hpp"
#include "core/kokkos_session.hpp"
#include "core/spaces.hpp"
