#include "app/memory_budget.hpp"

#include <Kokkos_Macros.hpp>
#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime_api.h>
#elif defined(KOKKOS_ENABLE_HIP)
#include <hip/hip_runtime_api.h>
#endif
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <limits>
#include <new>
#include <sstream>
#include <stdexcept>

namespace portasolve {

namespace {

// MemAvailable (kB) from /proc/meminfo; 0 when not there.
double mem_available() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  double kb = 0;
  std::string unit;
  while (in >> key >> kb) {
    std::getline(in, unit);
    if (key == "MemAvailable:") return kb * 1024.0;
  }
  return 0;
}

double physical_memory() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<double>(pages) * static_cast<double>(page) : 0;
}

// A cgroup v2 limit on this process (containers), less what it already uses; 0 when none.
double cgroup_room() {
  std::ifstream max_in("/sys/fs/cgroup/memory.max"), current_in("/sys/fs/cgroup/memory.current");
  std::string max_text;
  double current = 0;
  if (!(max_in >> max_text) || max_text == "max" || !(current_in >> current)) return 0;
  const double limit = std::strtod(max_text.c_str(), nullptr);
  return limit > current ? limit - current : 0;
}

void host_capacity(MemoryCapacity& capacity) {
  capacity.host_bytes = mem_available();
  capacity.host_source = "MemAvailable in /proc/meminfo";
  if (capacity.host_bytes <= 0) {
    capacity.host_bytes = physical_memory();
    capacity.host_source = "physical memory";
  }
  const double room = cgroup_room();
  if (room > 0 && (capacity.host_bytes <= 0 || room < capacity.host_bytes)) {
    capacity.host_bytes = room;
    capacity.host_source = "the cgroup's memory.max";
  }
}

std::string between(const std::string& text, const std::string& before, const std::string& after) {
  const auto start = text.find(before);
  if (start == std::string::npos) return {};
  const auto from = start + before.size();
  const auto end = text.find(after, from);
  return end == std::string::npos ? std::string() : text.substr(from, end - from);
}

#if defined(KOKKOS_ENABLE_CUDA)
constexpr const char* device_memory_call = "cudaMemGetInfo";
#elif defined(KOKKOS_ENABLE_HIP)
constexpr const char* device_memory_call = "hipMemGetInfo";
#endif

#if defined(KOKKOS_ENABLE_CUDA) || defined(KOKKOS_ENABLE_HIP)
// The device's free bytes by device_memory_call; false where it fails (its
// error cleared: the caller falls back to the host's figure).
bool device_free_bytes(std::size_t& free_bytes) {
  std::size_t total_bytes = 0;
#if defined(KOKKOS_ENABLE_CUDA)
  if (cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess) return true;
  cudaGetLastError();
#else
  if (hipMemGetInfo(&free_bytes, &total_bytes) == hipSuccess) return true;
  (void)hipGetLastError();
#endif
  return false;
}
#endif

}  // namespace

MemoryCapacity memory_capacity(bool ask_device) {
  MemoryCapacity capacity;
  if (const char* limit = std::getenv(memory_limit_env); limit != nullptr && *limit != '\0') {
    char* end = nullptr;
    errno = 0;
    const unsigned long long bytes = std::strtoull(limit, &end, 10);
    if (errno != 0 || end == limit || *end != '\0' || bytes == 0 || limit[0] == '-')
      throw ConfigError(SourceLocation{"environment"}, memory_limit_env, std::string("'") + limit + "' is not a size",
                        "a positive number of bytes");
    capacity.device_bytes = capacity.host_bytes = static_cast<double>(bytes);
    capacity.device_source = capacity.host_source = memory_limit_env;
#if defined(KOKKOS_ENABLE_CUDA) || defined(KOKKOS_ENABLE_HIP)
    capacity.device_is_host = false;
#endif
    (void)ask_device;
    return capacity;
  }
  host_capacity(capacity);
#if defined(KOKKOS_ENABLE_CUDA) || defined(KOKKOS_ENABLE_HIP)
  if (!ask_device) {
    capacity.device_is_host = false;
    capacity.device_bytes = std::numeric_limits<double>::infinity();
    capacity.device_source = "not asked yet";
    return capacity;
  }
  if (std::size_t free_bytes = 0; device_free_bytes(free_bytes)) {
    capacity.device_is_host = false;
    capacity.device_bytes = static_cast<double>(free_bytes);
    capacity.device_source = device_memory_call;
    return capacity;
  }
#endif
  capacity.device_is_host = true;
  capacity.device_bytes = capacity.host_bytes;
  capacity.device_source = capacity.host_source;
  return capacity;
}

std::string format_bytes(double bytes) {
  static const char* const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (!std::isfinite(bytes)) return "an unbounded amount";
  if (bytes < 1024) return std::to_string(static_cast<long long>(bytes)) + " bytes";
  int unit = -1;
  while (bytes >= 1024 && unit < 5) bytes /= 1024, ++unit;
  char text[64];
  std::snprintf(text, sizeof text, bytes < 1e4 ? "%.1f %s" : "%.3g %s", bytes, units[unit]);
  return text;
}

void check_memory(const MemoryNeed& need, const MemoryCapacity& capacity, const SourceLocation& where,
                  const std::string& key, const std::string& advice, const std::string& subject) {
  const auto refuse = [&](double needed, const char* what, double has, const std::string& source) {
    throw ConfigError(where, key,
                      (subject.empty() ? std::string("this run") : subject) + " needs " + format_bytes(needed) +
                          " of " + what + " memory, the " + (std::string(what) == "device" ? "device" : "host") +
                          " has " + format_bytes(has) + " (" + source + ")",
                      advice);
  };
  if (capacity.device_is_host) {
    const double total = need.device_bytes + need.host_bytes;
    if (total > capacity.host_bytes) refuse(total, "host", capacity.host_bytes, capacity.host_source);
    return;
  }
  if (need.device_bytes > capacity.device_bytes)
    refuse(need.device_bytes, "device", capacity.device_bytes, capacity.device_source);
  if (need.host_bytes > capacity.host_bytes) refuse(need.host_bytes, "host", capacity.host_bytes, capacity.host_source);
}

namespace {

std::string& held_back_message() {
  static std::string message;
  return message;
}

}  // namespace

// Lines are matched against the prefix as they arrive: a line that departs
// from it is passed on at once, so only lines starting "Kokkos failed ..."
// are held back (to their newline).
class KokkosAllocationMessages::Filter : public std::streambuf {
 public:
  explicit Filter(std::streambuf* target) : target_(target) {}
  ~Filter() override { flush_pending(); }

 protected:
  int overflow(int c) override {
    if (c == traits_type::eof()) return 0;
    const char ch = static_cast<char>(c);
    switch (state_) {
      case State::matching:
        pending_ += ch;
        if (prefix().compare(0, pending_.size(), pending_) != 0) {
          flush_pending();
          state_ = ch == '\n' ? State::matching : State::passing;
        } else if (pending_.size() == prefix().size()) {
          state_ = State::holding;
        }
        return c;
      case State::holding:
        pending_ += ch;
        if (ch == '\n') {
          held_back_message() = pending_;
          pending_.clear();
          state_ = State::matching;
        }
        return c;
      case State::passing:
        if (ch == '\n') state_ = State::matching;
        return target_->sputc(ch);
    }
    return c;
  }
  int sync() override { return target_->pubsync(); }

 private:
  enum class State { matching, holding, passing };
  static const std::string& prefix() {
    static const std::string text = "Kokkos failed to allocate memory";
    return text;
  }
  void flush_pending() {
    if (!pending_.empty()) target_->sputn(pending_.data(), static_cast<std::streamsize>(pending_.size()));
    pending_.clear();
  }
  std::streambuf* target_;
  std::string pending_;
  State state_ = State::matching;
};

KokkosAllocationMessages::KokkosAllocationMessages() : original_(std::cerr.rdbuf()), filter_(new Filter(original_)) {
  held_back_message().clear();
  std::cerr.rdbuf(filter_);
}

KokkosAllocationMessages::~KokkosAllocationMessages() {
  std::cerr.rdbuf(original_);
  delete filter_;  // passes on a partly matched line
}

std::string KokkosAllocationMessages::last() { return held_back_message(); }

std::optional<std::string> describe_allocation_failure(const std::exception& error) {
  if (dynamic_cast<const std::bad_alloc*>(&error) != nullptr)
    return std::string("out of host memory (an allocation failed); reduce the problem size");
  if (dynamic_cast<const std::length_error*>(&error) != nullptr)
    return std::string("a requested array size is too large to allocate (") + error.what() +
           "); reduce the problem size";
  std::string text = error.what();
  // Kokkos 3.4's HostSpace: the details went to std::cerr (held back, if we were listening).
  if (text.rfind("Memory allocation failure", 0) == 0) {
    if (!held_back_message().empty())
      text = held_back_message();
    else
      return std::string("could not allocate host memory (out of memory); reduce the problem size");
  }
  std::string label, space, size;
  if (text.find(" memory space failed to allocate ") != std::string::npos) {
    // Kokkos 4.x, every space: `Kokkos ERROR: Host memory space failed to
    // allocate 1.5 GiB (label="x").`; Host, Cuda, CudaUVM, HIP name the spaces.
    label = between(text, "(label=\"", "\")");
    space = between(text, "Kokkos ERROR: ", " memory space failed");
    if (!space.empty()) space += "Space";
    size = between(text, "failed to allocate ", " (label=");
  } else if (text.find("Kokkos failed to allocate memory") != std::string::npos ||
             text.find("Kokkos encountered an allocation failure") != std::string::npos) {
    label = between(text, "for label \"", "\"");
    space = between(text, "MemorySpace named \"", "\"");
    if (space.empty() || space.find(' ') != std::string::npos)  // HostSpace's message lacks the closing quote
      space = between(text, "MemorySpace named \"", " failed");
    size = between(text, "Allocation of size ", " failed");  // Kokkos' "238.5 G": binary units
  } else {
    return std::nullopt;
  }
  if (size.size() > 2 && size[size.size() - 2] == ' ') {
    const char unit = size.back();
    size.pop_back();
    size += unit == 'B' ? "bytes" : std::string(1, unit) + "iB";
  }
  std::string line = "could not allocate";
  if (!size.empty()) line += " " + size;
  if (!space.empty()) line += " in " + space;
  if (!label.empty()) line += " for '" + label + "'";
  if (size.empty() && label.empty()) line += " device memory";
  return line + " (out of memory); reduce the problem size or use precision: float";
}

}  // namespace portasolve
