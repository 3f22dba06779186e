// cuFFT on CUDA. cuFFT has no real-to-real kinds, so DST-I and DCT-I run as
// real FFTs of the input's odd or even extension (rows.hpp).
// Everything runs on the stream of the instance a plan is executed on
// (Plan::execute(exec, ...); the default instance's otherwise), with no fence.
#include <cufft.h>

#include <string>

#include "core/errors.hpp"
#include "fft/detail/engine.hpp"
#include "fft/detail/rows.hpp"

namespace portasolve::fft::detail {

namespace {

void check_cufft(cufftResult status, const char* call, Kind kind, std::int64_t length) {
  if (status != CUFFT_SUCCESS)
    throw SolverError(std::string("cuFFT: ") + call + " failed with status " + std::to_string(int(status)) + " for a " +
                      name_of(kind) + " transform of length " + std::to_string(length));
}

// The two precisions' cuFFT types and calls, under one set of names.
template <class T>
struct Cufft;

// Real and Complex are the precision's cuFFT types, C2C, R2C and C2R its
// transforms' names (Z2Z, D2Z, Z2D in double; C2C, R2C, C2R in float).
#define PORTASOLVE_CUFFT_API(T, Real, Complex, C2C, R2C, C2R)                                                \
  template <>                                                                                                \
  struct Cufft<T> {                                                                                          \
    using real = Real;                                                                                       \
    using complex = Complex;                                                                                 \
    static constexpr cufftType c2c = CUFFT_##C2C, r2c = CUFFT_##R2C, c2r = CUFFT_##C2R;                      \
    static cufftResult run_c2c(cufftHandle p, complex* in, complex* out, int sign) {                         \
      return cufftExec##C2C(p, in, out, sign);                                                               \
    }                                                                                                        \
    static cufftResult run_r2c(cufftHandle p, real* in, complex* out) { return cufftExec##R2C(p, in, out); } \
    static cufftResult run_c2r(cufftHandle p, complex* in, real* out) { return cufftExec##C2R(p, in, out); } \
  };

PORTASOLVE_CUFFT_API(double, cufftDoubleReal, cufftDoubleComplex, Z2Z, D2Z, Z2D)
PORTASOLVE_CUFFT_API(float, cufftReal, cufftComplex, C2C, R2C, C2R)
#undef PORTASOLVE_CUFFT_API

template <class T>
class CufftEngine final : public Engine<T> {
 public:
  // cuFFT plans have no planning effort or threading to choose.
  CufftEngine(Kind kind, std::int64_t length, std::int64_t batch, Planning, Threading)
      : kind_(kind), length_(length), batch_(batch), fft_length_(extended_length(kind, length)) {
    int n = int(fft_length_);
    const cufftType type = kind == Kind::complex_forward || kind == Kind::complex_backward ? Cufft<T>::c2c
                           : kind == Kind::real_backward                                   ? Cufft<T>::c2r
                                                                                           : Cufft<T>::r2c;
    check_cufft(cufftPlanMany(&plan_.handle, 1, &n, nullptr, 1, n, nullptr, 1, n, type, int(batch)), "cufftPlanMany",
                kind, length);
    plan_.made = true;
    use_stream(ExecSpace().cuda_stream());
    const std::int64_t spectrum = fft_length_ / 2 + 1;
    if (kind == Kind::dst1 || kind == Kind::dct1) {
      extended_ = View2D<T>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "fft_extended"), batch, fft_length_);
      spectrum_ =
          View2D<Kokkos::complex<T>>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "fft_spectrum"), batch, spectrum);
    } else if (kind == Kind::real_backward) {
      // cuFFT's complex-to-real transforms overwrite their input: they get a copy.
      spectrum_ = View2D<Kokkos::complex<T>>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "fft_input_copy"), batch,
                                             spectrum);
    }
  }
  CufftEngine(const CufftEngine&) = delete;
  CufftEngine& operator=(const CufftEngine&) = delete;

  void run(const ExecSpace& exec, const void* in, void* out) override {
    using Complex = Kokkos::complex<T>;
    using C = typename Cufft<T>::complex;
    using R = typename Cufft<T>::real;
    use_stream(exec.cuda_stream());
    switch (kind_) {
      case Kind::complex_forward:
      case Kind::complex_backward:
        check(Cufft<T>::run_c2c(plan_.handle, static_cast<C*>(const_cast<void*>(in)), static_cast<C*>(out),
                                kind_ == Kind::complex_forward ? CUFFT_FORWARD : CUFFT_INVERSE));
        break;
      case Kind::real_forward:
        check(Cufft<T>::run_r2c(plan_.handle, static_cast<R*>(const_cast<void*>(in)), static_cast<C*>(out)));
        break;
      case Kind::real_backward:
        Kokkos::deep_copy(exec, spectrum_,
                          Rows<const Complex>(static_cast<const Complex*>(in), batch_, spectrum_.extent(1)));
        check(Cufft<T>::run_c2r(plan_.handle, reinterpret_cast<C*>(spectrum_.data()), static_cast<R*>(out)));
        break;
      case Kind::dst1:
      case Kind::dct1:
        run_real_to_real(exec, static_cast<const T*>(in), static_cast<T*>(out));
        break;
    }
    // No fence: cuFFT and the kernels run on exec's stream, ahead of
    // whatever the caller launches next there (fft.hpp).
  }

 private:
  void check(cufftResult status) const { check_cufft(status, "cufftExec", kind_, length_); }

  // The stream cuFFT runs the plan on; set only when it changes.
  void use_stream(cudaStream_t stream) {
    if (stream_set_ && stream == stream_) return;
    check_cufft(cufftSetStream(plan_.handle, stream), "cufftSetStream", kind_, length_);
    stream_ = stream;
    stream_set_ = true;
  }

  void run_real_to_real(const ExecSpace& exec, const T* in, T* out) {
    using C = typename Cufft<T>::complex;
    real_to_real_by_extension<T>(exec, kind_, length_, batch_, in, out, extended_, spectrum_, [&] {
      check(Cufft<T>::run_r2c(plan_.handle, extended_.data(), reinterpret_cast<C*>(spectrum_.data())));
    });
  }

  Kind kind_;
  std::int64_t length_, batch_, fft_length_;
  // Destroyed with the engine, also when the constructor throws after
  // making it (a failed allocation of the scratch rows).
  struct PlanHandle {
    cufftHandle handle = 0;
    bool made = false;
    PlanHandle() = default;
    PlanHandle(const PlanHandle&) = delete;
    PlanHandle& operator=(const PlanHandle&) = delete;
    ~PlanHandle() {
      if (made) cufftDestroy(handle);
    }
  };
  PlanHandle plan_;
  cudaStream_t stream_ = nullptr;  // the plan's, once set (only compared: never used after its instance)
  bool stream_set_ = false;
  View2D<T> extended_;
  View2D<Kokkos::complex<T>> spectrum_;
};

}  // namespace

const Library& library() {
  static const Library engines = library_of<CufftEngine>("cuFFT");
  return engines;
}

}  // namespace portasolve::fft::detail
