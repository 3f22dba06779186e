// FFTW3 on host backends. Planning is not thread-safe in FFTW (only
// execution is), so plans are built and destroyed under one mutex; plans are
// made with FFTW_UNALIGNED so they run on any View's data (new-array
// execution), and out of place, as Plan guarantees. Plans for the calling
// thread (Threading::caller) are one-threaded and aligned: planned on
// fftw_malloc'ed arrays, they run on any arrays of caller_alignment, which
// lets FFTW use its SIMD codelets (2-3x faster than unaligned plans).
#include <fftw3.h>

#include <mutex>
#include <string>

#include "core/errors.hpp"
#include "fft/detail/engine.hpp"

#if defined(PORTASOLVE_FFTW_THREADS)
#include <Kokkos_Core.hpp>
#endif

namespace portasolve::fft::detail {

namespace {

std::mutex& planner_mutex() {
  static std::mutex mutex;
  return mutex;
}

// The two precisions' halves of FFTW's API (fftw_... and fftwf_...), under
// one set of names: Fftw<double> and Fftw<float>.
template <class T>
struct Fftw;

// Runs plan p by FFTW's new-array call `execute`, on arrays of its types.
template <class Plan, class In, class Out>
void execute(void (*call)(Plan, In*, Out*), Plan p, void* in, void* out) {
  call(p, static_cast<In*>(in), static_cast<Out*>(out));
}

#if defined(PORTASOLVE_FFTW_THREADS)
#define PORTASOLVE_FFTW_THREAD_CALLS(P)              \
  static void init_threads() { P##_init_threads(); } \
  static void plan_with_threads(int threads) { P##_plan_with_nthreads(threads); }
#else
#define PORTASOLVE_FFTW_THREAD_CALLS(P)
#endif

// P is the precision's prefix (fftw in double, fftwf in float), R its real type.
#define PORTASOLVE_FFTW_API(P, R)                                                                       \
  template <>                                                                                           \
  struct Fftw<R> {                                                                                      \
    using plan = P##_plan;                                                                              \
    using complex = P##_complex;                                                                        \
    static plan dft(int n, int batch, complex* in, complex* out, int sign, unsigned flags) {            \
      return P##_plan_many_dft(1, &n, batch, in, nullptr, 1, n, out, nullptr, 1, n, sign, flags);       \
    }                                                                                                   \
    static plan r2c(int n, int batch, R* in, complex* out, unsigned flags) {                            \
      return P##_plan_many_dft_r2c(1, &n, batch, in, nullptr, 1, n, out, nullptr, 1, n / 2 + 1, flags); \
    }                                                                                                   \
    static plan c2r(int n, int batch, complex* in, R* out, unsigned flags) {                            \
      return P##_plan_many_dft_c2r(1, &n, batch, in, nullptr, 1, n / 2 + 1, out, nullptr, 1, n, flags); \
    }                                                                                                   \
    static plan r2r(int n, int batch, R* in, R* out, P##_r2r_kind kind, unsigned flags) {               \
      return P##_plan_many_r2r(1, &n, batch, in, nullptr, 1, n, out, nullptr, 1, n, &kind, flags);      \
    }                                                                                                   \
    static void run_dft(plan p, void* in, void* out) { execute(P##_execute_dft, p, in, out); }          \
    static void run_r2c(plan p, void* in, void* out) { execute(P##_execute_dft_r2c, p, in, out); }      \
    static void run_c2r(plan p, void* in, void* out) { execute(P##_execute_dft_c2r, p, in, out); }      \
    static void run_r2r(plan p, void* in, void* out) { execute(P##_execute_r2r, p, in, out); }          \
    static void destroy(plan p) { P##_destroy_plan(p); }                                                \
    static void* allocate(std::size_t bytes) { return P##_malloc(bytes); }                              \
    static void release(void* p) { P##_free(p); }                                                       \
    PORTASOLVE_FFTW_THREAD_CALLS(P)                                                                     \
  };

PORTASOLVE_FFTW_API(fftw, double)
PORTASOLVE_FFTW_API(fftwf, float)
#undef PORTASOLVE_FFTW_API
#undef PORTASOLVE_FFTW_THREAD_CALLS

// Arrays the planner may write while measuring (the caller's data never is).
template <class T>
class PlanningBuffer {
 public:
  explicit PlanningBuffer(std::size_t bytes) : data_(Fftw<T>::allocate(bytes)) {
    if (!data_) throw SolverError("FFTW: cannot allocate " + std::to_string(bytes) + " bytes to plan in");
  }
  ~PlanningBuffer() { Fftw<T>::release(data_); }
  PlanningBuffer(const PlanningBuffer&) = delete;
  PlanningBuffer& operator=(const PlanningBuffer&) = delete;
  void* get() const { return data_; }

 private:
  void* data_;
};

template <class T>
class FftwEngine final : public Engine<T> {
 public:
  FftwEngine(Kind kind, std::int64_t length, std::int64_t batch, Planning planning, Threading threading) : kind_(kind) {
    const std::int64_t values = 2 * output_length(Kind::real_forward, length) + 2 * length;  // enough for any kind
    PlanningBuffer<T> in(static_cast<std::size_t>(batch * values) * sizeof(T));
    PlanningBuffer<T> out(static_cast<std::size_t>(batch * values) * sizeof(T));
    // The backward real transform may otherwise overwrite its input.
    const unsigned flags = (planning == Planning::measure ? FFTW_MEASURE : FFTW_ESTIMATE) |
                           (threading == Threading::caller ? 0u : FFTW_UNALIGNED) |
                           (kind == Kind::real_backward ? FFTW_PRESERVE_INPUT : 0u);
    const int n = static_cast<int>(length), count = static_cast<int>(batch);
    using C = typename Fftw<T>::complex;
    auto* in_complex = static_cast<C*>(in.get());
    auto* out_complex = static_cast<C*>(out.get());
    auto* in_real = static_cast<T*>(in.get());
    auto* out_real = static_cast<T*>(out.get());
    std::lock_guard<std::mutex> lock(planner_mutex());
    use_threads(threading);
    switch (kind) {
      case Kind::complex_forward:
      case Kind::complex_backward:
        plan_ = Fftw<T>::dft(n, count, in_complex, out_complex,
                             kind == Kind::complex_forward ? FFTW_FORWARD : FFTW_BACKWARD, flags);
        break;
      case Kind::real_forward:
        plan_ = Fftw<T>::r2c(n, count, in_real, out_complex, flags);
        break;
      case Kind::real_backward:
        plan_ = Fftw<T>::c2r(n, count, in_complex, out_real, flags);
        break;
      case Kind::dst1:
      case Kind::dct1:
        plan_ = Fftw<T>::r2r(n, count, in_real, out_real, kind == Kind::dst1 ? FFTW_RODFT00 : FFTW_REDFT00, flags);
        break;
    }
    if (!plan_)
      throw SolverError("FFTW could not plan a " + name_of(kind) + " transform of length " + std::to_string(length) +
                        " in a batch of " + std::to_string(batch));
  }
  ~FftwEngine() override {
    std::lock_guard<std::mutex> lock(planner_mutex());
    Fftw<T>::destroy(plan_);
  }
  FftwEngine(const FftwEngine&) = delete;
  FftwEngine& operator=(const FftwEngine&) = delete;

  // Host backends run every kernel to its end before returning, so nothing
  // of exec's is pending: FFTW runs now, and has finished on return.
  void run(const ExecSpace&, const void* in, void* out) override {
    // FFTW's new-array functions take non-const input; the flags above keep it unmodified.
    void* input = const_cast<void*>(in);
    switch (kind_) {
      case Kind::complex_forward:
      case Kind::complex_backward:
        Fftw<T>::run_dft(plan_, input, out);
        break;
      case Kind::real_forward:
        Fftw<T>::run_r2c(plan_, input, out);
        break;
      case Kind::real_backward:
        Fftw<T>::run_c2r(plan_, input, out);
        break;
      case Kind::dst1:
      case Kind::dct1:
        Fftw<T>::run_r2r(plan_, input, out);
        break;
    }
  }

 private:
  // Called with the planner mutex held: plans use the host execution
  // space's threads when FFTW was linked with its OpenMP library.
  static void use_threads([[maybe_unused]] Threading threading) {
#if defined(PORTASOLVE_FFTW_THREADS)
    static const bool initialised = (Fftw<T>::init_threads(), true);
    (void)initialised;
    Fftw<T>::plan_with_threads(threading == Threading::caller ? 1 : Kokkos::DefaultHostExecutionSpace::concurrency());
#endif
  }

  Kind kind_;
  typename Fftw<T>::plan plan_ = nullptr;
};

}  // namespace

const Library& library() {
  static const Library engines = library_of<FftwEngine>("FFTW3");
  return engines;
}

}  // namespace portasolve::fft::detail
