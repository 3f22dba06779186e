#pragma once
// RAII ownership of Kokkos::initialize / Kokkos::finalize, and a description of
// the backend we run on (for `portasolve info` and result-file attributes).
#include <iosfwd>
#include <string>

namespace portasolve {

struct BackendInfo {
  std::string kokkos_version;    // e.g. "3.4.1"
  std::string execution_space;   // Kokkos' name of the default space, e.g. "Cuda"
  std::string memory_space;      // e.g. "CudaSpace"
  std::string host_space;        // default host execution space
  std::string enabled_backends;  // comma separated, e.g. "Serial, Cuda"
  std::string device;            // GPU name, or the CPU model for host backends
  std::string host_cpu;          // CPU model of the host
  int concurrency = 0;           // threads (host) or maximum resident threads (GPU)
};

class KokkosSession {
 public:
  // Passes --kokkos-* arguments through to Kokkos, which removes them from argv.
  KokkosSession(int& argc, char* argv[]);
  KokkosSession();
  ~KokkosSession();
  KokkosSession(const KokkosSession&) = delete;
  KokkosSession& operator=(const KokkosSession&) = delete;
};

// Needs an initialized Kokkos.
BackendInfo backend_info();
void print_backend_info(std::ostream& out, const BackendInfo& info);

// Teams that surely run at once, one per multiprocessor: the device's SMs
// (CUDA) or CUs (HIP), or the threads of a host backend. Needs an
// initialized Kokkos.
int compute_units();

// Kokkos' version macro as "major.minor.patch"; does not need Kokkos running.
std::string kokkos_version_string();

}  // namespace portasolve
