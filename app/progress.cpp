#include "app/progress.hpp"

#include <cstdio>
#include <ostream>

namespace portasolve {

namespace {

std::string format_seconds(double s) {
  char text[32];
  if (s < 60)
    std::snprintf(text, sizeof text, "%.1f s", s);
  else if (s < 3600)
    std::snprintf(text, sizeof text, "%dm%02ds", static_cast<int>(s) / 60, static_cast<int>(s) % 60);
  else
    std::snprintf(text, sizeof text, "%dh%02dm", static_cast<int>(s) / 3600, (static_cast<int>(s) / 60) % 60);
  return text;
}

}  // namespace

Progress::Progress(std::string task, std::int64_t total, std::string unit, std::ostream* out, double interval_s)
    : task_(std::move(task)),
      total_(total),
      unit_(std::move(unit)),
      out_(out),
      interval_s_(interval_s),
      start_(Clock::now()),
      last_print_(start_) {}

std::string Progress::line(std::int64_t done, std::optional<double> residual, double elapsed_s) const {
  char text[256];
  const double fraction = total_ > 0 ? static_cast<double>(done) / static_cast<double>(total_) : 0.0;
  int n = std::snprintf(text, sizeof text, "%s: %s %lld/%lld (%.0f%%)", task_.c_str(), unit_.c_str(),
                        static_cast<long long>(done), static_cast<long long>(total_), 100.0 * fraction);
  if (residual && n < static_cast<int>(sizeof text))
    n += std::snprintf(text + n, sizeof text - n, ", residual %.3e", *residual);
  std::string result(text);
  result += ", elapsed " + format_seconds(elapsed_s);
  if (done > 0 && done < total_) result += ", ETA " + format_seconds(elapsed_s * (1.0 - fraction) / fraction);
  return result;
}

void Progress::update(std::int64_t done, std::optional<double> residual, bool force) {
  last_done_ = done;
  if (!out_) return;
  const auto now = Clock::now();
  if (!force && std::chrono::duration<double>(now - last_print_).count() < interval_s_) return;
  *out_ << line(done, residual, std::chrono::duration<double>(now - start_).count()) << std::endl;
  last_print_ = now;
  printed_done_ = done;
  printed_task_ = task_;
}

void Progress::finish(std::optional<double> residual) {
  if (printed_done_ >= 0 && (printed_done_ != last_done_ || printed_task_ != task_)) update(last_done_, residual, true);
}

}  // namespace portasolve
