#pragma once
// What a periodogram computes and how.
#include <string>
#include <vector>

namespace portasolve::lombscargle {

// classic: scipy.signal.lombscargle (unnormalised, no mean fit, angular
// frequencies in its API). generalized: astropy's LombScargle with nterms=1
// (Zechmeister & Kuerster floating mean, optional uncertainties).
enum class Form { classic, generalized };

// astropy's normalizations of the generalized form.
enum class Normalization { standard, model, log, psd };

// direct: cuSignal's scheme, one thread per frequency, one sin/cos per
// (sample, frequency). tiled: the same with samples staged through team
// scratch. recurrence: uniform grids only; sin/cos of successive frequencies
// by angle addition, re-seeded exactly every `recurrence_steps` frequencies.
// nufft: uniform grids only; the sums as non-uniform FFTs, O(N w + M log M)
// per series instead of O(N M), to a relative tolerance (nufft.hpp).
enum class Algorithm { automatic, direct, tiled, recurrence, nufft };

struct Options {
  Form form = Form::generalized;
  // classic (SciPy)
  bool precenter = false;  // subtract the mean of y first
  bool normalize = false;  // multiply by 2 / sum(y^2) of the original y
  // SciPy >= 1.15: fit an offset with the sinusoid at every frequency. With
  // it, or with per-sample weights (Series::weights), the whole batch takes
  // SciPy 1.15's weighted formulas (weights scaled to sum 1; normalize
  // divides by the weighted sum of squares of the centred y, less the
  // squared weighted mean with floating_mean).
  bool floating_mean = false;
  // generalized (astropy)
  bool center_data = true;
  bool fit_mean = true;
  Normalization normalization = Normalization::standard;
  // astropy's nterms (generalized form): harmonics 1..nterms of each
  // frequency fitted together, power from the normal equations as astropy's
  // method="chi2" (multiterm.hpp); 1 is the classic sinusoid. nterms > 1 runs
  // the direct or, on uniform grids, the NUFFT algorithm (its harmonic sums
  // as NUFFTs at k f, then the same solve), up to max_nterms.
  int nterms = 1;
  Algorithm algorithm = Algorithm::automatic;
  // nufft: error relative to the sums' scale (sum |w y|, sum w); 0 = 1e-12 in
  // double, 1e-8 in float. Grid limit: longest FFT (power of two, >= 64; 0 =
  // the longest two team-scratch levels reach); longer grids are segmented.
  double nufft_tolerance = 0;
  long long nufft_grid_limit = 0;
};

// Largest nterms: (2 nterms + 1)^2 normal equations stay a small solve in
// registers per (series, frequency).
constexpr int max_nterms = 6;

// Whether `limit` is an allowed nufft_grid_limit: 0 or a power of two >= 64.
inline bool valid_nufft_grid_limit(const long long limit) {
  return limit == 0 || (limit >= 64 && (limit & (limit - 1)) == 0);
}

const std::vector<std::string>& form_names();           // "classic", "generalized"
const std::vector<std::string>& normalization_names();  // "standard", "model", "log", "psd"
const std::vector<std::string>& algorithm_names();      // "auto", "direct", "tiled", "recurrence", "nufft"
Form form_from_name(const std::string& name);
Normalization normalization_from_name(const std::string& name);
Algorithm algorithm_from_name(const std::string& name);
std::string name_of(Algorithm algorithm);
std::string name_of(Form form);
std::string name_of(Normalization normalization);

}  // namespace portasolve::lombscargle
