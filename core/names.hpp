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
