#pragma once
// Enums whose values are listed, in order, by a table of names (the config
// choices): name -> value, throwing std::invalid_argument for unknown names.
#include <stdexcept>
#include <string>
#include <vector>

namespace portasolve {

template <class Enum>
Enum enum_from_name(const std::vector<std::string>& names, const std::string& name, const std::string& what) {
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return static_cast<Enum>(i);
  std::string allowed;
  for (const auto& n : names) allowed += (allowed.empty() ? "" : ", ") + n;
  throw std::invalid_argument("unknown " + what + " '" + name + "' (allowed: " + allowed + ")");
}

}  // namespace portasolve

// The three functions of an enum listed by a table of names, defined in one
// place (a solver's options .cpp, inside its namespace): NAMES() the table,
// in the enum's order; FROM_NAME(name) the value (std::invalid_argument
// saying "unknown WHAT" and the allowed names); name_of(value) its name.
#define PORTASOLVE_NAMED_ENUM(Enum, NAMES, FROM_NAME, WHAT, ...)                                              \
  const std::vector<std::string>& NAMES() {                                                                   \
    static const std::vector<std::string> names{__VA_ARGS__};                                                 \
    return names;                                                                                             \
  }                                                                                                           \
  Enum FROM_NAME(const std::string& name) { return ::portasolve::enum_from_name<Enum>(NAMES(), name, WHAT); } \
  std::string name_of(Enum value) { return NAMES()[static_cast<std::size_t>(value)]; }
