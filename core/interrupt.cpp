#include "core/interrupt.hpp"

#include <csignal>

namespace portasolve {

namespace {

volatile std::sig_atomic_t stop_requested = 0;
struct sigaction previous_int, previous_term, previous_hup;

extern "C" void on_signal(int signal) {
  if (stop_requested) {
    std::signal(signal, SIG_DFL);
    std::raise(signal);
    return;
  }
  stop_requested = 1;
}

}  // namespace

InterruptHandler::InterruptHandler() {
  stop_requested = 0;
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

bool interrupt_requested() noexcept { return stop_requested != 0; }

void throw_if_interrupted() {
  if (stop_requested) throw Interrupted();
}

}  // namespace portasolve
