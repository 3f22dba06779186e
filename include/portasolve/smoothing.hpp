#pragma once
// portasolve's image smoothing: box, weighted and Gaussian windows, repeated
// passes (fused in team scratch where it pays), six border modes.
//
//   smoothing::smooth(input, output, options[, on_launch]) -> SmoothReport
//       input, output: rows x cols Views (default memory space) of
//                      std::uint8_t, std::uint16_t, std::int32_t, float or
//                      double; output must not alias input;
//       options:       SmoothingOptions (window, radius / sigma, border mode,
//                      passes, kernel choice);
//       on_launch:     called on the host after each launch with the passes
//                      done so far, may throw to stop.
//   smoothing::cyclic_running_smoother / running_smoother_weights: the running
//   smoother of the Lorenz 2005 model, usable inside kernels.
// Errors: std::invalid_argument for bad options or a fused tile that does not
// fit the team scratch.
#include "solvers/smoothing/options.hpp"
#include "solvers/smoothing/running_smoother.hpp"
#include "solvers/smoothing/smooth.hpp"
