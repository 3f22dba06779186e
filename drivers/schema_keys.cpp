#include "drivers/schema_keys.hpp"

#include <utility>

namespace portasolve::drivers {

config::Field& add_choice(config::Schema& schema, const std::string& path, const std::string& description,
                          std::vector<std::string> names, const std::string& default_name) {
  return schema.add(path, config::Kind::Choice, description).choices(std::move(names)).default_value(default_name);
}

config::Field& add_boolean(config::Schema& schema, const std::string& path, const std::string& description,
                           bool default_value) {
  return schema.add(path, config::Kind::Boolean, description).default_value(default_value);
}

config::Field& add_integer(config::Schema& schema, const std::string& path, const std::string& description,
                           std::int64_t default_value) {
  return schema.add(path, config::Kind::Integer, description).default_value(default_value);
}

config::Field& add_real(config::Schema& schema, const std::string& path, const std::string& description,
                        double default_value) {
  return schema.add(path, config::Kind::Real, description).default_value(default_value);
}

}  // namespace portasolve::drivers
