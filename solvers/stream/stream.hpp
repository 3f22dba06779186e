#pragma once
// STREAM's four memory-bandwidth kernels (McCalpin) as Kokkos functors: the
// measured device bandwidth every portasolve benchmark states its floor in.
//   copy  c = a        scale b = s c        add c = a + b        triad a = b + s c
// plus deep_copy (c = a by Kokkos::deep_copy: cudaMemcpy / hipMemcpy / a
// parallel memcpy), the vendor's copy as the baseline in the same run.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/spaces.hpp"

namespace portasolve::stream {

enum class Operation { copy, scale, add, triad, deep_copy };

const std::vector<std::string>& operation_names();  // "copy", "scale", "add", "triad", "deep_copy"
Operation operation_from_name(const std::string& name);
// Bytes each operation reads plus writes over n elements of `element_bytes`.
std::size_t bytes_moved(Operation operation, std::size_t n, std::size_t element_bytes);

template <class T>
struct Arrays {
  View1D<T> a, b, c;
};

// Each thread moves one 16-byte pack of elements per array: with one 4-byte
// float per thread a GPU's memory system stays well below the vendor's copy
// (BENCHMARKS.md), with 16-byte accesses it reaches it.
constexpr std::size_t pack_bytes = 16;

template <class T>
struct alignas(pack_bytes) Pack {
  static_assert(pack_bytes % sizeof(T) == 0, "a pack holds whole elements");
  static constexpr int width = static_cast<int>(pack_bytes / sizeof(T));
  T lane[width];
};

template <class T>
struct StreamKernels {
  struct Copy {};
  struct Scale {};
  struct Add {};
  struct Triad {};
  using P = Pack<T>;

  View1D<T> a, b, c;
  T scalar;
  // Indices below `packs` are packs of P::width elements; the ones from
  // `packs` on, single elements of the tail (all of them when the arrays are not
  // aligned to a pack).
  std::int64_t packs;

  KOKKOS_INLINE_FUNCTION static P& pack(const View1D<T>& view, const std::int64_t i) {
    return reinterpret_cast<P*>(view.data())[i];
  }
  KOKKOS_INLINE_FUNCTION std::int64_t element(const std::int64_t i) const { return packs * P::width + (i - packs); }

  // out = op(in...) at index i: a pack, lane by lane, or one tail element.
  template <class Op, class... In>
  KOKKOS_INLINE_FUNCTION void elementwise(const std::int64_t i, const View1D<T>& out, const Op& op,
                                          const In&... in) const {
    if (i < packs) {
      const auto lane_by_lane = [&](const auto... x) {  // by value: each pack one 16-byte load
        P result;
        for (int l = 0; l < P::width; ++l) result.lane[l] = op(x.lane[l]...);
        return result;
      };
      pack(out, i) = lane_by_lane(pack(in, i)...);
    } else {
      out(element(i)) = op(in(element(i))...);
    }
  }

  KOKKOS_INLINE_FUNCTION void operator()(Copy, const std::int64_t i) const {
    const auto copy = [](const T x) { return x; };
    elementwise(i, c, copy, a);
  }
  KOKKOS_INLINE_FUNCTION void operator()(Scale, const std::int64_t i) const {
    const auto scale = [s = scalar](const T x) { return s * x; };
    elementwise(i, b, scale, c);
  }
  KOKKOS_INLINE_FUNCTION void operator()(Add, const std::int64_t i) const {
    const auto add = [](const T x, const T y) { return x + y; };
    elementwise(i, c, add, a, b);
  }
  KOKKOS_INLINE_FUNCTION void operator()(Triad, const std::int64_t i) const {
    const auto triad = [s = scalar](const T x, const T y) { return x + s * y; };
    elementwise(i, a, triad, b, c);
  }
};

template <class T>
Arrays<T> allocate(std::size_t n) {
  return Arrays<T>{View1D<T>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "stream_a"), n),
                   View1D<T>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "stream_b"), n),
                   View1D<T>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "stream_c"), n)};
}

// Whether all three arrays start on a pack boundary (allocate's do; a
// subview may not).
template <class T>
bool pack_aligned(const Arrays<T>& arrays) {
  const auto aligned = [](const View1D<T>& view) {
    return reinterpret_cast<std::uintptr_t>(view.data()) % pack_bytes == 0;
  };
  return aligned(arrays.a) && aligned(arrays.b) && aligned(arrays.c);
}

// One launch of `operation`; asynchronous like every Kokkos launch.
template <class T>
void apply(Operation operation, const Arrays<T>& arrays, T scalar) {
  using Kernels = StreamKernels<T>;
  const auto n = static_cast<std::int64_t>(arrays.a.extent(0));
  const std::int64_t packs = pack_aligned(arrays) ? n / Pack<T>::width : 0;
  const Kernels kernels{arrays.a, arrays.b, arrays.c, scalar, packs};
  const std::int64_t indices = packs + (n - packs * Pack<T>::width);
  const auto launch = [&](auto tag, const char* name) {
    using Tag = decltype(tag);
    Kokkos::parallel_for(name, Kokkos::RangePolicy<ExecSpace, Tag, Kokkos::IndexType<std::int64_t>>(0, indices),
                         kernels);
  };
  switch (operation) {
    case Operation::copy:
      launch(typename Kernels::Copy{}, "stream_copy");
      break;
    case Operation::scale:
      launch(typename Kernels::Scale{}, "stream_scale");
      break;
    case Operation::add:
      launch(typename Kernels::Add{}, "stream_add");
      break;
    case Operation::triad:
      launch(typename Kernels::Triad{}, "stream_triad");
      break;
    case Operation::deep_copy:
      Kokkos::deep_copy(ExecSpace(), arrays.c, arrays.a);
      break;
  }
}

}  // namespace portasolve::stream
