#pragma once
// portasolve's image smoothing: box, weighted and Gaussian windows, repeated
// passes (fused in team scratch where it pays), six border modes.
//
//   smoothing::smooth([exec,] input, output, options[, on_launch]) -> SmoothReport
//       exec:          the ExecSpace instance (a CUDA stream, say) every
//                      kernel and copy runs on, in order after its earlier
//                      work; the caller fences its own earlier work on other
//                      instances. Asynchronous: fence exec before the host
//                      reads output. Without it: ExecSpace(), the default one;
//       input, output: rows x cols Views (default memory space) of
//                      std::uint8_t, std::uint16_t, std::int32_t, float or
//                      double; output must not alias input;
//       options:       SmoothingOptions (window, radius / sigma, border mode,
//                      passes, kernel choice);
//       on_launch:     called on the host after each launch with the passes
//                      done so far, may throw to stop.
//   smoothing::smooth_distributed (MPI builds, distributed.hpp): default
//   instance only.
//   smoothing::cyclic_running_smoother / running_smoother_weights: the running
//   smoother of the Lorenz 2005 model, usable inside kernels.
// Errors: OptionError (an std::invalid_argument naming the SmoothingOptions
// field) for bad options or a fused or separable tile that does not fit the
// team scratch; std::invalid_argument for an empty or too large image, or an
// output of other extents than the input or aliasing it; on_launch's own.
#include "solvers/smoothing/options.hpp"
#include "solvers/smoothing/running_smoother.hpp"
#include "solvers/smoothing/smooth.hpp"
