#pragma once
// The loop every driver times its solver in: run.warmup untimed repeats, then
// run.repeats timed ones, each starting with a check for Ctrl-C. A driver
// gives only what one repeat does; which repeats are recorded, the progress
// lines and the profiling regions are the same for every driver.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "app/config.hpp"
#include "app/progress.hpp"
#include "core/interrupt.hpp"
#include "core/profiling.hpp"
#include "core/timer.hpp"
#include "drivers/experiment.hpp"

namespace portasolve::drivers {

// run.warmup and run.repeats.
struct RepeatCount {
  int warmup = 0, repeats = 1;
  RepeatCount(int warmup_count, int repeat_count) : warmup(warmup_count), repeats(repeat_count) {}
  explicit RepeatCount(const config::Config& config)
      : warmup(static_cast<int>(config.integer("run.warmup"))),
        repeats(static_cast<int>(config.integer("run.repeats"))) {}
  int total() const { return warmup + repeats; }
};

// One turn of the loop.
struct Repeat {
  int index;  // -warmup .. repeats - 1: the warm-ups are negative
  RepeatCount count;
  bool timed() const { return index >= 0; }
  bool last() const { return index == count.repeats - 1; }
  int done() const { return index + count.warmup + 1; }  // repeats run, this one included
  // `task` and, where a run has more than one repeat, " 2/3".
  std::string numbered(const std::string& task) const {
    return count.total() > 1 ? task + " " + std::to_string(done()) + "/" + std::to_string(count.total()) : task;
  }
};

// Runs body(repeat) for the warm-ups, then the timed repeats, each after a
// check for Ctrl-C; returns the seconds body returned for the timed ones.
template <class Body>
RepeatTimes each_repeat(const RepeatCount& count, Body&& body) {
  RepeatTimes times;
  for (int r = -count.warmup; r < count.repeats; ++r) {
    throw_if_interrupted();
    const double seconds = body(Repeat{r, count});
    if (r >= 0) times.seconds.push_back(seconds);
  }
  return times;
}

// Seconds `work` takes, the device work it launches included: the clock starts
// after a fence and stops after one.
template <class Work>
double fenced_seconds(Work&& work) {
  Kokkos::fence();
  Stopwatch watch;
  work();
  Kokkos::fence();
  return watch.seconds();
}

// What one repeat of a solve reports back to the loop: its seconds and, for
// the progress line's last word, the residual it reached.
struct RepeatResult {
  double seconds = 0;
  std::optional<double> residual;
};

// A solve timed over the repeats: its report (the last repeat's) and the times.
template <class Report>
struct TimedRun {
  Report report;
  RepeatTimes times;
};

// The repeats of a solve that has a progress line of its own each repeat.
struct RepeatTask {
  std::string name;  // "poisson/cg": the profiling region and the progress lines' task
  std::int64_t total = 0;
  std::string unit;      // one step of the progress line
  bool numbered = true;  // " 2/3" after the task in the progress lines
};

// Each repeat: reset() (untimed, before its progress line starts: the start
// copied back), then in the profiling region task.name with a fresh progress
// line, solve(repeat, progress), which returns the RepeatResult it timed.
template <class Reset, class Solve>
RepeatTimes repeat_with_progress(const RunContext& context, const RepeatTask& task, Reset&& reset, Solve&& solve) {
  return each_repeat(RepeatCount(context.config), [&](const Repeat& repeat) {
    reset();
    Progress progress =
        context.make_progress(task.numbered ? repeat.numbered(task.name) : task.name, task.total, task.unit);
    ProfilingRegion region(task.name);
    const RepeatResult result = solve(repeat, progress);
    progress.finish(result.residual);
    return result.seconds;
  });
}

}  // namespace portasolve::drivers
