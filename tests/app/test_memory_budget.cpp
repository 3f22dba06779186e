// Memory estimates against capacity: the refusal message, the environment
// override, and the one-line report of allocation failures that slip through.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <cstdlib>
#include <iostream>
#include <new>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "app/memory_budget.hpp"
#include "core/errors.hpp"
#include "core/spaces.hpp"

namespace {

using portasolve::ConfigError;
using portasolve::MemoryCapacity;
using portasolve::MemoryNeed;

// Sets the override for one test and restores what was there.
class MemoryLimit {
 public:
  explicit MemoryLimit(const char* value) {
    if (const char* old = std::getenv(portasolve::memory_limit_env)) old_ = old, had_ = true;
    setenv(portasolve::memory_limit_env, value, 1);
  }
  ~MemoryLimit() {
    if (had_)
      setenv(portasolve::memory_limit_env, old_.c_str(), 1);
    else
      unsetenv(portasolve::memory_limit_env);
  }

 private:
  std::string old_;
  bool had_ = false;
};

std::string refusal(const MemoryNeed& need, const MemoryCapacity& capacity) {
  try {
    portasolve::check_memory(need, capacity, portasolve::SourceLocation{"p.yaml", 4, 9}, "problem.rows",
                             "reduce problem.rows/cols or use precision: float");
  } catch (const ConfigError& error) {
    EXPECT_EQ(error.exit_code(), 2);
    EXPECT_EQ(error.key_path(), "problem.rows");
    return error.what();
  }
  return "";
}

TEST(MemoryBudget, FormatsBytesInBinaryUnits) {
  EXPECT_EQ(portasolve::format_bytes(12), "12 bytes");
  EXPECT_EQ(portasolve::format_bytes(1536), "1.5 KiB");
  EXPECT_EQ(portasolve::format_bytes(120.0 * 1024 * 1024 * 1024), "120.0 GiB");
  EXPECT_EQ(portasolve::format_bytes(3.0 * 1024 * 1024 * 1024 * 1024 * 1024 * 1024 * 1024), "3072.0 EiB");
  EXPECT_EQ(portasolve::format_bytes(1e300), "8.67e+281 EiB");
  EXPECT_EQ(portasolve::format_bytes(INFINITY), "an unbounded amount");
}

TEST(MemoryBudget, DeviceAndHostChecks) {
  const double gib = 1024.0 * 1024 * 1024;
  MemoryCapacity gpu;
  gpu.device_is_host = false;
  gpu.device_bytes = 79.2 * gib;
  gpu.host_bytes = 500 * gib;
  gpu.device_source = "cudaMemGetInfo";
  gpu.host_source = "MemAvailable in /proc/meminfo";
  MemoryNeed need;
  need.device(120 * gib, 1);
  EXPECT_EQ(refusal(need, gpu),
            "p.yaml:4:9: key 'problem.rows': this run needs 120.0 GiB of device memory, the device has 79.2 GiB "
            "(cudaMemGetInfo) (allowed: reduce problem.rows/cols or use precision: float)");
  need = MemoryNeed{};
  need.device(70, gib);
  need.host(70, gib);
  EXPECT_EQ(refusal(need, gpu), "");  // each fits its own memory
  // Host backends: both live in host memory.
  MemoryCapacity host;
  host.device_is_host = true;
  host.device_bytes = host.host_bytes = 100 * gib;
  host.host_source = "MemAvailable in /proc/meminfo";
  EXPECT_NE(refusal(need, host).find("this run needs 140.0 GiB of host memory, the host has 100.0 GiB"),
            std::string::npos);
}

TEST(MemoryBudget, EnvironmentOverride) {
  {
    MemoryLimit limit("1048576");
    const MemoryCapacity capacity = portasolve::memory_capacity();
    EXPECT_EQ(capacity.host_bytes, 1048576.0);
    EXPECT_EQ(capacity.device_bytes, 1048576.0);
    MemoryNeed need;
    need.device(2, 1048576);
    EXPECT_NE(refusal(need, capacity).find("needs 2.0 MiB"), std::string::npos);
  }
  for (const char* bad : {"lots", "-5", "0", "12kB"}) {
    MemoryLimit limit(bad);
    EXPECT_THROW(portasolve::memory_capacity(), ConfigError) << bad;
  }
  // Without it, something positive from the machine.
  unsetenv(portasolve::memory_limit_env);
  const MemoryCapacity machine = portasolve::memory_capacity();
  EXPECT_GT(machine.host_bytes, 0);
  EXPECT_GT(machine.device_bytes, 0);
}

TEST(MemoryBudget, DescribesKokkosAllocationFailures) {
  // What Kokkos 3.4 throws, traceback line included.
  const std::runtime_error kokkos(
      "Kokkos failed to allocate memory for label \"lombscargle_power\".  Allocation using MemorySpace named "
      "\"Host\" failed with the following error:  Allocation of size 238.5 G failed, likely due to insufficient "
      "memory.  (The allocation mechanism was standard malloc().)\nTraceback functionality not available\n");
  const auto line = portasolve::describe_allocation_failure(kokkos);
  ASSERT_TRUE(line.has_value());
  EXPECT_EQ(*line,
            "could not allocate 238.5 GiB in Host for 'lombscargle_power' (out of memory); reduce the problem size "
            "or use precision: float");
  EXPECT_EQ(line->find("Traceback"), std::string::npos);
  EXPECT_TRUE(portasolve::describe_allocation_failure(std::bad_alloc()).has_value());
  EXPECT_TRUE(portasolve::describe_allocation_failure(std::length_error("vector::_M_default_append")).has_value());
  EXPECT_FALSE(portasolve::describe_allocation_failure(std::runtime_error("something else")).has_value());
}

TEST(MemoryBudget, HoldsBackOnlyKokkosAllocationLines) {
  std::ostringstream seen;
  std::streambuf* original = std::cerr.rdbuf(seen.rdbuf());
  {
    const portasolve::KokkosAllocationMessages messages;
    std::cerr << "Kokkos: a warning\nprogress 1/2\n";
    std::cerr << "Kokkos failed to allocate memory for label \"x\".  Allocation using MemorySpace named \"Host "
                 "failed with the following error:  Allocation of size 1.5 G failed, likely due to insufficient "
                 "memory.\n";
    std::cerr << "K";  // a partial line that could still match is passed on at the end
    EXPECT_EQ(portasolve::describe_allocation_failure(std::runtime_error("Memory allocation failure\n")),
              "could not allocate 1.5 GiB in Host for 'x' (out of memory); reduce the problem size or use "
              "precision: float");
  }
  std::cerr.rdbuf(original);
  EXPECT_EQ(seen.str(), "Kokkos: a warning\nprogress 1/2\nK");
}

TEST(MemoryBudget, DescribesARealFailedAllocation) {
  // 2^62 bytes: no machine has them, so Kokkos' allocation fails and throws
  // (Kokkos 3.4's HostSpace prints the details, held back here).
  const portasolve::KokkosAllocationMessages messages;
  try {
    portasolve::View1D<double> huge("memory_budget_huge", std::size_t(1) << 59);
    FAIL() << "the allocation succeeded";
  } catch (const std::exception& error) {
    const auto line = portasolve::describe_allocation_failure(error);
    ASSERT_TRUE(line.has_value()) << error.what();
    EXPECT_NE(line->find("'memory_budget_huge'"), std::string::npos) << *line;
    // Kokkos' 4 digits: 3.4 counts in GiB, 4.x in TiB above 1 TiB and names
    // the memory space ("Host memory space failed ...": HostSpace, CudaSpace)
    const std::string space = std::string(portasolve::MemSpace::name()) + "Space";
    const bool kokkos3 = line->rfind("could not allocate 4.295e+09 GiB", 0) == 0;
    const bool kokkos4 = line->rfind("could not allocate 4.194e+06 TiB in " + space + " for", 0) == 0;
    EXPECT_TRUE(kokkos3 || kokkos4) << *line;
  }
}

}  // namespace
