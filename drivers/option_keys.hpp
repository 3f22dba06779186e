#pragma once
// Solvers name the option at fault in an OptionError (its field in the
// solver's options struct); each driver lists once which config key sets each
// field, and the error becomes a ConfigError at that key's place in the file.
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "app/config.hpp"
#include "core/errors.hpp"

namespace portasolve::drivers {

// Field of a solver's options struct (as OptionError::option() names it) ->
// the config key that sets it.
using OptionKeys = std::vector<std::pair<std::string, std::string>>;

// The key `keys` binds to `option`; `fallback` for a field no key sets.
std::string key_of_option(const OptionKeys& keys, const std::string& option, const std::string& fallback);

// The ConfigError at the key bound to error.option() (else `fallback`), with
// the solver's message and what to do instead.
ConfigError config_error_for(const config::Config& config, const OptionError& error, const OptionKeys& keys,
                             const std::string& fallback, const std::string& allowed = {});

// Calls a solver as its errors reach the user: an OptionError is the
// ConfigError of config_error_for (`allowed`: per option, what to do instead),
// an std::invalid_argument the input's own (empty, too large): an InputError.
template <class Call>
decltype(auto) call_solver(const config::Config& config, const OptionKeys& keys, const std::string& fallback,
                           Call&& call, const OptionKeys& allowed = {}) {
  try {
    return call();
  } catch (const OptionError& error) {
    throw config_error_for(config, error, keys, fallback, key_of_option(allowed, error.option(), ""));
  } catch (const std::invalid_argument& error) {
    throw InputError(error.what());
  }
}

}  // namespace portasolve::drivers
