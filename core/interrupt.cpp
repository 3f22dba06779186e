#include "core/interrupt.hpp"

#include <atomic>
#include <csignal>

namespace portasolve {

namespace {

// Set by the signal handler, read by any thread (the host loops poll it from
// worker threads too): a lock-free atomic is both async-signal-safe and free
// of data races, which a volatile sig_atomic_t is only within one thread.
std::atomic<int> stop_requested{0};
static_assert(std::atomic<int>::is_always_lock_free, "a signal handler may only touch lock-free atomics");
struct sigaction previous_int, previous_term, previous_hup;

extern "C" void on_signal(int signal) {
  if (stop_requested.load() != 0) {
    std::signal(signal, SIG_DFL);
    std::raise(signal);
    return;
  }
  stop_requested.store(1);
}

}  // namespace

InterruptHandler::InterruptHandler() {
  stop_requested.store(0);
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, &previous_int);
  sigaction(SIGTERM, &action, &previous_term);
  // The terminal went away: stop the same way, unless hangups are ignored
  // (nohup), which the run keeps doing.
  sigaction(SIGHUP, &action, &previous_hup);
  if (previous_hup.sa_handler == SIG_IGN) sigaction(SIGHUP, &previous_hup, nullptr);
}

InterruptHandler::~InterruptHandler() {
  sigaction(SIGINT, &previous_int, nullptr);
  sigaction(SIGTERM, &previous_term, nullptr);
  sigaction(SIGHUP, &previous_hup, nullptr);
}

bool interrupt_requested() noexcept { return stop_requested.load() != 0; }

void throw_if_interrupted() {
  if (stop_requested.load() != 0) throw Interrupted();
}

}  // namespace portasolve
