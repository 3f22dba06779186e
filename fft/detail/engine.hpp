#pragma once
// What a backend's FFT library provides a Plan: the transform on raw
// pointers to default-memory-space arrays of batch rows, contiguous.
#include <cstdint>
#include <memory>
#include <type_traits>

#include "fft/fft.hpp"

namespace portasolve::fft::detail {

template <class T>
class Engine {
 public:
  virtual ~Engine() = default;
  // `in` and `out` hold the plan's batch of rows (input_length and
  // output_length values each, complex values as pairs of T). `in` is read
  // only. Ordered on exec (Plan::execute(exec, ...)).
  virtual void run(const ExecSpace& exec, const void* in, void* out) = 0;
};

template <class T>
using EngineMaker = std::unique_ptr<Engine<T>> (*)(Kind kind, std::int64_t length, std::int64_t batch,
                                                   Planning planning, Threading threading);

// The FFT library of this build: its name (fft::library_name()) and its
// engines in each precision.
struct Library {
  const char* name;
  EngineMaker<float> make_float;
  EngineMaker<double> make_double;
};

// The library of the backend Kokkos was built with: fftw_engine.cpp,
// cufft_engine.cpp or hip_engine.cpp (the portable kernels) defines it
// (fft/CMakeLists.txt compiles one of them).
// (A function, not a constant: HIP's compiler would also place a constant
// holding host function pointers on the device, where they do not link.)
const Library& library();

template <template <class> class LibraryEngine, class T>
std::unique_ptr<Engine<T>> make_library_engine(Kind kind, std::int64_t length, std::int64_t batch, Planning planning,
                                               Threading threading) {
  return std::make_unique<LibraryEngine<T>>(kind, length, batch, planning, threading);
}

// The Library named `name` whose engines are LibraryEngine<float> and
// LibraryEngine<double>, built from (kind, length, batch, planning, threading).
template <template <class> class LibraryEngine>
constexpr Library library_of(const char* name) {
  return {name, &make_library_engine<LibraryEngine, float>, &make_library_engine<LibraryEngine, double>};
}

// The portable kernels' engine (portable_engine.cpp, every backend); it
// refuses Threading::caller (std::invalid_argument).
template <class T>
std::unique_ptr<Engine<T>> make_portable_engine(Kind kind, std::int64_t length, std::int64_t batch, Planning planning,
                                                Threading threading);

template <class T>
std::unique_ptr<Engine<T>> make_engine(Kind kind, std::int64_t length, std::int64_t batch, Planning planning,
                                       Threading threading, Implementation implementation) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>);
  if (implementation == Implementation::portable)
    return make_portable_engine<T>(kind, length, batch, planning, threading);
  if constexpr (std::is_same_v<T, float>)
    return library().make_float(kind, length, batch, planning, threading);
  else
    return library().make_double(kind, length, batch, planning, threading);
}

}  // namespace portasolve::fft::detail
