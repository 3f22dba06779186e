#pragma once
// portasolve's batched 1-D FFTs on Views (FFTW3 on host backends, cuFFT on
// CUDA; on HIP, which has no library here, and on request everywhere,
// portasolve's portable Kokkos kernels):
//
//   fft::Plan<T>(kind, length, batch[, planning[, threading[, implementation]]]):
//       kind complex_forward | complex_backward | real_forward | real_backward |
//       dst1 | dct1; implementation library (the default) | portable;
//       execute(in, out) on rows x length Views of the default memory space;
//       execute(exec, in, out) on the execution space instance exec (cuFFT on
//       its stream): ordered on exec; the caller fences its own earlier work
//       on other instances; on return it may still run on a GPU, so
//       exec.fence() before the host reads out (fft.hpp).
//   fft::library_name(): the library behind the plans.
#include "fft/fft.hpp"
