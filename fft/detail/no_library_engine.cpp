// Backends without an FFT library in this build (HIP: Debian has no hipFFT
// or rocFFT): every plan is refused when it is built.
#include <stdexcept>
#include <string>

#include "fft/detail/engine.hpp"

namespace portasolve::fft::detail {

namespace {

template <class T>
class RefusedEngine final : public Engine<T> {
 public:
  RefusedEngine(Kind kind, std::int64_t, std::int64_t, Planning, Threading) {
    throw std::invalid_argument("FFT plan: no FFT library for the " + std::string(ExecSpace::name()) +
                                " backend in this build, so no " + name_of(kind) +
                                " transform (FFTW serves host backends, cuFFT CUDA)");
  }
  void run(const ExecSpace&, const void*, void*) override {}
};

}  // namespace

const Library& library() {
  static const Library engines = library_of<RefusedEngine>("");
  return engines;
}

}  // namespace portasolve::fft::detail
