// FFTW3 on host backends. Planning is not thread-safe in FFTW (only
// execution is), so plans are built and destroyed under one mutex; plans run
// out of place, as Plan guarantees. Plans are made on fftw_malloc'ed arrays
// without FFTW_UNALIGNED, so FFTW may use its SIMD codelets (FFTW_UNALIGNED
// implies no SIMD at all, 2-3x slower); such a plan runs only on arrays of
// the planning arrays' SIMD alignment (fftw_alignment_of 0), which Kokkos'
// allocations have. Threading::library plans keep a second plan, made with
// FFTW_UNALIGNED on first need, for arrays of other alignments (a View of a
// row offset into a larger one); Threading::caller plans require
// caller_alignment (Plan::execute checks it).
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
#define PORTASOLVE_FFTW_API(P, R)                                                                                    \
  template <>                                                                                                        \
  struct Fftw<R> {                                                                                                   \
    using plan = P##_plan;                                                                                           \
    using complex = P##_complex;                                                                                     \
    static plan dft(int n, int batch, complex* in, complex* out, int sign, unsigned flags) {                         \
      return P##_plan_many_dft(1, &n, batch, in, nullptr, 1, n, out, nullptr, 1, n, sign, flags);                    \
    }                                                                                                                \
    static plan r2c(int n, int batch, R* in, complex* out, unsigned flags) {                                         \
      return P##_plan_many_dft_r2c(1, &n, batch, in, nullptr, 1, n, out, nullptr, 1, n / 2 + 1, flags);              \
    }                                                                                                                \
    static plan c2r(int n, int batch, complex* in, R* out, unsigned flags) {                                         \
      return P##_plan_many_dft_c2r(1, &n, batch, in, nullptr, 1, n / 2 + 1, out, nullptr, 1, n, flags);              \
    }                                                                                                                \
    static plan r2r(int n, int batch, R* in, R* out, P##_r2r_kind kind, unsigned flags) {                            \
      return P##_plan_many_r2r(1, &n, batch, in, nullptr, 1, n, out, nullptr, 1, n, &kind, flags);                   \
    }                                                                                                                \
    static void run_dft(plan p, void* in, void* out) { execute(P##_execute_dft, p, in, out); }                       \
    static void run_r2c(plan p, void* in, void* out) { execute(P##_execute_dft_r2c, p, in, out); }                   \
    static void run_c2r(plan p, void* in, void* out) { execute(P##_execute_dft_c2r, p, in, out); }                   \
    static void run_r2r(plan p, void* in, void* out) { execute(P##_execute_r2r, p, in, out); }                       \
    static void destroy(plan p) { P##_destroy_plan(p); }                                                             \
    static void* allocate(std::size_t bytes) { return P##_malloc(bytes); }                                           \
    static bool simd_aligned(const void* p) { return P##_alignment_of(static_cast<R*>(const_cast<void*>(p))) == 0; } \
    static void release(void* p) { P##_free(p); }                                                                    \
    PORTASOLVE_FFTW_THREAD_CALLS(P)                                                                                  \
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
  FftwEngine(Kind kind, std::int64_t length, std::int64_t batch, Planning planning, Threading threading)
      : kind_(kind),
        length_(length),
        batch_(batch),
        threading_(threading),
        // The backward real transform may otherwise overwrite its input.
        flags_((planning == Planning::measure ? FFTW_MEASURE : FFTW_ESTIMATE) |
               (kind == Kind::real_backward ? FFTW_PRESERVE_INPUT : 0u)) {
    std::lock_guard<std::mutex> lock(planner_mutex());
    plan_ = make_plan(flags_);
  }
  ~FftwEngine() override {
    std::lock_guard<std::mutex> lock(planner_mutex());
    Fftw<T>::destroy(plan_);
    if (unaligned_plan_) Fftw<T>::destroy(unaligned_plan_);
  }
  FftwEngine(const FftwEngine&) = delete;
  FftwEngine& operator=(const FftwEngine&) = delete;

  // Host backends run every kernel to its end before returning, so nothing
  // of exec's is pending: FFTW runs now, and has finished on return.
  void run(const ExecSpace&, const void* in, void* out) override {
    // FFTW's new-array functions take non-const input; the flags above keep it unmodified.
    void* input = const_cast<void*>(in);
    // Read and made without a lock: a Plan serves one thread at a time
    // (fft.hpp), so no other run() of this engine can race on it.
    typename Fftw<T>::plan p = plan_;
    if (threading_ == Threading::library && !(Fftw<T>::simd_aligned(in) && Fftw<T>::simd_aligned(out))) {
      if (!unaligned_plan_) {
        std::lock_guard<std::mutex> lock(planner_mutex());
        unaligned_plan_ = make_plan(flags_ | FFTW_UNALIGNED);
      }
      p = unaligned_plan_;
    }
    switch (kind_) {
      case Kind::complex_forward:
      case Kind::complex_backward:
        Fftw<T>::run_dft(p, input, out);
        break;
      case Kind::real_forward:
        Fftw<T>::run_r2c(p, input, out);
        break;
      case Kind::real_backward:
        Fftw<T>::run_c2r(p, input, out);
        break;
      case Kind::dst1:
      case Kind::dct1:
        Fftw<T>::run_r2r(p, input, out);
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

  // A plan of this engine's transform with `flags`, on arrays the planner may
  // write (FFTW_MEASURE does); called with the planner mutex held.
  typename Fftw<T>::plan make_plan(unsigned flags) const {
    const std::int64_t values = 2 * output_length(Kind::real_forward, length_) + 2 * length_;  // enough for any kind
    PlanningBuffer<T> in(static_cast<std::size_t>(batch_ * values) * sizeof(T));
    PlanningBuffer<T> out(static_cast<std::size_t>(batch_ * values) * sizeof(T));
    const int n = static_cast<int>(length_), count = static_cast<int>(batch_);
    using C = typename Fftw<T>::complex;
    auto* in_complex = static_cast<C*>(in.get());
    auto* out_complex = static_cast<C*>(out.get());
    auto* in_real = static_cast<T*>(in.get());
    auto* out_real = static_cast<T*>(out.get());
    use_threads(threading_);
    typename Fftw<T>::plan plan = nullptr;
    switch (kind_) {
      case Kind::complex_forward:
      case Kind::complex_backward:
        plan = Fftw<T>::dft(n, count, in_complex, out_complex,
                            kind_ == Kind::complex_forward ? FFTW_FORWARD : FFTW_BACKWARD, flags);
        break;
      case Kind::real_forward:
        plan = Fftw<T>::r2c(n, count, in_real, out_complex, flags);
        break;
      case Kind::real_backward:
        plan = Fftw<T>::c2r(n, count, in_complex, out_real, flags);
        break;
      case Kind::dst1:
      case Kind::dct1:
        plan = Fftw<T>::r2r(n, count, in_real, out_real, kind_ == Kind::dst1 ? FFTW_RODFT00 : FFTW_REDFT00, flags);
        break;
    }
    if (!plan)
      throw SolverError("FFTW could not plan a " + name_of(kind_) + " transform of length " + std::to_string(length_) +
                        " in a batch of " + std::to_string(batch_));
    return plan;
  }

  Kind kind_;
  std::int64_t length_, batch_;
  Threading threading_;
  unsigned flags_;
  typename Fftw<T>::plan plan_ = nullptr;
  typename Fftw<T>::plan unaligned_plan_ = nullptr;  // Threading::library on other alignments, made on first need
};

}  // namespace

const Library& library() {
  static const Library engines = library_of<FftwEngine>("FFTW3");
  return engines;
}

}  // namespace portasolve::fft::detail
