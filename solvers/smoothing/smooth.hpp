#pragma once
// One entry point for every kernel, border mode and pixel type: `passes`
// smoothing passes of `input` into `output`.
#include <cstdint>
#include <functional>
#include <string>

#include "core/spaces.hpp"
#include "solvers/smoothing/options.hpp"

namespace portasolve::smoothing {

struct SmoothReport {
  std::int64_t passes = 0;
  std::int64_t launches = 0;
  int radius = 0;
  bool separable = false;
  int passes_per_launch = 1;                          // > 1: fused in team scratch
  FusedKernel fused_kernel = FusedKernel::automatic;  // fused launches: the kernel (automatic: none)
  // Separable windows, one pass a launch: tiles or two_launches (automatic: not separable, or fused).
  SeparableKernel separable_kernel = SeparableKernel::automatic;
  int tile_rows = 0, tile_cols = 0;  // fused launches and separable tiles: pixels a team writes
};

// Called on the host after each launch with the passes done so far (the
// device may still be running); may throw to abandon the run.
using PassCallback = std::function<void(std::int64_t passes_done)>;

// The passes smooth() fuses in one launch for these options:
// passes_per_launch, or its automatic choice (8 radius-1 2-D passes on
// GPUs, else 1); 1 for radius 0. Not capped by the pass count.
int fused_passes_per_launch(const SmoothingOptions& options);

// Pixel: std::uint8_t, std::uint16_t, std::int32_t, float or double.
// output must have input's extents and not alias it.
//
// Every kernel and copy runs on `exec`, in order after the work already
// queued there; the caller fences its own earlier work on other instances
// (input written there, say). Asynchronous: it may return before exec has
// finished (it waits for exec only before freeing its own work arrays:
// several launches, two_launches, more than DeviceTaps::inline_taps
// weights), so fence exec, or deep_copy on exec and fence it, before the
// host reads output. Its temporaries are its own, so calls on different
// instances may run at once on different outputs. The overload without
// `exec` runs on ExecSpace(), the default instance.
//
// Throws OptionError (an std::invalid_argument naming the options field)
// for options this backend cannot run, a fused or separable tile that does
// not fit the team scratch included; std::invalid_argument for an empty
// image or one of 2^31 pixels or more, or an output whose extents differ
// from the input's or which aliases it; whatever on_launch throws.
template <class Pixel>
SmoothReport smooth(const ExecSpace& exec, const View2D<const Pixel>& input, const View2D<Pixel>& output,
                    const SmoothingOptions& options, const PassCallback& on_launch = {});
template <class Pixel>
SmoothReport smooth(const View2D<const Pixel>& input, const View2D<Pixel>& output, const SmoothingOptions& options,
                    const PassCallback& on_launch = {});

}  // namespace portasolve::smoothing
