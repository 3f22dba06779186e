#pragma once
// Building a driver's schema: the commonest kinds of key in one call each.
#include <cstdint>
#include <string>
#include <vector>

#include "app/config.hpp"

namespace portasolve::drivers {

// The commonest keys in one call each, their default given: a choice among
// `names`, a boolean, an integer, a real (bounds and the rest chained after).
config::Field& add_choice(config::Schema& schema, const std::string& path, const std::string& description,
                          std::vector<std::string> names, const std::string& default_name);
config::Field& add_boolean(config::Schema& schema, const std::string& path, const std::string& description,
                           bool default_value);
config::Field& add_integer(config::Schema& schema, const std::string& path, const std::string& description,
                           std::int64_t default_value);
config::Field& add_real(config::Schema& schema, const std::string& path, const std::string& description,
                        double default_value);

}  // namespace portasolve::drivers
