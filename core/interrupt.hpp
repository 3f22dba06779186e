#pragma once
// Ctrl-C (SIGINT), SIGTERM and SIGHUP (unless ignored, as under nohup) become a request to stop: long loops poll
// throw_if_interrupted() at safe points, the exception unwinds through RAII
// (a ResultFile removes its partial file) and the process exits with 130.
// A second signal kills the process at once.
#include "core/errors.hpp"

namespace portasolve {

class Interrupted : public Error {
 public:
  Interrupted() : Error("interrupted") {}
  int exit_code() const noexcept override { return 130; }
};

class InterruptHandler {
 public:
  InterruptHandler();   // installs the handlers
  ~InterruptHandler();  // restores the previous ones
  InterruptHandler(const InterruptHandler&) = delete;
  InterruptHandler& operator=(const InterruptHandler&) = delete;
};

bool interrupt_requested() noexcept;
void throw_if_interrupted();

}  // namespace portasolve
