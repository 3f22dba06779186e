#pragma once
// Batched 1-D FFTs on Views in the default execution space's memory, on the
// library of the backend: FFTW3 on hosts, cuFFT on CUDA. HIP has no FFT
// library here (Debian packages no hipFFT or rocFFT): its plans run on
// portasolve's portable Kokkos kernels, which every backend can also choose
// (Implementation::portable).
//
// Transforms are unnormalised, as FFTW defines them (n the length):
//   complex_forward  Y_k = sum_j X_j exp(-2 pi i j k / n)
//   complex_backward Y_k = sum_j X_j exp(+2 pi i j k / n)
//   real_forward     the first n/2 + 1 outputs of complex_forward of real X
//   real_backward    its inverse times n (the input's Hermitian half)
//   dst1 (RODFT00)   Y_k = 2 sum_{j<n} X_j sin(pi (j+1)(k+1) / (n+1)); its own inverse times 2(n+1)
//   dct1 (REDFT00)   Y_k = X_0 + (-1)^k X_{n-1} + 2 sum_{0<j<n-1} X_j cos(pi j k / (n-1)),
//                    n >= 2; its own inverse times 2(n-1)
// A plan is built once for (kind, length, batch) and run on any Views of
// those extents: rows of `length` values (real_forward's output and
// real_backward's input: length/2 + 1 complex values), one row per batch
// entry. Input and output must be different, non-overlapping Views; the
// input is never modified.
#include <Kokkos_Complex.hpp>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/spaces.hpp"

namespace portasolve::fft {

// Whether a vendor FFT library (FFTW3, cuFFT) serves this build; HIP builds
// run every plan on the portable kernels.
#if defined(KOKKOS_ENABLE_HIP)
constexpr bool library_available = false;
#else
constexpr bool library_available = true;
#endif

enum class Kind { complex_forward, complex_backward, real_forward, real_backward, dst1, dct1 };

const std::vector<std::string>& kind_names();  // "complex_forward", ..., "dct1"
std::string name_of(Kind kind);

// How hard FFTW looks for a fast plan: estimate (no trial runs, the default)
// or measure (times candidates when the plan is built; cuFFT and the
// portable kernels ignore it).
enum class Planning { estimate, measure };

// Who runs a host plan: the library's threads over the host's cores (the
// default; arrays of any alignment), or the calling thread alone, for one
// plan per thread of a parallel loop over independent transforms; such a
// plan uses the library's SIMD paths and needs its arrays aligned to
// `caller_alignment` bytes (Kokkos' allocations are; execute throws
// std::invalid_argument otherwise). cuFFT ignores it.
enum class Threading { library, caller };
constexpr std::size_t caller_alignment = 64;

// What runs a plan: the backend's library (FFTW3 on hosts, cuFFT on CUDA; the
// portable kernels on HIP), or portasolve's portable Kokkos kernels on any
// backend: Stockham radix-2 passes over device memory for power-of-two
// lengths and Bluestein's chirp-z convolution for the others, every length
// and kind, as accurate as the libraries and slower (a pass over memory
// per factor of two). Portable plans take Threading::library only.
enum class Implementation { library, portable };

namespace detail {
template <class T>
class Engine;
}

template <class T>
class Plan {
 public:
  using Complex = Kokkos::complex<T>;

  // Throws std::invalid_argument naming the argument out of range (length
  // >= 1, dct1 length >= 2, batch >= 1) or a combination not served
  // (Threading::caller on portable plans); SolverError when the library
  // cannot build the plan.
  Plan(Kind kind, std::int64_t length, std::int64_t batch, Planning planning = Planning::estimate,
       Threading threading = Threading::library, Implementation implementation = Implementation::library);
  ~Plan();
  Plan(Plan&&) noexcept;
  Plan& operator=(Plan&&) noexcept;
  Plan(const Plan&) = delete;
  Plan& operator=(const Plan&) = delete;

  Kind kind() const { return kind_; }
  std::int64_t length() const { return length_; }
  std::int64_t batch() const { return batch_; }

  // Each runs the kind it names and throws std::invalid_argument for another
  // kind or extents other than the plan's. The transform is ordered before
  // later work on the default execution space instance (on CUDA it runs on
  // that instance's stream and may still be running on return: fence before
  // touching the output from the host other than by Kokkos::deep_copy).
  // Not reentrant: one plan serves one thread at a time (its scratch rows).
  // In and Out are those of the overloads below: View2D<const Complex> to
  // View2D<Complex> (complex_*), View2D<const T> to View2D<Complex>
  // (real_forward), View2D<const Complex> to View2D<T> (real_backward),
  // View2D<const T> to View2D<T> (dst1, dct1).
  template <class In, class Out>
  void execute(const In& in, const Out& out) const {
    execute(ExecSpace(), in, out);
  }

  // The same on the execution space instance exec: the transform and its
  // kernels and copies are ordered on exec (cuFFT: the plan runs on
  // exec.cuda_stream(), set by cufftSetStream); the caller fences its own
  // earlier work on other instances that writes `in`. On return the
  // transform may still run on a GPU: exec.fence() (not a global fence)
  // before the host reads `out`; host backends (FFTW) have finished it. A
  // plan's scratch rows and cuFFT work area serve every execution: order
  // executions of one plan on different instances (fence the first
  // instance before executing on the next).
  void execute(const ExecSpace& exec, const View2D<const Complex>& in, const View2D<Complex>& out) const;  // complex_*
  void execute(const ExecSpace& exec, const View2D<const T>& in, const View2D<Complex>& out) const;  // real_forward
  void execute(const ExecSpace& exec, const View2D<const Complex>& in, const View2D<T>& out) const;  // real_backward
  void execute(const ExecSpace& exec, const View2D<const T>& in, const View2D<T>& out) const;        // dst1, dct1

 private:
  Kind kind_;
  std::int64_t length_, batch_;
  Threading threading_;
  std::unique_ptr<detail::Engine<T>> engine_;
};

// What Implementation::library plans run on in this build: "FFTW3",
// "cuFFT", or "portable" (HIP: the portable kernels).
const char* library_name();

// The least length >= `length` at which a plan of `kind` runs without
// Bluestein's convolution on `implementation`: the FFT it runs (2(n+1)
// points for dst1, 2(n-1) for dct1, n for the others) of factors 2, 3, 5
// and 7 on the libraries (the radices cuFFT and FFTW run directly), a power
// of two on the portable kernels (Stockham passes; HIP's library). Where that
// length would put a plan of `batch` rows past the libraries' int range,
// `length` itself.
std::int64_t fast_length(Kind kind, std::int64_t length, std::int64_t batch,
                         Implementation implementation = Implementation::library);

// Values per row of a kind's input and output for a transform length.
std::int64_t input_length(Kind kind, std::int64_t length);
std::int64_t output_length(Kind kind, std::int64_t length);

}  // namespace portasolve::fft
