#pragma once
// What the NUFFT algorithm keeps between launches (built by the first one)
// and its launch; internal to the solver's translation units.
#include <cstdint>
#include <memory>
#include <vector>

#include "fft/fft.hpp"
#include "solvers/lombscargle/detail/nufft.hpp"
#include "solvers/lombscargle/grid.hpp"
#include "solvers/lombscargle/options.hpp"

namespace portasolve::lombscargle::detail {

// A batch's sample times on the host, series s at [offsets(s), offsets(s + 1)).
template <class T>
struct NufftHostSamples {
  Kokkos::View<const double*, Kokkos::LayoutRight, HostSpace> t;
  Kokkos::View<const std::int64_t*, Kokkos::LayoutRight, HostSpace> offsets;
};

// The host's arrays of a sort (positions, order), kept by the plan: a
// survey chunk's are ~100 MB, and fresh ones were zeroed and faulted in by
// one thread at every sort.
struct NufftSortScratch {
  std::vector<double> position, sorted_position;
  std::vector<std::int64_t> order;
};

template <class T>
struct NufftPlan {
  NufftLayout layout;
  SpreadingKernel kernel;
  SortedSamples<T> once, twice;
  Kokkos::View<const std::int64_t*, Kokkos::LayoutRight, MemSpace> order;  // the last sort's, uploaded
  NufftSortScratch sort_scratch;
  Kokkos::View<int*, Kokkos::LayoutRight, MemSpace> series_of;  // per sample
  std::vector<std::int64_t> offsets;                            // on the host
  Kokkos::View<Complex<T>**, Kokkos::LayoutRight, MemSpace> c1, c0, c2;
  // Multi-term models (nterms > 1) instead of once, twice, c1, c0, c2: per
  // harmonic k = 1 .. 2 nterms (at k - 1) the samples sorted by n frac(k df
  // t) and their coefficients (harmonic_wy for k <= nterms only).
  std::vector<SortedSamples<T>> harmonic_samples;
  std::vector<Kokkos::View<Complex<T>**, Kokkos::LayoutRight, MemSpace>> harmonic_w, harmonic_wy;
  ComplexRows<T> grid;  // (series in chunk x segment x sum, n)
  Kokkos::View<T*, Kokkos::LayoutRight, MemSpace> correction;
  Kokkos::View<Complex<T>*, Kokkos::LayoutRight, MemSpace> twiddle;
  // Where the FFT library serves this backend (fft::library_available): its
  // plan over all of `grid`'s rows and the spectra it writes, in natural
  // order; else the own transform (fft.hpp) in place, in `twiddle`'s order.
  std::shared_ptr<const fft::Plan<T>> library_fft;
  ComplexRows<T> spectra;
  SumRows rows;
  std::int64_t chunk_series;  // series whose grids are held at once

  // Host backends with the FFT library, grids of up to a few MiB per series
  // (nufft.cpp): each host thread takes whole series, one at a time, through
  // its own grid, spectra and one-threaded plan (cache-sized, so no pass over
  // a chunk's grids in memory), spreading by scatter with no sort. Then the
  // fields above from `once` to `spectra` stay empty.
  struct HostWorker {
    ComplexRows<T> grid, spectra;  // (segment x sum, n)
    std::shared_ptr<const fft::Plan<T>> fft;
  };
  std::vector<HostWorker> host_workers;
  // The kernel's values at the window's points as polynomials in the
  // position's fraction (nufft.cpp, host_kernel_polynomials): coefficient k
  // of point i at [k * 16 + i]; empty where they miss the tolerance (the
  // kernel is then evaluated exactly).
  std::vector<T> kernel_polynomials;
  int kernel_degree = -1;
};

// Sorts the samples by grid position, tabulates the correction and the
// twiddles, and allocates the grids; every copy and kernel on exec, which it
// fences (it reads the samples back and frees its temporaries).
template <class T>
NufftPlan<T> make_nufft_plan(const ExecSpace& exec, const DeviceData<T>& data, const FrequencyGrid& grid,
                             const Options& options);

// New series for a plan made by make_nufft_plan on the same grid and
// options: `data` on the device (uploads queued on exec), their times and
// offsets also in `host`. Where every series keeps its number of samples the
// plan's sorted samples are made again into their own arrays on exec (and
// fenced) and the rest of the plan (grids, FFT plan, correction) is kept;
// else false, and the caller makes a new plan. The plan's earlier work must
// be done.
template <class T>
bool refresh_nufft_plan(const ExecSpace& exec, NufftPlan<T>& plan, const DeviceData<T>& data,
                        const NufftHostSamples<T>& host, double step);

// Every series' power on the plan's grid, launched on exec (the host path,
// NufftPlan::host_workers, runs to its end before returning).
template <class T>
void run_nufft(const ExecSpace& exec, NufftPlan<T>& plan, const DeviceData<T>& data, const Options& options);

}  // namespace portasolve::lombscargle::detail
