#include "solvers/lombscargle/options.hpp"

#include <stdexcept>

#include "core/names.hpp"

namespace portasolve::lombscargle {

const std::vector<std::string>& form_names() {
  static const std::vector<std::string> names{"classic", "generalized"};
  return names;
}
const std::vector<std::string>& normalization_names() {
  static const std::vector<std::string> names{"standard", "model", "log", "psd"};
  return names;
}
const std::vector<std::string>& algorithm_names() {
  static const std::vector<std::string> names{"auto", "direct", "tiled", "recurrence", "nufft"};
  return names;
}
Form form_from_name(const std::string& name) { return enum_from_name<Form>(form_names(), name, "Lomb-Scargle form"); }
Normalization normalization_from_name(const std::string& name) {
  return enum_from_name<Normalization>(normalization_names(), name, "Lomb-Scargle normalization");
}
Algorithm algorithm_from_name(const std::string& name) {
  return enum_from_name<Algorithm>(algorithm_names(), name, "Lomb-Scargle algorithm");
}
std::string name_of(Algorithm algorithm) { return algorithm_names()[static_cast<std::size_t>(algorithm)]; }

}  // namespace portasolve::lombscargle
