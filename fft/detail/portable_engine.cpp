// portasolve's own FFT on Kokkos kernels: the library of HIP builds (Debian
// packages no hipFFT or rocFFT) and, through Implementation::portable, a
// choice on every backend. Power-of-two lengths P run as Stockham radix-2
// passes over device memory (one launch a pass, results in natural order);
// any other length n by Bluestein's chirp-z transform,
//   X_k = c_k sum_j (x_j c_j) conj(c_{k-j}),   c_j = exp(-i pi j^2 / n),
// a cyclic convolution of power-of-two length P >= 2n - 1: two such FFTs
// and the spectrum of conj(c) kept in the plan. Real kinds run as complex
// transforms of their length (the real input promoted as it is read, the
// half spectrum stored or, backward, extended by Hermitian symmetry as it is
// read), DST-I and DCT-I through the extensions of rows.hpp. Twiddles,
// chirps and the kernel's spectrum are formed in double.
#include <stdexcept>
#include <string>
#include <type_traits>

#include "core/math.hpp"
#include "fft/detail/engine.hpp"
#include "fft/detail/rows.hpp"

namespace portasolve::fft::detail {

namespace {

template <class T>
using Complex = Kokkos::complex<T>;
template <class T>
using Table = Kokkos::View<Complex<T>*, Kokkos::LayoutRight, MemSpace>;

bool is_power_of_two(std::int64_t n) { return n > 0 && (n & (n - 1)) == 0; }

int log2_of(std::int64_t power_of_two) {
  int bits = 0;
  while ((std::int64_t(1) << bits) < power_of_two) ++bits;
  return bits;
}

// The power-of-two length a length n is transformed at: n itself, or
// Bluestein's P >= 2n - 1.
std::int64_t portable_transform_length(std::int64_t n) {
  if (is_power_of_two(n)) return n;
  std::int64_t P = 1;
  while (P < 2 * n - 1) P *= 2;
  return P;
}

// Whether a plan of `kind` transforms with exp(+2 pi i j k / n).
bool runs_backward(Kind kind) { return kind == Kind::complex_backward || kind == Kind::real_backward; }

// What a pass reads at (row, j): the row's value (a real one promoted),
// times factor(j) where a factor table is given; zero at j >= length (the
// padding of a Bluestein input). hermitian_length n > 0: the rows hold a
// half spectrum (n/2 + 1 values) and j > n/2 reads conj(x(row, n - j)).
template <class T, class Value>
struct Load {
  Rows<const Value> x;
  Kokkos::View<const Complex<T>*, Kokkos::LayoutRight, MemSpace> factor;
  std::int64_t length;
  std::int64_t hermitian_length = 0;
  KOKKOS_INLINE_FUNCTION Complex<T> operator()(const std::int64_t row, const std::int64_t j) const {
    if (j >= length) return Complex<T>(0);
    Complex<T> v;
    if (hermitian_length > 0 && 2 * j > hermitian_length)
      v = Kokkos::conj(Complex<T>(x(row, hermitian_length - j)));
    else
      v = Complex<T>(x(row, j));
    return factor.data() ? v * factor(j) : v;
  }
};

// What a pass writes at (row, k): the value times factor(k) where a factor
// table is given, for k < length only (Bluestein's first n values, a half
// spectrum); real rows keep the real part.
template <class T, class Value>
struct Store {
  Rows<Value> y;
  Kokkos::View<const Complex<T>*, Kokkos::LayoutRight, MemSpace> factor;
  std::int64_t length;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t row, const std::int64_t k, Complex<T> v) const {
    if (k >= length) return;
    if (factor.data()) v *= factor(k);
    if constexpr (std::is_same<Value, T>::value)
      y(row, k) = v.real();
    else
      y(row, k) = v;
  }
};

// One radix-2 pass of the Stockham autosort FFT on rows of length P, with
// stride s = 2^log_stride and m = P / (2 s): for p < m and q < s, with
// a = x[q + s p] and b = x[q + s (p + m)],
//   y[q + 2 s p] = a + b,   y[q + s (2 p + 1)] = (a - b) w^(p s),
// w = exp(-+2 pi i / P). After log2 P passes (s = 1, 2, .., P/2) the last
// y holds the transform in natural order.
template <class T, class LoadT, class StoreT>
struct StockhamPass {
  LoadT load;
  StoreT store;
  Kokkos::View<const Complex<T>*, Kokkos::LayoutRight, MemSpace> twiddles;  // exp(-2 pi i k / P), k < P/2
  int log_stride, log_half;
  bool backward;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t index) const {
    const std::int64_t half = std::int64_t(1) << log_half, s = std::int64_t(1) << log_stride;
    const std::int64_t row = index >> log_half, t = index & (half - 1);
    const std::int64_t p = t >> log_stride, q = t & (s - 1), m = half >> log_stride;
    const Complex<T> a = load(row, q + s * p), b = load(row, q + s * (p + m));
    const Complex<T> w = backward ? Kokkos::conj(twiddles(p * s)) : twiddles(p * s);
    store(row, q + 2 * s * p, a + b);
    store(row, q + s * (2 * p + 1), (a - b) * w);
  }
};

// Length 1: the transform is the value itself.
template <class T, class LoadT, class StoreT>
struct CopyPass {
  LoadT load;
  StoreT store;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t row) const { store(row, 0, load(row, 0)); }
};

template <class T>
struct TwiddleValues {
  Table<T> table;
  std::int64_t length;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t k) const {
    double s, c;
    math::sincos_turns(-double(k) / double(length), s, c);
    table(k) = Complex<T>(T(c), T(s));
  }
};

// c_j = exp(sign i pi j^2 / n) (sign -1 forward), scaled, for j < n; the
// angle's turns (j^2 mod 2n) / 2n are exact in integers.
template <class T>
struct ChirpValues {
  Table<T> table;
  std::int64_t n;
  int sign;
  double scale;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t j) const {
    double s, c;
    math::sincos_turns(double(sign) * double((j * j) % (2 * n)) / double(2 * n), s, c);
    table(j) = Complex<T>(T(scale * c), T(scale * s));
  }
};

// Bluestein's kernel conj(c_m) at m and P - m for |m| < n, zero between.
template <class T>
struct KernelValues {
  Rows<Complex<T>> kernel;  // 1 x P
  Kokkos::View<const Complex<T>*, Kokkos::LayoutRight, MemSpace> chirp;
  std::int64_t n;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t m) const {
    const std::int64_t P = kernel.extent(1);
    const std::int64_t from = m < n ? m : P - m < n ? P - m : -1;
    kernel(0, m) = from >= 0 ? Kokkos::conj(chirp(from)) : Complex<T>(0);
  }
};

// A row of double complex values rounded to T.
template <class T>
struct RoundedRow {
  Rows<const Complex<double>> from;
  Table<T> to;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t k) const {
    to(k) = Complex<T>(T(from(0, k).real()), T(from(0, k).imag()));
  }
};

template <class T>
Table<T> twiddle_table(const ExecSpace& exec, std::int64_t P) {
  Table<T> table(Kokkos::view_alloc(Kokkos::WithoutInitializing, "fft_portable_twiddles"), P / 2 > 0 ? P / 2 : 1);
  Kokkos::parallel_for("fft_portable_twiddles",
                       Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, P / 2),
                       TwiddleValues<T>{table, P});
  return table;
}

template <class T>
Table<T> chirp_table(const ExecSpace& exec, std::int64_t n, int sign, double scale) {
  Table<T> table(Kokkos::view_alloc(Kokkos::WithoutInitializing, "fft_portable_chirp"), n);
  Kokkos::parallel_for("fft_portable_chirp",
                       Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, n),
                       ChirpValues<T>{table, n, sign, scale});
  return table;
}

// A batched power-of-two FFT of length P: its first pass reads through
// `first`, its last writes through `last`, the passes between go back and
// forth between `even` (written by passes 0, 2, ..) and `odd` (rows x P).
// A buffer that `first` reads may be `odd`, never `even`.
template <class T, class FirstLoad, class LastStore>
void power_of_two_fft(const ExecSpace& exec, std::int64_t rows, std::int64_t P, bool backward, const Table<T>& twiddles,
                      const FirstLoad& first, const LastStore& last, const Rows<Complex<T>>& even,
                      const Rows<Complex<T>>& odd) {
  using Range = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>;
  using BufferLoad = Load<T, Complex<T>>;
  using BufferStore = Store<T, Complex<T>>;
  const int passes = log2_of(P);
  if (passes == 0) {
    Kokkos::parallel_for("fft_portable_copy", Range(exec, 0, rows), CopyPass<T, FirstLoad, LastStore>{first, last});
    return;
  }
  const std::int64_t butterflies = rows * (P / 2);
  const int log_half = passes - 1;
  const auto buffer = [&](int pass) { return pass % 2 == 0 ? even : odd; };
  const auto load_of = [&](int pass) { return BufferLoad{buffer(pass - 1), {}, P}; };
  const auto store_of = [&](int pass) { return BufferStore{buffer(pass), {}, P}; };
  for (int pass = 0; pass < passes; ++pass) {
    const bool is_first = pass == 0, is_last = pass + 1 == passes;
    const char* name = "fft_portable_pass";
    const Range range(exec, 0, butterflies);
    if (is_first && is_last)
      Kokkos::parallel_for(name, range,
                           StockhamPass<T, FirstLoad, LastStore>{first, last, twiddles, pass, log_half, backward});
    else if (is_first)
      Kokkos::parallel_for(
          name, range,
          StockhamPass<T, FirstLoad, BufferStore>{first, store_of(pass), twiddles, pass, log_half, backward});
    else if (is_last)
      Kokkos::parallel_for(
          name, range, StockhamPass<T, BufferLoad, LastStore>{load_of(pass), last, twiddles, pass, log_half, backward});
    else
      Kokkos::parallel_for(
          name, range,
          StockhamPass<T, BufferLoad, BufferStore>{load_of(pass), store_of(pass), twiddles, pass, log_half, backward});
  }
}

// Bluestein's kernel spectrum FFT_P(conj(c)) for a length n, formed in
// double and rounded to T.
template <class T>
Table<T> kernel_spectrum(const ExecSpace& exec, std::int64_t n, std::int64_t P, int sign) {
  using D = Complex<double>;
  using Grid = Kokkos::View<D**, Kokkos::LayoutRight, MemSpace>;
  const Table<double> chirp = chirp_table<double>(exec, n, sign, 1.0);
  const Table<double> twiddles = twiddle_table<double>(exec, P);
  // Every value of each is written before it is read (no zero fill, which
  // Kokkos 3.4 would run on the default instance).
  const auto grid = [&](const char* label) {
    return Grid(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), 1, P);
  };
  const Grid kernel = grid("fft_portable_kernel"), even = grid("fft_portable_kernel_even"),
             odd = grid("fft_portable_kernel_odd"), result = grid("fft_portable_kernel_result");
  Kokkos::parallel_for("fft_portable_kernel",
                       Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, P),
                       KernelValues<double>{kernel, chirp, n});
  power_of_two_fft<double>(exec, 1, P, false, twiddles, Load<double, D>{kernel, {}, P}, Store<double, D>{result, {}, P},
                           even, odd);
  Table<T> spectrum(Kokkos::view_alloc(Kokkos::WithoutInitializing, "fft_portable_kernel_spectrum"), P);
  Kokkos::parallel_for("fft_portable_kernel_round",
                       Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, P),
                       RoundedRow<T>{result, spectrum});
  exec.fence();  // the double tables and buffers go on return
  return spectrum;
}

template <class T>
class PortableEngine final : public Engine<T> {
 public:
  PortableEngine(Kind kind, std::int64_t length, std::int64_t batch, Threading threading)
      : kind_(kind),
        length_(length),
        batch_(batch),
        n_(extended_length(kind, length)),
        P_(portable_transform_length(n_)),
        backward_(runs_backward(kind)) {
    if (threading == Threading::caller)
      throw std::invalid_argument(
          "FFT plan: the portable implementation launches its own parallel kernels; Threading::caller is for FFTW "
          "plans");
    const std::int64_t buffer_cols = P_;
    even_ =
        View2D<Complex<T>>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "fft_portable_even"), batch, buffer_cols);
    odd_ = View2D<Complex<T>>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "fft_portable_odd"), batch, buffer_cols);
    if (kind == Kind::dst1 || kind == Kind::dct1) {
      extended_ = View2D<T>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "fft_extended"), batch, n_);
      spectrum_ =
          View2D<Complex<T>>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "fft_spectrum"), batch, n_ / 2 + 1);
    }
  }

  void run(const ExecSpace& exec, const void* in, void* out) override {
    using C = Complex<T>;
    if (!twiddles_.data()) make_tables(exec);
    switch (kind_) {
      case Kind::complex_forward:
      case Kind::complex_backward:
        transform(exec, Load<T, C>{Rows<const C>(static_cast<const C*>(in), batch_, n_), {}, n_},
                  Rows<C>(static_cast<C*>(out), batch_, n_), n_);
        break;
      case Kind::real_forward:
        transform(exec, Load<T, T>{Rows<const T>(static_cast<const T*>(in), batch_, n_), {}, n_},
                  Rows<C>(static_cast<C*>(out), batch_, n_ / 2 + 1), n_ / 2 + 1);
        break;
      case Kind::real_backward:
        transform(exec, Load<T, C>{Rows<const C>(static_cast<const C*>(in), batch_, n_ / 2 + 1), {}, n_, n_},
                  Rows<T>(static_cast<T*>(out), batch_, n_), n_);
        break;
      case Kind::dst1:
      case Kind::dct1:
        real_to_real_by_extension<T>(exec, kind_, length_, batch_, static_cast<const T*>(in), static_cast<T*>(out),
                                     extended_, spectrum_, [&] {
                                       transform(exec, Load<T, T>{Rows<const T>(extended_.data(), batch_, n_), {}, n_},
                                                 Rows<C>(spectrum_.data(), batch_, n_ / 2 + 1), n_ / 2 + 1);
                                     });
        break;
    }
  }

 private:
  // Twiddles, chirps and Bluestein's kernel spectrum, built by the first run
  // on its instance (later runs are ordered after it: Plan's contract), so a
  // plan made inside a solve on an instance launches nothing elsewhere.
  void make_tables(const ExecSpace& exec) {
    twiddles_ = twiddle_table<T>(exec, P_);
    if (P_ == n_) return;
    const int sign = backward_ ? 1 : -1;
    chirp_in_ = chirp_table<T>(exec, n_, sign, 1.0);
    chirp_out_ = chirp_table<T>(exec, n_, sign, 1.0 / double(P_));
    kernel_ = kernel_spectrum<T>(exec, n_, P_, sign);
  }

  // The length-n transform of the rows `input` reads into the first
  // out_length values of out's rows.
  template <class Value, class OutValue>
  void transform(const ExecSpace& exec, Load<T, Value> input, const Rows<OutValue>& out, std::int64_t out_length) {
    using C = Complex<T>;
    const Rows<C> even(even_.data(), batch_, P_), odd(odd_.data(), batch_, P_);
    if (P_ == n_) {
      power_of_two_fft<T>(exec, batch_, P_, backward_, twiddles_, input, Store<T, OutValue>{out, {}, out_length}, even,
                          odd);
      return;
    }
    // x c, zero-padded, to its spectrum (in `even` or `odd`, whichever the
    // last pass writes), times the kernel's spectrum as the inverse reads
    // it, back (scaled by 1 / P) and times c on the first n values.
    input.factor = chirp_in_;
    const int passes = log2_of(P_);
    const Rows<C> spectrum = (passes - 1) % 2 == 0 ? even : odd, other = spectrum.data() == even.data() ? odd : even;
    power_of_two_fft<T>(exec, batch_, P_, false, twiddles_, input, Store<T, C>{spectrum, {}, P_}, even, odd);
    power_of_two_fft<T>(exec, batch_, P_, true, twiddles_, Load<T, C>{spectrum, kernel_, P_},
                        Store<T, OutValue>{out, chirp_out_, out_length}, other, spectrum);
  }

  Kind kind_;
  std::int64_t length_, batch_;
  std::int64_t n_;  // the complex transform's length (DST-I and DCT-I: the extension's)
  std::int64_t P_;  // the power-of-two length it runs at
  bool backward_;
  Table<T> twiddles_, chirp_in_, chirp_out_, kernel_;
  View2D<Complex<T>> even_, odd_;
  View2D<T> extended_;
  View2D<Complex<T>> spectrum_;
};

}  // namespace

template <class T>
std::unique_ptr<Engine<T>> make_portable_engine(Kind kind, std::int64_t length, std::int64_t batch, Planning,
                                                Threading threading) {
  return std::make_unique<PortableEngine<T>>(kind, length, batch, threading);
}

template std::unique_ptr<Engine<float>> make_portable_engine<float>(Kind, std::int64_t, std::int64_t, Planning,
                                                                    Threading);
template std::unique_ptr<Engine<double>> make_portable_engine<double>(Kind, std::int64_t, std::int64_t, Planning,
                                                                      Threading);

}  // namespace portasolve::fft::detail
