#pragma once
// Progress of long runs on stderr: what runs, how far, the residual where there
// is one, elapsed time and ETA, at most once per interval. Reading the clock
// does not fence: callers report at points where the host already waited.
#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <utility>

namespace portasolve {

class Progress {
 public:
  // `unit` names one step ("sweep", "repeat"); `out` null means silent.
  Progress(std::string task, std::int64_t total, std::string unit, std::ostream* out, double interval_s);

  // Prints when `interval_s` has passed since the last line (or `force`).
  void update(std::int64_t done, std::optional<double> residual = std::nullopt, bool force = false);
  // A closing line, if any line was printed before and the last one printed
  // was not already at the last step reported.
  void finish(std::optional<double> residual = std::nullopt);

  // Names what runs from the next line on (a run that times a baseline first).
  void set_task(std::string task) { task_ = std::move(task); }

  // The line update() would print now, for tests and callers with their own output.
  std::string line(std::int64_t done, std::optional<double> residual, double elapsed_s) const;

 private:
  using Clock = std::chrono::steady_clock;
  std::string task_;
  std::int64_t total_;
  std::string unit_;
  std::ostream* out_;
  double interval_s_;
  Clock::time_point start_;
  Clock::time_point last_print_;
  std::int64_t last_done_ = 0;
  std::int64_t printed_done_ = -1;  // the step of the last line printed; -1 none
  std::string printed_task_;        // and its task
};

}  // namespace portasolve
