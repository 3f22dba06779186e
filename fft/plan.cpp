#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

#include "fft/detail/engine.hpp"
#include "fft/fft.hpp"

namespace portasolve::fft {

const std::vector<std::string>& kind_names() {
  static const std::vector<std::string> names{
      "complex_forward", "complex_backward", "real_forward", "real_backward", "dst1", "dct1"};
  return names;
}
std::string name_of(Kind kind) { return kind_names()[static_cast<std::size_t>(kind)]; }

const char* library_name() { return detail::library().name; }

namespace {

bool is_complex_to_complex(Kind kind) { return kind == Kind::complex_forward || kind == Kind::complex_backward; }
bool is_real_to_real(Kind kind) { return kind == Kind::dst1 || kind == Kind::dct1; }

std::int64_t half_spectrum(std::int64_t length) { return length / 2 + 1; }

// The libraries count in int; DST-I and DCT-I may run at twice the length.
bool within_int_range(std::int64_t length, std::int64_t batch) {
  const std::int64_t int_range = std::numeric_limits<int>::max();
  return length < int_range / 2 - 2 && batch * (2 * length + 4) <= int_range;
}

// Whether size's only prime factors are 2, 3, 5 and 7.
bool seven_smooth(std::int64_t size) {
  for (const std::int64_t p : {2, 3, 5, 7})
    while (size % p == 0) size /= p;
  return size == 1;
}

// The least FFT size >= size that `implementation` runs directly.
std::int64_t next_fast_size(std::int64_t size, Implementation implementation) {
  if (implementation == Implementation::portable || !library_available) {
    std::int64_t power = 1;
    while (power < size) power *= 2;
    return power;
  }
  while (!seven_smooth(size)) ++size;
  return size;
}

void require(bool condition, const std::string& message) {
  if (!condition) throw std::invalid_argument("FFT plan: " + message);
}

template <class In, class Out>
void check_views(Kind kind, bool kind_fits, std::int64_t length, std::int64_t batch, Threading threading, const In& in,
                 const Out& out) {
  require(kind_fits, "a " + name_of(kind) + " plan executed on Views of another kind's value types");
  const auto extents = [](const auto& view) {
    return std::to_string(view.extent(0)) + "x" + std::to_string(view.extent(1));
  };
  const std::int64_t in_cols = input_length(kind, length), out_cols = output_length(kind, length);
  require(std::int64_t(in.extent(0)) == batch && std::int64_t(in.extent(1)) == in_cols,
          "input is " + extents(in) + ", the " + name_of(kind) + " plan needs " + std::to_string(batch) + "x" +
              std::to_string(in_cols));
  require(std::int64_t(out.extent(0)) == batch && std::int64_t(out.extent(1)) == out_cols,
          "output is " + extents(out) + ", the " + name_of(kind) + " plan needs " + std::to_string(batch) + "x" +
              std::to_string(out_cols));
  require(in.span_is_contiguous() && out.span_is_contiguous(), "input and output must be contiguous Views");
  const auto* in_begin = reinterpret_cast<const char*>(in.data());
  const auto* out_begin = reinterpret_cast<const char*>(out.data());
  const bool apart = in_begin + in.span() * sizeof(typename In::value_type) <= out_begin ||
                     out_begin + out.span() * sizeof(typename Out::value_type) <= in_begin;
  require(apart, "input and output overlap; transforms run out of place");
  const auto aligned = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % caller_alignment == 0; };
  require(
      threading == Threading::library || (aligned(in_begin) && aligned(out_begin)),
      "a plan for the calling thread needs input and output aligned to " + std::to_string(caller_alignment) + " bytes");
}

}  // namespace

std::int64_t input_length(Kind kind, std::int64_t length) {
  return kind == Kind::real_backward ? half_spectrum(length) : length;
}
std::int64_t output_length(Kind kind, std::int64_t length) {
  return kind == Kind::real_forward ? half_spectrum(length) : length;
}

std::int64_t fast_length(Kind kind, std::int64_t length, std::int64_t batch, Implementation implementation) {
  if (length < 1 || (kind == Kind::dct1 && length < 2)) return length;
  // A DST-I of n points is an FFT of 2(n+1), a DCT-I one of 2(n-1); 2 is a
  // fast factor for both implementations.
  std::int64_t fast = 0;
  if (kind == Kind::dst1)
    fast = next_fast_size(length + 1, implementation) - 1;
  else if (kind == Kind::dct1)
    fast = next_fast_size(length - 1, implementation) + 1;
  else
    fast = next_fast_size(length, implementation);
  return within_int_range(fast, batch) ? fast : length;
}

template <class T>
Plan<T>::Plan(Kind kind, std::int64_t length, std::int64_t batch, Planning planning, Threading threading,
              Implementation implementation)
    : kind_(kind), length_(length), batch_(batch), threading_(threading) {
  require(length >= 1, "length must be >= 1, not " + std::to_string(length));
  require(kind != Kind::dct1 || length >= 2, "dct1 length must be >= 2, not " + std::to_string(length));
  require(batch >= 1, "batch must be >= 1, not " + std::to_string(batch));
  require(within_int_range(length, batch), "length x batch " + std::to_string(length) + " x " + std::to_string(batch) +
                                               " exceeds the libraries' int range");
  engine_ = detail::make_engine<T>(kind, length, batch, planning, threading, implementation);
}

template <class T>
Plan<T>::~Plan() = default;
template <class T>
Plan<T>::Plan(Plan&&) noexcept = default;
template <class T>
Plan<T>& Plan<T>::operator=(Plan&&) noexcept = default;

template <class T>
void Plan<T>::execute(const ExecSpace& exec, const View2D<const Complex>& in, const View2D<Complex>& out) const {
  check_views(kind_, is_complex_to_complex(kind_), length_, batch_, threading_, in, out);
  engine_->run(exec, in.data(), out.data());
}
template <class T>
void Plan<T>::execute(const ExecSpace& exec, const View2D<const T>& in, const View2D<Complex>& out) const {
  check_views(kind_, kind_ == Kind::real_forward, length_, batch_, threading_, in, out);
  engine_->run(exec, in.data(), out.data());
}
template <class T>
void Plan<T>::execute(const ExecSpace& exec, const View2D<const Complex>& in, const View2D<T>& out) const {
  check_views(kind_, kind_ == Kind::real_backward, length_, batch_, threading_, in, out);
  engine_->run(exec, in.data(), out.data());
}
template <class T>
void Plan<T>::execute(const ExecSpace& exec, const View2D<const T>& in, const View2D<T>& out) const {
  check_views(kind_, is_real_to_real(kind_), length_, batch_, threading_, in, out);
  engine_->run(exec, in.data(), out.data());
}

template class Plan<float>;
template class Plan<double>;

}  // namespace portasolve::fft
