#pragma once
// What a backend's FFT library provides a Plan: the transform on raw
// pointers to default-memory-space arrays of batch rows, contiguous.
#include <cstdint>
#include <memory>

#include "fft/fft.hpp"

namespace portasolve::fft::detail {

template <class T>
class Engine {
 public:
  virtual ~Engine() = default;
  // `in` and `out` hold the plan's batch of rows (input_length and
  // output_length values each, complex values as pairs of T). `in` is read only.
  virtual void run(const void* in, void* out) = 0;
};

// The engine of the backend Kokkos was built with (fftw_engine.cpp,
// cufft_engine.cpp, or the error where there is none).
template <class T>
std::unique_ptr<Engine<T>> make_engine(Kind kind, std::int64_t length, std::int64_t batch, Planning planning,
                                       Threading threading);

}  // namespace portasolve::fft::detail
