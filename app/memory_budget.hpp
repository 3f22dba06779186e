#pragma once
// Memory an experiment needs against memory the machine has, checked before
// anything large is allocated: a run that cannot fit stops at once with the
// keys to change instead of failing (or swapping) minutes later. Sizes are
// doubles so absurd configs (10^6 x 10^6 grids) do not overflow.
#include <exception>
#include <iosfwd>
#include <optional>
#include <string>

#include "core/errors.hpp"

namespace portasolve {

// What one run allocates: arrays in the execution space's memory (`device`)
// and host-side arrays (`host`: inputs, mirrors, output buffers). On host
// backends both live in host memory.
struct MemoryNeed {
  double device_bytes = 0;
  double host_bytes = 0;

  void device(double count, double bytes_each) { device_bytes += count * bytes_each; }
  void host(double count, double bytes_each) { host_bytes += count * bytes_each; }
};

struct MemoryCapacity {
  double device_bytes = 0;     // free device memory (GPUs), or the host's figure below on host backends
  double host_bytes = 0;       // MemAvailable, else physical memory
  bool device_is_host = true;  // host backends: device and host needs add up in host memory
  std::string device_source;   // where the device figure came from, e.g. "cudaMemGetInfo"
  std::string host_source;     // e.g. "MemAvailable in /proc/meminfo"
};

// Environment override of both capacities, for tests and for leaving room to
// other processes: a positive integer number of bytes.
inline constexpr const char* memory_limit_env = "PORTASOLVE_MEMORY_LIMIT_BYTES";

// What this machine offers now. On CUDA/HIP the current device's free memory
// (cudaMemGetInfo / hipMemGetInfo; call after Kokkos selected the device).
// The override replaces both figures; a malformed override is a ConfigError.
// `ask_device` false (before Kokkos has chosen a GPU) leaves a GPU's figure
// unknown (infinite), checking only the host's; host backends ignore it.
MemoryCapacity memory_capacity(bool ask_device = true);

// "120.0 GiB", "512.0 MiB", "12 bytes".
std::string format_bytes(double bytes);

// Throws ConfigError at `where` / `key` when `need` does not fit `capacity`:
// "<subject> needs 120.0 GiB of device memory, the device has 79.2 GiB (...)
// (allowed: <advice>)"; the subject defaults to "this run".
void check_memory(const MemoryNeed& need, const MemoryCapacity& capacity, const SourceLocation& where,
                  const std::string& key, const std::string& advice, const std::string& subject = {});

// One line for a failed allocation that escaped the estimates: Kokkos'
// "Kokkos failed to allocate memory for label ..." runtime_error (Kokkos 4.x:
// "Kokkos ERROR: Host memory space failed to allocate ..."; its label, size and
// memory space, without the raw text), std::bad_alloc, or the
// std::length_error of an impossible std::vector size. Empty for any other error.
// Kokkos 3.4's HostSpace prints the details to std::cerr and throws a bare
// "Memory allocation failure": with a KokkosAllocationMessages in place the
// printed line is held back and used here.
std::optional<std::string> describe_allocation_failure(const std::exception& error);

// While it lives, std::cerr lines starting "Kokkos failed to allocate memory"
// are kept (for describe_allocation_failure) instead of printed; every other
// line passes through unchanged.
class KokkosAllocationMessages {
 public:
  KokkosAllocationMessages();
  ~KokkosAllocationMessages();
  KokkosAllocationMessages(const KokkosAllocationMessages&) = delete;
  KokkosAllocationMessages& operator=(const KokkosAllocationMessages&) = delete;
  static std::string last();  // the last line held back, or empty

 private:
  class Filter;
  std::streambuf* original_;
  Filter* filter_;
};

}  // namespace portasolve
