// The FFT layer against its definitions (fft/fft.hpp) summed directly in long
// double: every kind, float and double, the backend's library and the
// portable kernels, batched (3 rows) for all lengths 1..64 and a spread up to
// 1000, one row for every length 1..1000.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "fft/fft.hpp"
#include "tests/instance.hpp"

namespace portasolve::fft {
namespace {

using LongComplex = std::complex<long double>;
const long double pi = 3.141592653589793238462643383279502884L;
constexpr std::int64_t batch = 3;

std::vector<std::int64_t> lengths() {
  std::vector<std::int64_t> all;
  for (std::int64_t n = 1; n <= 64; ++n) all.push_back(n);
  for (std::int64_t n : {97, 128, 210, 331, 512, 729, 997, 1000}) all.push_back(n);
  return all;
}

template <class T>
double tolerance() {
  return std::is_same<T, float>::value ? 2e-6 : 1e-14;
}

// exp(sign 2 pi i m / period) for m = 0..period-1: the direct sums index it
// with (j k) mod period, so no long double argument grows with n^2.
std::vector<LongComplex> roots(std::int64_t period, int sign) {
  std::vector<LongComplex> table(period);
  for (std::int64_t m = 0; m < period; ++m) table[m] = std::polar(1.0L, sign * 2 * pi * m / period);
  return table;
}

std::vector<LongComplex> direct_dft(const std::vector<LongComplex>& x, int sign) {
  const std::int64_t n = x.size();
  const auto w = roots(n, sign);
  std::vector<LongComplex> y(n);
  // Products written out: std::complex's operator* checks for NaN and
  // infinities in a library call per term.
  for (std::int64_t k = 0; k < n; ++k) {
    long double re = 0, im = 0;
    for (std::int64_t j = 0; j < n; ++j) {
      const LongComplex& r = w[(j * k) % n];
      re += x[j].real() * r.real() - x[j].imag() * r.imag();
      im += x[j].real() * r.imag() + x[j].imag() * r.real();
    }
    y[k] = {re, im};
  }
  return y;
}

std::vector<long double> direct_dst1(const std::vector<long double>& x) {
  const std::int64_t n = x.size(), period = 2 * (n + 1);
  const auto w = roots(period, 1);
  std::vector<long double> y(n);
  for (std::int64_t k = 0; k < n; ++k)
    for (std::int64_t j = 0; j < n; ++j) y[k] += 2 * x[j] * w[((j + 1) * (k + 1)) % period].imag();
  return y;
}

std::vector<long double> direct_dct1(const std::vector<long double>& x) {
  const std::int64_t n = x.size(), period = 2 * (n - 1);
  const auto w = roots(period, 1);
  std::vector<long double> y(n);
  for (std::int64_t k = 0; k < n; ++k) {
    y[k] = x[0] + (k % 2 ? -1 : 1) * x[n - 1];
    for (std::int64_t j = 1; j + 1 < n; ++j) y[k] += 2 * x[j] * w[(j * k) % period].real();
  }
  return y;
}

// Rows of random values in [-1, 1], a fixed seed per length.
std::vector<std::vector<long double>> random_rows(std::int64_t rows, std::int64_t cols, unsigned seed) {
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<double> value(-1, 1);
  std::vector<std::vector<long double>> all(rows, std::vector<long double>(cols));
  for (auto& row : all)
    for (auto& v : row) v = value(random);
  return all;
}

template <class V, class Fill>
V device_rows(std::int64_t rows, std::int64_t cols, Fill fill) {
  V view("fft_test", rows, cols);
  const auto host = Kokkos::create_mirror_view(view);
  for (std::int64_t b = 0; b < rows; ++b)
    for (std::int64_t j = 0; j < cols; ++j) host(b, j) = fill(b, j);
  Kokkos::deep_copy(view, host);
  return view;
}

// ||got - want||_2 / ||want||_2 over the whole batch.
struct ErrorNorm {
  long double error = 0, norm = 0;
  void add(LongComplex got, LongComplex want) {
    error += std::norm(got - want);
    norm += std::norm(want);
  }
  double relative() const { return norm > 0 ? double(std::sqrt(error / norm)) : double(std::sqrt(error)); }
};

// On the host in long double.
template <class T>
LongComplex widen(const Kokkos::complex<T>& z) {
  return {z.real(), z.imag()};
}
template <class T>
long double widen(T x) {
  return x;
}

// Runs a `kind` plan of length n on the `batch` rows of `in` into `out`, and
// returns ||out - want||_2 / ||want||_2 over the whole batch, where a row's
// want is reference(its input before the run, as a vector of Value), compared
// on the out row's length.
template <class T, class Value, class In, class Out, class Reference>
double run_error(Implementation impl, Kind kind, std::int64_t n, const In& in, const Out& out, Reference reference) {
  const auto host_in = Kokkos::create_mirror_view_and_copy(HostSpace(), in);
  Plan<T>(kind, n, batch, Planning::estimate, Threading::library, impl).execute(in, out);
  const auto host = Kokkos::create_mirror_view_and_copy(HostSpace(), out);
  ErrorNorm error;
  for (std::int64_t b = 0; b < batch; ++b) {
    std::vector<Value> row(host_in.extent(1));
    for (std::size_t j = 0; j < row.size(); ++j) row[j] = widen(host_in(b, j));
    const auto want = reference(row);
    for (std::size_t k = 0; k < host.extent(1); ++k) error.add(widen(host(b, k)), want[k]);
  }
  return error.relative();
}

const char* name_of(Implementation impl) { return impl == Implementation::portable ? "portable" : "library"; }

template <class T>
void check_complex(Implementation impl, Kind kind, std::int64_t n) {
  using C = Kokkos::complex<T>;
  const auto re = random_rows(batch, n, unsigned(n)), im = random_rows(batch, n, unsigned(n + 5000));
  const auto in = device_rows<View2D<C>>(batch, n, [&](auto b, auto j) { return C(T(re[b][j]), T(im[b][j])); });
  const int sign = kind == Kind::complex_forward ? -1 : 1;
  const double error =
      run_error<T, LongComplex>(impl, kind, n, in, View2D<C>("out", batch, n),
                                [&](const std::vector<LongComplex>& x) { return direct_dft(x, sign); });
  EXPECT_LE(error, tolerance<T>()) << name_of(impl) << " " << name_of(kind) << " length " << n;
}

template <class T>
void check_real_forward(Implementation impl, std::int64_t n) {
  using C = Kokkos::complex<T>;
  const auto x = random_rows(batch, n, unsigned(n));
  const auto in = device_rows<View2D<T>>(batch, n, [&](auto b, auto j) { return T(x[b][j]); });
  const double error =
      run_error<T, LongComplex>(impl, Kind::real_forward, n, in, View2D<C>("out", batch, n / 2 + 1),
                                [](const std::vector<LongComplex>& row) { return direct_dft(row, -1); });
  EXPECT_LE(error, tolerance<T>()) << name_of(impl) << " real_forward length " << n;
}

// The input is a Hermitian half spectrum: that of a real row, so the
// reference is the row times n whatever the library does with the
// imaginary parts of the DC and Nyquist terms (here zero).
template <class T>
void check_real_backward(Implementation impl, std::int64_t n) {
  using C = Kokkos::complex<T>;
  const std::int64_t half = n / 2 + 1;
  const auto re = random_rows(batch, half, unsigned(n)), im = random_rows(batch, half, unsigned(n + 5000));
  const auto in = device_rows<View2D<C>>(batch, half, [&](auto b, auto k) {
    const bool real_only = k == 0 || 2 * k == n;
    return C(T(re[b][k]), real_only ? T(0) : T(im[b][k]));
  });
  const auto before = Kokkos::create_mirror_view_and_copy(HostSpace(), in);
  const double error = run_error<T, LongComplex>(impl, Kind::real_backward, n, in, View2D<T>("out", batch, n),
                                                 [&](const auto& half_row) {
                                                   std::vector<LongComplex> full(n);
                                                   for (std::int64_t k = 0; k < half; ++k) {
                                                     full[k] = half_row[k];
                                                     if (k > 0) full[n - k] = std::conj(full[k]);
                                                   }
                                                   std::vector<long double> want(n);
                                                   const auto dft = direct_dft(full, 1);
                                                   for (std::int64_t j = 0; j < n; ++j) want[j] = dft[j].real();
                                                   return want;
                                                 });
  const auto after = Kokkos::create_mirror_view_and_copy(HostSpace(), in);
  for (std::int64_t b = 0; b < batch; ++b)
    for (std::int64_t k = 0; k < half; ++k) ASSERT_EQ(before(b, k), after(b, k)) << "input modified, length " << n;
  EXPECT_LE(error, tolerance<T>()) << name_of(impl) << " real_backward length " << n;
}

template <class T>
void check_real_to_real(Implementation impl, Kind kind, std::int64_t n) {
  const auto x = random_rows(batch, n, unsigned(n));
  const auto in = device_rows<View2D<T>>(batch, n, [&](auto b, auto j) { return T(x[b][j]); });
  const double error = run_error<T, long double>(
      impl, kind, n, in, View2D<T>("out", batch, n),
      [&](const std::vector<long double>& row) { return kind == Kind::dst1 ? direct_dst1(row) : direct_dct1(row); });
  EXPECT_LE(error, tolerance<T>()) << name_of(impl) << " " << name_of(kind) << " length " << n;
}

// A precision and an implementation.
template <class T, Implementation I>
struct Case {
  using Scalar = T;
  static constexpr Implementation implementation = I;
};

template <class T>
class FftTest : public ::testing::Test {};
using Cases = ::testing::Types<Case<float, Implementation::library>, Case<double, Implementation::library>,
                               Case<float, Implementation::portable>, Case<double, Implementation::portable>>;
struct CaseNames {
  template <class C>
  static std::string GetName(int) {
    return std::string(std::is_same<typename C::Scalar, float>::value ? "Float" : "Double") +
           (C::implementation == Implementation::portable ? "Portable" : "Library");
  }
};
TYPED_TEST_SUITE(FftTest, Cases, CaseNames);

TYPED_TEST(FftTest, ComplexMatchesTheDirectSum) {
  using T = typename TypeParam::Scalar;
  for (const std::int64_t n : lengths()) {
    check_complex<T>(TypeParam::implementation, Kind::complex_forward, n);
    check_complex<T>(TypeParam::implementation, Kind::complex_backward, n);
  }
}

TYPED_TEST(FftTest, RealMatchesTheDirectSum) {
  using T = typename TypeParam::Scalar;
  for (const std::int64_t n : lengths()) {
    check_real_forward<T>(TypeParam::implementation, n);
    check_real_backward<T>(TypeParam::implementation, n);
  }
}

TYPED_TEST(FftTest, SineAndCosineMatchTheirDefinitions) {
  using T = typename TypeParam::Scalar;
  for (const std::int64_t n : lengths()) {
    check_real_to_real<T>(TypeParam::implementation, Kind::dst1, n);
    if (n >= 2) check_real_to_real<T>(TypeParam::implementation, Kind::dct1, n);
  }
}

TYPED_TEST(FftTest, DstTwiceIsTheIdentityTimesTwiceTheExtendedLength) {
  using T = typename TypeParam::Scalar;
  const std::int64_t n = 37;
  const auto x = random_rows(batch, n, 7);
  const auto in = device_rows<View2D<T>>(batch, n, [&](auto b, auto j) { return T(x[b][j]); });
  View2D<T> once("once", batch, n), twice("twice", batch, n);
  const Plan<T> plan(Kind::dst1, n, batch, Planning::estimate, Threading::library, TypeParam::implementation);
  plan.execute(in, once);
  plan.execute(once, twice);  // the same plan, run again on other Views
  const auto host = Kokkos::create_mirror_view_and_copy(HostSpace(), twice);
  const auto host_in = Kokkos::create_mirror_view_and_copy(HostSpace(), in);
  for (std::int64_t b = 0; b < batch; ++b)
    for (std::int64_t j = 0; j < n; ++j) EXPECT_NEAR(host(b, j) / T(2 * (n + 1)), host_in(b, j), 10 * tolerance<T>());
}

// Every length 1..1000 (168 primes among them), each kind, float and double,
// against one long double direct sum per length: the complex backward
// transform of conj(x) is conj(X), the real forward transform of Re x is
// (X[k] + conj(X[n-k])) / 2, and the real backward transform of that half
// spectrum is n Re x. One row a length keeps the sums to ~10^9 terms.
template <class T>
struct OneRowRun {
  using C = Kokkos::complex<T>;
  Implementation impl;
  std::vector<LongComplex> operator()(Kind kind, std::int64_t n, const std::vector<LongComplex>& x) const {
    const bool complex_in = kind != Kind::real_forward && kind != Kind::dst1 && kind != Kind::dct1;
    const bool complex_out = kind != Kind::real_backward && kind != Kind::dst1 && kind != Kind::dct1;
    const std::int64_t out_length = kind == Kind::real_forward ? n / 2 + 1 : n;
    const Plan<T> plan(kind, n, 1, Planning::estimate, Threading::library, impl);
    std::vector<LongComplex> got(out_length);
    const auto run_on = [&](const auto& in) {
      if (complex_out)
        execute_into<View2D<C>>(plan, in, got);
      else
        execute_into<View2D<T>>(plan, in, got);
    };
    if (complex_in)
      run_on(device_rows<View2D<C>>(1, x.size(), [&](auto, auto j) { return C(T(x[j].real()), T(x[j].imag())); }));
    else
      run_on(device_rows<View2D<T>>(1, n, [&](auto, auto j) { return T(x[j].real()); }));
    return got;
  }
  template <class Out, class In>
  static void execute_into(const Plan<T>& plan, const In& in, std::vector<LongComplex>& got) {
    const Out out("out", 1, got.size());
    plan.execute(in, out);
    const auto host = Kokkos::create_mirror_view_and_copy(HostSpace(), out);
    for (std::size_t k = 0; k < got.size(); ++k) got[k] = LongComplex(host(0, k));
  }
};

template <class T>
void expect_close(const std::vector<LongComplex>& got, const std::vector<LongComplex>& want, Implementation impl,
                  Kind kind, std::int64_t n) {
  ErrorNorm error;
  for (std::size_t k = 0; k < want.size(); ++k) error.add(got[k], want[k]);
  EXPECT_LE(error.relative(), tolerance<T>()) << name_of(impl) << " " << name_of(kind) << " length " << n
                                              << (std::is_same<T, float>::value ? " float" : " double");
}

template <class T>
void check_every_kind(Implementation impl, std::int64_t n, const std::vector<LongComplex>& x,
                      const std::vector<LongComplex>& spectrum, const std::vector<LongComplex>& sine,
                      const std::vector<LongComplex>& cosine) {
  const OneRowRun<T> run{impl};
  std::vector<LongComplex> conj_x(n), conj_spectrum(n), real_x(n), half(n / 2 + 1), n_real_x(n);
  for (std::int64_t j = 0; j < n; ++j) {
    conj_x[j] = std::conj(x[j]);
    conj_spectrum[j] = std::conj(spectrum[j]);
    real_x[j] = x[j].real();
    n_real_x[j] = x[j].real() * n;
  }
  for (std::int64_t k = 0; k <= n / 2; ++k) half[k] = (spectrum[k] + std::conj(spectrum[(n - k) % n])) / 2.0L;
  expect_close<T>(run(Kind::complex_forward, n, x), spectrum, impl, Kind::complex_forward, n);
  expect_close<T>(run(Kind::complex_backward, n, conj_x), conj_spectrum, impl, Kind::complex_backward, n);
  expect_close<T>(run(Kind::real_forward, n, real_x), half, impl, Kind::real_forward, n);
  expect_close<T>(run(Kind::real_backward, n, half), n_real_x, impl, Kind::real_backward, n);
  expect_close<T>(run(Kind::dst1, n, real_x), sine, impl, Kind::dst1, n);
  if (n >= 2) expect_close<T>(run(Kind::dct1, n, real_x), cosine, impl, Kind::dct1, n);
}

TEST(Fft, EveryLengthUpTo1000MatchesOneDirectSum) {
  for (std::int64_t n = 1; n <= 1000; ++n) {
    const auto re = random_rows(1, n, unsigned(n + 20000)), im = random_rows(1, n, unsigned(n + 30000));
    std::vector<LongComplex> x(n);
    for (std::int64_t j = 0; j < n; ++j) x[j] = {re[0][j], im[0][j]};
    const auto spectrum = direct_dft(x, -1);
    const auto sine_real = direct_dst1(re[0]);
    const auto cosine_real = n >= 2 ? direct_dct1(re[0]) : std::vector<long double>{};
    const std::vector<LongComplex> sine(sine_real.begin(), sine_real.end());
    const std::vector<LongComplex> cosine(cosine_real.begin(), cosine_real.end());
    for (const Implementation impl : {Implementation::library, Implementation::portable}) {
      check_every_kind<float>(impl, n, x, spectrum, sine, cosine);
      check_every_kind<double>(impl, n, x, spectrum, sine, cosine);
    }
  }
}

// A DST-I of length 8190 (the rows of an 8192^2 Poisson grid): its
// extension has length 2 x 8191, a prime half, where libraries and the
// portable kernels alike run Bluestein's convolution. Both stay within the
// precision's tolerance of the long double sum.
TEST(Fft, DstOfAPrimeExtensionIsAccurateInBothImplementations) {
  const std::int64_t n = 8190;
  const auto x = random_rows(1, n, 8191);
  const auto want = direct_dst1(x[0]);
  for (const Implementation impl : {Implementation::library, Implementation::portable}) {
    const auto in_float = device_rows<View2D<float>>(1, n, [&](auto, auto j) { return float(x[0][j]); });
    const auto in_double = device_rows<View2D<double>>(1, n, [&](auto, auto j) { return double(x[0][j]); });
    View2D<float> out_float("out", 1, n);
    View2D<double> out_double("out", 1, n);
    Plan<float>(Kind::dst1, n, 1, Planning::estimate, Threading::library, impl).execute(in_float, out_float);
    Plan<double>(Kind::dst1, n, 1, Planning::estimate, Threading::library, impl).execute(in_double, out_double);
    const auto got_float = Kokkos::create_mirror_view_and_copy(HostSpace(), out_float);
    const auto got_double = Kokkos::create_mirror_view_and_copy(HostSpace(), out_double);
    ErrorNorm error_float, error_double;
    for (std::int64_t k = 0; k < n; ++k) {
      error_float.add(got_float(0, k), want[k]);
      error_double.add(got_double(0, k), want[k]);
    }
    EXPECT_LE(error_float.relative(), tolerance<float>()) << name_of(impl) << " float";
    EXPECT_LE(error_double.relative(), tolerance<double>()) << name_of(impl) << " double";
    std::printf("dst1 length %lld, %s: relative error %.3g (float), %.3g (double)\n", static_cast<long long>(n),
                name_of(impl), error_float.relative(), error_double.relative());
  }
}

// A plan for the calling thread (one-threaded, aligned: FFTW's SIMD paths)
// transforms as the default plan does, and refuses Views off its alignment.
TEST(Fft, PlansForTheCallingThreadMatchAndNeedAlignedViews) {
  using C = Kokkos::complex<float>;
  for (const std::int64_t n : {std::int64_t(210), std::int64_t(1000), std::int64_t(20480)}) {
    View2D<C> in("in", batch, n), expected("expected", batch, n);
    auto host_in = Kokkos::create_mirror_view(in);
    std::mt19937 rng(static_cast<unsigned>(n));
    std::uniform_real_distribution<float> value(-1, 1);
    for (std::int64_t b = 0; b < batch; ++b)
      for (std::int64_t j = 0; j < n; ++j) host_in(b, j) = C(value(rng), value(rng));
    Kokkos::deep_copy(in, host_in);
    Plan<float>(Kind::complex_backward, n, batch).execute(in, expected);
    const auto host_expected = Kokkos::create_mirror_view_and_copy(HostSpace(), expected);
    const Plan<float> plan(Kind::complex_backward, n, batch, Planning::estimate, Threading::caller);
    View2D<C> out("out", batch, n);
    plan.execute(in, out);
    const auto host_out = Kokkos::create_mirror_view_and_copy(HostSpace(), out);
    double worst = 0, scale = 0;
    for (std::int64_t b = 0; b < batch; ++b)
      for (std::int64_t k = 0; k < n; ++k) {
        worst = std::max(worst, static_cast<double>(Kokkos::abs(host_out(b, k) - host_expected(b, k))));
        scale = std::max(scale, static_cast<double>(Kokkos::abs(host_expected(b, k))));
      }
    EXPECT_LT(worst / scale, 1e-6) << n;
  }
  if (std::string(library_name()) != "FFTW3") return;  // cuFFT ignores the threading
  const Plan<double> plan(Kind::complex_forward, 8, 2, Planning::estimate, Threading::caller);
  View1D<Kokkos::complex<double>> storage("storage", 2 * 8 + 1);
  View2D<Kokkos::complex<double>> out("out", 2, 8);
  const View2D<Kokkos::complex<double>> shifted(storage.data() + 1, 2, 8);
  try {
    plan.execute(shifted, out);
    ADD_FAILURE() << "no error";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("aligned to 64 bytes"), std::string::npos) << error.what();
  }
}

// Library plans are made for SIMD-aligned arrays (Kokkos' allocations) and
// run arrays of any other alignment through a second plan: a DST-I of rows
// shifted by one float, in and out, equals the aligned transform to rounding.
TEST(Fft, LibraryPlansRunOnViewsOfAnyAlignment) {
  const std::int64_t n = 2047, rows = 3;
  const Plan<float> plan(Kind::dst1, n, rows);
  View2D<float> in("in", rows, n), expected("expected", rows, n);
  auto host_in = Kokkos::create_mirror_view(in);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> value(-1, 1);
  for (std::int64_t b = 0; b < rows; ++b)
    for (std::int64_t j = 0; j < n; ++j) host_in(b, j) = value(rng);
  Kokkos::deep_copy(in, host_in);
  plan.execute(in, expected);
  View1D<float> in_storage("in_storage", rows * n + 1), out_storage("out_storage", rows * n + 1);
  const View2D<float> shifted_in(in_storage.data() + 1, rows, n), shifted_out(out_storage.data() + 1, rows, n);
  Kokkos::deep_copy(shifted_in, in);
  for (int round = 0; round < 2; ++round) {  // the second plan is made once, then reused
    plan.execute(shifted_in, shifted_out);
    const auto got = Kokkos::create_mirror_view_and_copy(HostSpace(), shifted_out);
    const auto want = Kokkos::create_mirror_view_and_copy(HostSpace(), expected);
    double worst = 0, scale = 0;
    for (std::int64_t b = 0; b < rows; ++b)
      for (std::int64_t k = 0; k < n; ++k) {
        worst = std::max(worst, std::abs(double(got(b, k)) - double(want(b, k))));
        scale = std::max(scale, std::abs(double(want(b, k))));
      }
    EXPECT_LT(worst / scale, 1e-5) << round;
    EXPECT_GT(scale, 1.0);
  }
  // The aligned Views still take the first plan, after the second was made.
  View2D<float> again("again", rows, n);
  plan.execute(in, again);
  const auto got = Kokkos::create_mirror_view_and_copy(HostSpace(), again);
  const auto want = Kokkos::create_mirror_view_and_copy(HostSpace(), expected);
  for (std::int64_t b = 0; b < rows; ++b)
    for (std::int64_t k = 0; k < n; ++k) ASSERT_EQ(got(b, k), want(b, k)) << b << " " << k;
  // One of the two misaligned: the other plan again, the same values.
  View2D<float> aligned_out("aligned_out", rows, n);
  plan.execute(shifted_in, aligned_out);
  plan.execute(in, shifted_out);
  const auto from_shifted = Kokkos::create_mirror_view_and_copy(HostSpace(), aligned_out);
  const auto into_shifted = Kokkos::create_mirror_view_and_copy(HostSpace(), shifted_out);
  for (std::int64_t b = 0; b < rows; ++b)
    for (std::int64_t k = 0; k < n; ++k) {
      const double scale = std::max(1.0, std::abs(double(want(b, k))));
      ASSERT_NEAR(from_shifted(b, k), want(b, k), 1e-4 * scale) << b << " " << k;
      ASSERT_NEAR(into_shifted(b, k), want(b, k), 1e-4 * scale) << b << " " << k;
    }
}

// The FFT size a plan of kind and length runs, and whether an implementation
// runs it without Bluestein's convolution: written out here by trial
// division, independently of fft::fast_length.
std::int64_t fft_size_of(Kind kind, std::int64_t length) {
  return kind == Kind::dst1 ? 2 * (length + 1) : kind == Kind::dct1 ? 2 * (length - 1) : length;
}
bool runs_directly(std::int64_t size, bool powers_of_two_only) {
  std::int64_t largest_factor = 1;
  for (std::int64_t p = 2; p * p <= size; ++p)
    while (size % p == 0) size /= p, largest_factor = std::max(largest_factor, p);
  if (size > 1) largest_factor = std::max(largest_factor, size);
  return largest_factor <= (powers_of_two_only ? 2 : 7);
}

TEST(Fft, FastLengthsAreTheLeastAtWhichEachImplementationRunsDirectly) {
  for (const Implementation implementation : {Implementation::library, Implementation::portable}) {
    const bool powers_of_two = implementation == Implementation::portable || !library_available;
    for (const Kind kind : {Kind::complex_forward, Kind::real_forward, Kind::dst1, Kind::dct1}) {
      for (std::int64_t length = kind == Kind::dct1 ? 2 : 1; length <= 1100; ++length) {
        std::int64_t want = length;
        while (!runs_directly(fft_size_of(kind, want), powers_of_two)) ++want;
        ASSERT_EQ(fast_length(kind, length, 3, implementation), want)
            << name_of(kind) << " " << length << (powers_of_two ? " portable" : " library");
      }
    }
  }
  // 8190 interior columns (8192 points): 8191 is prime; 8191 + 1 = 2^13.
  EXPECT_EQ(fast_length(Kind::dst1, 8190, 8190), 8191);
  // Past the libraries' int range the length stays: 2 (n' + 4) x batch > 2^31 - 1.
  EXPECT_EQ(fast_length(Kind::dst1, 32768, 30000, Implementation::portable), 32768);
  EXPECT_EQ(fast_length(Kind::dst1, 32768, 100, Implementation::portable), 65535);
}

// Views of rows x cols values (Kokkos::complex<T> or T), random in [-1, 1].
template <class Value>
View2D<Value> random_view(std::int64_t rows, std::int64_t cols, unsigned seed) {
  View2D<Value> view("in", rows, cols);
  auto host = Kokkos::create_mirror_view(view);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> value(-1, 1);
  for (std::int64_t b = 0; b < rows; ++b)
    for (std::int64_t j = 0; j < cols; ++j) {
      if constexpr (std::is_arithmetic<Value>::value)
        host(b, j) = Value(value(rng));
      else
        host(b, j) = Value(value(rng), value(rng));
    }
  Kokkos::deep_copy(view, host);
  return view;
}

template <class Value>
View2D<Value> poisoned(std::int64_t rows, std::int64_t cols) {
  View2D<Value> view("out", rows, cols);
  Kokkos::deep_copy(view, Value(std::numeric_limits<double>::quiet_NaN()));
  return view;
}

template <class Value>
int non_finite(const std::vector<Value>& values) {
  int count = 0;
  for (const Value& v : values) {
    if constexpr (std::is_arithmetic<Value>::value)
      count += !std::isfinite(v);
    else
      count += !std::isfinite(v.real()) || !std::isfinite(v.imag());
  }
  return count;
}

// One plan of `kind` run on the default instance, then on `exec`, then on
// the default instance again: the same bits each time. The instance's output
// is poisoned (NaN) first and read after exec.fence() alone; a transform that
// ran on the default stream instead would leave NaN or a partial result
// there on CUDA.
template <class T, class In, class Out>
void expect_execution_on_instance_matches(const ExecSpace& exec, Implementation impl, Kind kind, std::int64_t n,
                                          std::int64_t rows) {
  const Plan<T> plan(kind, n, rows, Planning::estimate, Threading::library, impl);
  const View2D<In> in = random_view<In>(rows, input_length(kind, n), unsigned(n + 40000 + int(kind)));
  const std::int64_t out_cols = output_length(kind, n);
  const View2D<Out> by_default = poisoned<Out>(rows, out_cols);
  Kokkos::fence();
  plan.execute(in, by_default);
  Kokkos::fence();
  const std::vector<Out> expected = instance_tests::read_now(by_default);
  EXPECT_EQ(non_finite(expected), 0) << name_of(kind);

  const View2D<Out> on_instance = poisoned<Out>(rows, out_cols);
  Kokkos::fence();  // the poison and the input are written before the instance reads
  plan.execute(exec, in, on_instance);
  exec.fence();
  EXPECT_EQ(instance_tests::bit_differences(instance_tests::read_now(on_instance), expected), 0)
      << name_of(impl) << " " << name_of(kind) << " on exec";

  const View2D<Out> again = poisoned<Out>(rows, out_cols);
  Kokkos::fence();
  plan.execute(in, again);
  Kokkos::fence();
  EXPECT_EQ(instance_tests::bit_differences(instance_tests::read_now(again), expected), 0)
      << name_of(impl) << " " << name_of(kind) << " default again";
}

template <class T>
void expect_every_kind_on_an_instance_matches() {
  using C = Kokkos::complex<T>;
  const instance_tests::OwnInstance instance;
  const ExecSpace& exec = instance.exec();
  // Odd lengths, a batch large enough for many blocks on a GPU.
  for (const Implementation impl : {Implementation::library, Implementation::portable})
    for (const std::int64_t n : {std::int64_t(37), std::int64_t(1001)}) {
      const std::int64_t rows = 257;
      expect_execution_on_instance_matches<T, C, C>(exec, impl, Kind::complex_forward, n, rows);
      expect_execution_on_instance_matches<T, C, C>(exec, impl, Kind::complex_backward, n, rows);
      expect_execution_on_instance_matches<T, T, C>(exec, impl, Kind::real_forward, n, rows);
      expect_execution_on_instance_matches<T, C, T>(exec, impl, Kind::real_backward, n, rows);
      expect_execution_on_instance_matches<T, T, T>(exec, impl, Kind::dst1, n, rows);
      expect_execution_on_instance_matches<T, T, T>(exec, impl, Kind::dct1, n, rows);
    }
}

TEST(Fft, PlansOnAnInstanceGiveTheDefaultBitsDouble) { expect_every_kind_on_an_instance_matches<double>(); }
TEST(Fft, PlansOnAnInstanceGiveTheDefaultBitsFloat) { expect_every_kind_on_an_instance_matches<float>(); }

TEST(Fft, BadArgumentsAreNamed) {
  const auto message = [](auto build) {
    try {
      build();
    } catch (const std::invalid_argument& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message([] { Plan<double>(Kind::dst1, 0, 1); }).find("length must be >= 1"), std::string::npos);
  EXPECT_NE(message([] { Plan<double>(Kind::dct1, 1, 1); }).find("dct1 length must be >= 2"), std::string::npos);
  EXPECT_NE(message([] { Plan<float>(Kind::complex_forward, 8, 0); }).find("batch must be >= 1"), std::string::npos);
  const Plan<double> plan(Kind::dst1, 8, 2);
  View2D<double> in("in", 2, 8), wrong("wrong", 2, 9);
  View2D<Kokkos::complex<double>> spectrum("spectrum", 2, 8);
  EXPECT_NE(message([&] { plan.execute(in, wrong); }).find("output is 2x9"), std::string::npos);
  EXPECT_NE(message([&] { plan.execute(in, spectrum); }).find("another kind"), std::string::npos);
  EXPECT_NE(message([&] { plan.execute(in, in); }).find("overlap"), std::string::npos);
  EXPECT_NE(message([] {
              Plan<float>(Kind::complex_forward, 8, 1, Planning::estimate, Threading::caller, Implementation::portable);
            }).find("Threading::caller is for FFTW plans"),
            std::string::npos);
}

}  // namespace
}  // namespace portasolve::fft
