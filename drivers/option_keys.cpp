#include "drivers/option_keys.hpp"

namespace portasolve::drivers {

std::string key_of_option(const OptionKeys& keys, const std::string& option, const std::string& fallback) {
  for (const auto& [field, key] : keys)
    if (field == option) return key;
  return fallback;
}

ConfigError config_error_for(const config::Config& config, const OptionError& error, const OptionKeys& keys,
                             const std::string& fallback, const std::string& allowed) {
  const std::string key = key_of_option(keys, error.option(), fallback);
  return ConfigError(config.where(key), key, error.what(), allowed);
}

}  // namespace portasolve::drivers
