#include "core/kokkos_session.hpp"

#include <Kokkos_Core.hpp>
#include <cstdlib>
#include <fstream>
#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime_api.h>
#elif defined(KOKKOS_ENABLE_HIP)
#include <hip/hip_runtime_api.h>
#endif
#include <ostream>
#include <sstream>
#include <string>
#include <type_traits>

#include "core/kokkos_compat.hpp"
#include "core/spaces.hpp"

namespace portasolve {

namespace {

// Kokkos' OpenMP backend prints a four-line warning on every start when
// OMP_PROC_BIND is unset. The OpenMP runtime read its environment when it was
// loaded, before main, so setting the variable here changes no binding: it
// names the one the runtime already chose (libgomp: no pinning, or pinning
// when the user set OMP_PLACES or GOMP_CPU_AFFINITY alone) and silences the
// warning. A user's own OMP_PROC_BIND is left as it is.
void state_openmp_binding() {
  if (std::getenv("OMP_PROC_BIND") != nullptr) return;
  const bool placed = std::getenv("OMP_PLACES") != nullptr || std::getenv("GOMP_CPU_AFFINITY") != nullptr;
  setenv("OMP_PROC_BIND", placed ? "true" : "false", /*overwrite=*/0);
}

}  // namespace

KokkosSession::KokkosSession(int& argc, char* argv[]) {
  state_openmp_binding();
  kokkos_compat::rename_legacy_flags(argc, argv);
  Kokkos::initialize(argc, argv);
}

KokkosSession::KokkosSession() {
  state_openmp_binding();
  Kokkos::initialize();
}

KokkosSession::~KokkosSession() { Kokkos::finalize(); }

std::string kokkos_version_string() {
  std::ostringstream out;
  out << KOKKOS_VERSION / 10000 << '.' << (KOKKOS_VERSION / 100) % 100 << '.' << KOKKOS_VERSION % 100;
  return out.str();
}

namespace {

std::string cpu_model() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(" \t", colon + 1));
    }
  }
  return "unknown CPU";
}

std::string enabled_backends() {
  std::string names;
  auto add = [&names](const char* name) { names += names.empty() ? name : std::string(", ") + name; };
#ifdef KOKKOS_ENABLE_SERIAL
  add("Serial");
#endif
#ifdef KOKKOS_ENABLE_OPENMP
  add("OpenMP");
#endif
#ifdef KOKKOS_ENABLE_THREADS
  add("Threads");
#endif
#ifdef KOKKOS_ENABLE_CUDA
  add("Cuda");
#endif
#ifdef KOKKOS_ENABLE_HIP
  add("HIP");
#endif
#ifdef KOKKOS_ENABLE_SYCL
  add("SYCL");
#endif
  return names;
}

// "NAME (ARCH, N UNITS, M MiB)" from a vendor runtime's device properties.
template <class Properties>
std::string describe_device(const Properties& prop, const std::string& arch, const char* units) {
  std::ostringstream out;
  out << prop.name << " (" << arch << ", " << prop.multiProcessorCount << " " << units << ", "
      << (prop.totalGlobalMem >> 20) << " MiB)";
  return out.str();
}

// Through the vendor runtime rather than Kokkos' accessors, which moved
// between Kokkos versions.
std::string device_name() {
#if defined(KOKKOS_ENABLE_CUDA)
  int device = 0;
  cudaDeviceProp prop{};
  if (cudaGetDevice(&device) != cudaSuccess || cudaGetDeviceProperties(&prop, device) != cudaSuccess)
    return "unknown CUDA device";
  return describe_device(prop, "sm_" + std::to_string(prop.major) + std::to_string(prop.minor), "SMs");
#elif defined(KOKKOS_ENABLE_HIP)
  int device = 0;
  hipDeviceProp_t prop{};
  if (hipGetDevice(&device) != hipSuccess || hipGetDeviceProperties(&prop, device) != hipSuccess)
    return "unknown HIP device";
  return describe_device(prop, prop.gcnArchName, "CUs");
#else
  return cpu_model();
#endif
}

}  // namespace

int compute_units() {
#if defined(KOKKOS_ENABLE_CUDA)
  if (std::is_same<ExecSpace, Kokkos::Cuda>::value) {
    int device = 0, units = 0;
    if (cudaGetDevice(&device) == cudaSuccess &&
        cudaDeviceGetAttribute(&units, cudaDevAttrMultiProcessorCount, device) == cudaSuccess)
      return units;
    return 1;
  }
#elif defined(KOKKOS_ENABLE_HIP)
  if (std::is_same<ExecSpace, Kokkos::Experimental::HIP>::value) {
    int device = 0, units = 0;
    if (hipGetDevice(&device) == hipSuccess &&
        hipDeviceGetAttribute(&units, hipDeviceAttributeMultiprocessorCount, device) == hipSuccess)
      return units;
    return 1;
  }
#endif
  return ExecSpace::concurrency();
}

BackendInfo backend_info() {
  BackendInfo info;
  info.kokkos_version = kokkos_version_string();
  info.execution_space = ExecSpace::name();
  info.memory_space = MemSpace::name();
  info.host_space = HostExecSpace::name();
  info.enabled_backends = enabled_backends();
  info.device = device_name();
  info.host_cpu = cpu_model();
  info.concurrency = ExecSpace::concurrency();
  return info;
}

void print_backend_info(std::ostream& out, const BackendInfo& info) {
  out << "Kokkos version:     " << info.kokkos_version << '\n'
      << "enabled backends:   " << info.enabled_backends << '\n'
      << "execution space:    " << info.execution_space << " (memory: " << info.memory_space << ")\n"
      << "host space:         " << info.host_space << " on " << info.host_cpu << '\n'
      << "device:             " << info.device << '\n'
      << "concurrency:        " << info.concurrency << '\n';
}

}  // namespace portasolve
