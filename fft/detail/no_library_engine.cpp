// Backends without an FFT library in this build (HIP: Debian has no hipFFT
// or rocFFT): every plan is refused when it is built.
#include <stdexcept>

#include "fft/detail/engine.hpp"

namespace portasolve::fft::detail {

template <class T>
std::unique_ptr<Engine<T>> make_engine(Kind kind, std::int64_t, std::int64_t, Planning, Threading) {
  throw std::invalid_argument("FFT plan: no FFT library for the " + std::string(ExecSpace::name()) +
                              " backend in this build, so no " + name_of(kind) +
                              " transform (FFTW serves host backends, cuFFT CUDA)");
}

template std::unique_ptr<Engine<float>> make_engine<float>(Kind, std::int64_t, std::int64_t, Planning, Threading);
template std::unique_ptr<Engine<double>> make_engine<double>(Kind, std::int64_t, std::int64_t, Planning, Threading);

}  // namespace portasolve::fft::detail

namespace portasolve::fft {
const char* library_name() { return ""; }
}  // namespace portasolve::fft
