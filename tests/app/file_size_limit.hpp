#pragma once
// A full disk without root or a mount: while a FileSizeLimit lives, writes
// that would take a file past `bytes` fail with EFBIG (SIGXFSZ ignored), as
// writes fail with ENOSPC on a full disk. Only the soft limit is lowered, so
// the destructor can restore it.
#include <sys/resource.h>

#include <csignal>

namespace portasolve::testing {

class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    getrlimit(RLIMIT_FSIZE, &previous_);
    previous_handler_ = std::signal(SIGXFSZ, SIG_IGN);
    const rlimit limit{bytes, previous_.rlim_max};
    setrlimit(RLIMIT_FSIZE, &limit);
  }
  ~FileSizeLimit() {
    setrlimit(RLIMIT_FSIZE, &previous_);
    std::signal(SIGXFSZ, previous_handler_);
  }
  FileSizeLimit(const FileSizeLimit&) = delete;
  FileSizeLimit& operator=(const FileSizeLimit&) = delete;

 private:
  rlimit previous_{};
  void (*previous_handler_)(int) = nullptr;
};

}  // namespace portasolve::testing
