#pragma once
// False-alarm probability of the highest peak of a standard-normalized
// generalized periodogram under the null hypothesis of Gaussian noise
// (Baluev 2008, MNRAS 385, 1279; as astropy's LombScargle computes it).
#include <cstddef>
#include <string>
#include <vector>

namespace portasolve::lombscargle {

// bootstrap: from resampled periodograms (bootstrap.hpp), not from a formula.
enum class FapMethod { baluev, davies, naive, bootstrap };

const std::vector<std::string>& fap_method_names();  // "baluev", "davies" (its upper bound), "naive", "bootstrap"
FapMethod fap_method_from_name(const std::string& name);

// What the probability depends on besides the peak height.
struct FapContext {
  std::size_t samples = 0;       // N
  double maximum_frequency = 0;  // highest frequency searched, cycles per unit time
  double baseline = 0;           // max(t) - min(t)
  double time_variance = 0;      // variance of t, weighted by 1/dy^2 when given
};

FapContext fap_context(const std::vector<double>& t, const std::vector<double>& dy, double maximum_frequency);

// Probability that noise alone gives this power at one given frequency.
double fap_single(double power, std::size_t samples);
// Probability that noise gives a peak this high anywhere up to the maximum
// frequency: Baluev's alias-free bound, Davies' bound, or the naive
// estimate with maximum_frequency * baseline independent frequencies
// (OptionError for bootstrap: fap_bootstrap in bootstrap.hpp).
double false_alarm_probability(double power, const FapContext& context, FapMethod method);

}  // namespace portasolve::lombscargle
