#pragma once
// What a smoothing run computes. Every pass replaces each pixel by the
// weighted mean of its (2r+1)x(2r+1) neighbourhood, out[i,j] =
// sum_{a,b} w[a,b] in[i+a, j+b] / sum w, the image extended past its edges as
// the border mode says (SciPy ndimage's names and meanings, plus `keep`).
#include <cstdint>
#include <string>
#include <vector>

namespace portasolve::smoothing {

// box: all (2r+1)^2 weights equal. weighted: any odd-sized square matrix with a
// positive sum. gaussian: exp(-x^2 / (2 sigma^2)) per axis, truncated at
// radius round(truncate * sigma) (SciPy's rule), applied as two 1-D passes.
enum class KernelKind { box, weighted, gaussian };

// keep: pixels within r of an edge are copied unchanged (the Numba example).
// For a row a b c d, what lies past its ends:
// nearest  a a a | a b c d | d d d     reflect  c b a | a b c d | d c b
// mirror   d c b | a b c d | c b a     wrap     b c d | a b c d | a b c
// constant k k k | a b c d | k k k  (k = constant_value)
enum class BorderMode { keep, nearest, reflect, mirror, wrap, constant };

// Integer images: sums are exact 64-bit integers and the one division per
// pixel rounds down (floor, Python's //) or to nearest, halves up (nearest).
enum class Rounding { floor, nearest };

// auto: two 1-D passes for gaussian and for boxes of radius >= 3, one 2-D pass
// otherwise. yes is refused for weighted matrices.
enum class Separable { automatic, yes, no };

// Fused launches, up to 8 passes per launch for 2-D windows of radius 1:
// register bands (register_bands.hpp; not with border wrap) or streamed bands
// (streaming.hpp); tiles (fused.hpp) for any window. auto takes the first of
// these that applies.
enum class FusedKernel { automatic, streamed, tiles, registers };

// Separable windows, one pass per launch: tiles runs both 1-D passes in one
// launch through team scratch (separable_tiles.hpp); columns does too, a
// thread per column walking down a strip with the sums along columns in
// registers (separable_columns.hpp; radius up to 12); two_launches runs a
// launch per axis through a full-size image of partial sums. All give the
// same bits. auto: on GPUs columns (radius up to 12); on hosts, and beyond,
// tiles where a tile of 8 rows fits the team scratch (see smooth.cpp), else
// two launches.
enum class SeparableKernel { automatic, tiles, two_launches, columns };

struct SmoothingOptions {
  KernelKind kernel = KernelKind::box;
  int radius = 1;                  // box
  std::vector<double> weights;     // weighted: row-major, size x size
  int weights_size = 0;            // weighted: the matrix's side (odd)
  double sigma = 1, truncate = 4;  // gaussian
  BorderMode border = BorderMode::reflect;
  double constant_value = 0;  // border: constant
  Rounding rounding = Rounding::nearest;
  Separable separable = Separable::automatic;
  std::int64_t passes = 1;
  // Passes fused in one launch (temporal blocking in team scratch); 1 launches
  // every pass on its own; 0 chooses (GPUs: 8 for 3x3 windows, else 1; see smooth.cpp).
  int passes_per_launch = 0;
  FusedKernel fused_kernel = FusedKernel::automatic;
  SeparableKernel separable_kernel = SeparableKernel::automatic;
  // Fused launches and separable tiles: the pixels each team writes
  // (streamed: rows of a strip, columns of a band); 0 = automatic (fused
  // tiles: the largest square that fits the backend's team scratch;
  // separable tiles: 64 columns, as many rows as fit).
  int tile_rows = 0, tile_cols = 0;
  // Single 2-D passes of radius 1 on GPUs: rows each thread walks down its
  // column (1: a thread per pixel); 0 = 16. Separable columns: output rows
  // of a team's strip; 0 = 64 (tile_cols: its columns, one a thread; 0 = 128
  // or the backend's largest team).
  int strip_rows = 0;
};

const std::vector<std::string>& kernel_names();            // box, weighted, gaussian
const std::vector<std::string>& border_names();            // keep, nearest, reflect, mirror, wrap, constant
const std::vector<std::string>& rounding_names();          // floor, nearest
const std::vector<std::string>& separable_names();         // auto, yes, no
const std::vector<std::string>& fused_kernel_names();      // auto, streamed, tiles, registers
const std::vector<std::string>& separable_kernel_names();  // auto, tiles, two_launches, columns
KernelKind kernel_from_name(const std::string& name);
BorderMode border_from_name(const std::string& name);
Rounding rounding_from_name(const std::string& name);
Separable separable_from_name(const std::string& name);
FusedKernel fused_kernel_from_name(const std::string& name);
SeparableKernel separable_kernel_from_name(const std::string& name);
std::string name_of(KernelKind kernel);
std::string name_of(BorderMode border);
std::string name_of(Rounding rounding);
std::string name_of(FusedKernel kernel);
std::string name_of(SeparableKernel kernel);
std::string name_of(Separable separable);

// The kernel's radius r (box: radius; weighted: (size-1)/2; gaussian:
// round(truncate * sigma)).
int kernel_radius(const SmoothingOptions& options);

// Throws std::invalid_argument naming the first option out of range, or a
// kernel wider or taller than a rows x cols image.
void check(const SmoothingOptions& options, std::int64_t rows, std::int64_t cols);

}  // namespace portasolve::smoothing
