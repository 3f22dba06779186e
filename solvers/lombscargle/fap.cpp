#include "solvers/lombscargle/fap.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/errors.hpp"
#include "core/math.hpp"

namespace portasolve::lombscargle {

const std::vector<std::string>& fap_method_names() {
  static const std::vector<std::string> names{"baluev", "davies", "naive", "bootstrap"};
  return names;
}

FapMethod fap_method_from_name(const std::string& name) {
  if (name == "baluev") return FapMethod::baluev;
  if (name == "naive") return FapMethod::naive;
  if (name == "davies") return FapMethod::davies;
  if (name == "bootstrap") return FapMethod::bootstrap;
  throw std::invalid_argument("unknown false-alarm method '" + name + "'");
}

FapContext fap_context(const std::vector<double>& t, const std::vector<double>& dy, double maximum_frequency) {
  if (t.size() < 4) throw InputError("false-alarm probability: needs at least 4 samples");
  FapContext context;
  context.samples = t.size();
  context.maximum_frequency = maximum_frequency;
  const auto [lo, hi] = std::minmax_element(t.begin(), t.end());
  context.baseline = *hi - *lo;
  double weight_sum = 0, mean = 0, mean_square = 0;
  for (std::size_t j = 0; j < t.size(); ++j) {
    const double w = dy.empty() ? 1.0 : 1.0 / (dy[j] * dy[j]);
    weight_sum += w;
    mean += w * t[j];
    mean_square += w * t[j] * t[j];
  }
  mean /= weight_sum;
  context.time_variance = mean_square / weight_sum - mean * mean;
  return context;
}

namespace {

// sqrt(2/N) Gamma(N/2) / Gamma((N-1)/2), close to 1 - 0.75/N.
double gamma_factor(double n) { return std::sqrt(2 / n) * std::exp(std::lgamma(n / 2) - std::lgamma((n - 1) / 2)); }

// Baluev's tau for the standard normalization (two model parameters beyond
// the one of the null hypothesis).
double tau_davies(double power, const FapContext& context) {
  const double n_null = static_cast<double>(context.samples) - 1;
  const double n_model = static_cast<double>(context.samples) - 3;
  const double effective_width = context.maximum_frequency * std::sqrt(4 * math::pi<double>() * context.time_variance);
  return gamma_factor(n_null) * effective_width * std::pow(1 - power, 0.5 * (n_model - 1)) *
         std::sqrt(0.5 * n_null * power);
}

}  // namespace

double fap_single(double power, std::size_t samples) {
  return std::pow(1 - power, 0.5 * (static_cast<double>(samples) - 3));
}

double false_alarm_probability(double power, const FapContext& context, FapMethod method) {
  if (!(power >= 0 && power <= 1))
    throw InputError("false-alarm probability: standard power must be in [0, 1], got " + std::to_string(power));
  if (method == FapMethod::bootstrap)
    throw OptionError("method",
                      "the bootstrap false-alarm probability comes from resampled periodograms "
                      "(bootstrap_maxima, fap_bootstrap), not from a formula");
  const double single = fap_single(power, context.samples);
  if (method == FapMethod::naive) {
    const double independent = context.maximum_frequency * context.baseline;
    return -std::expm1(independent * std::log1p(-single));  // 1 - (1 - single)^independent
  }
  const double tau = tau_davies(power, context);
  // Davies' upper bound (Baluev 2008, eq. 5): may exceed 1 for weak peaks, as astropy's does.
  if (method == FapMethod::davies) return single + tau;
  return -std::expm1(-tau) + single * std::exp(-tau);  // 1 - (1 - single) e^-tau
}

}  // namespace portasolve::lombscargle
