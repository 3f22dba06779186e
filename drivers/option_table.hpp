#pragma once
// One table per driver binds each field of a solver's options struct (as
// OptionError::option() names it) to the config key that sets it and to the
// way the field is read from that key: the driver reads its options and maps
// the solver's OptionErrors back to the file from the same table.
#include <functional>
#include <initializer_list>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "app/config.hpp"
#include "drivers/option_keys.hpp"

namespace portasolve::drivers {

template <class Options>
using OptionReader = std::function<void(const config::Config& config, const std::string& key, Options& options)>;

template <class Options>
struct OptionBinding {
  // The key is the table's prefix and the field's name.
  OptionBinding(std::string field_name, OptionReader<Options> reader)
      : field(std::move(field_name)), read(std::move(reader)) {}
  OptionBinding(std::string field_name, std::string config_key, OptionReader<Options> reader)
      : field(std::move(field_name)), key(std::move(config_key)), read(std::move(reader)) {}

  std::string field;
  std::string key;
  OptionReader<Options> read;  // empty: the driver reads the key elsewhere
};

template <class Options>
class OptionTable {
 public:
  // `prefix`: the group of the keys bindings name by their field alone.
  OptionTable(const std::string& prefix, std::initializer_list<OptionBinding<Options>> bindings) : bindings_(bindings) {
    for (auto& binding : bindings_) {
      if (binding.key.empty()) binding.key = prefix + binding.field;
      keys_.emplace_back(binding.field, binding.key);
    }
  }

  // Field -> key, for config_error_for and call_solver.
  const OptionKeys& keys() const { return keys_; }

  // Every field with a reader, read from its key in the table's order.
  Options read(const config::Config& config, Options options = {}) const {
    for (const auto& binding : bindings_)
      if (binding.read) binding.read(config, binding.key, options);
    return options;
  }

 private:
  std::vector<OptionBinding<Options>> bindings_;
  OptionKeys keys_;
};

// object.*first, or (object.*first).*second... for a field of a nested struct.
template <class Object, class Member, class... Rest>
auto& member_at(Object& object, Member member, Rest... rest) {
  if constexpr (sizeof...(Rest) == 0)
    return object.*member;
  else
    return member_at(object.*member, rest...);
}

// The config value at `key` as a Field: boolean, real or integer.
template <class Field>
Field config_value(const config::Config& config, const std::string& key) {
  if constexpr (std::is_same_v<Field, bool>)
    return config.boolean(key);
  else if constexpr (std::is_floating_point_v<Field>)
    return static_cast<Field>(config.real(key));
  else
    return static_cast<Field>(config.integer(key));
}

// Reads the boolean, real or integer field at the member path (&Options::a,
// or &Options::a, &A::b for options.a.b).
template <class Options, class First, class... Rest>
OptionReader<Options> value(First Options::*first, Rest... rest) {
  return [=](const config::Config& config, const std::string& key, Options& options) {
    auto& field = member_at(options, first, rest...);
    field = config_value<std::decay_t<decltype(field)>>(config, key);
  };
}

// Reads the enum field at the member path by its from_name function.
template <class FromName, class Options, class First, class... Rest>
OptionReader<Options> choice(FromName from_name, First Options::*first, Rest... rest) {
  return [=](const config::Config& config, const std::string& key, Options& options) {
    member_at(options, first, rest...) = from_name(config.string(key));
  };
}

}  // namespace portasolve::drivers
