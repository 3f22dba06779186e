#include "solvers/lombscargle/options.hpp"

#include <stdexcept>

#include "core/names.hpp"

namespace portasolve::lombscargle {

PORTASOLVE_NAMED_ENUM(Form, form_names, form_from_name, "Lomb-Scargle form", "classic", "generalized")
PORTASOLVE_NAMED_ENUM(Normalization, normalization_names, normalization_from_name, "Lomb-Scargle normalization",
                      "standard", "model", "log", "psd")
PORTASOLVE_NAMED_ENUM(Algorithm, algorithm_names, algorithm_from_name, "Lomb-Scargle algorithm", "auto", "direct",
                      "tiled", "recurrence", "nufft")

}  // namespace portasolve::lombscargle
