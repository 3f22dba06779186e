#include "core/errors.hpp"

#include <sstream>

namespace portasolve {

namespace {

std::string format_config_error(const SourceLocation& where, const std::string& key_path, const std::string& problem,
                                const std::string& allowed) {
  std::ostringstream out;
  out << (where.file.empty() ? std::string("<config>") : where.file);
  if (where.line > 0) {
    out << ':' << where.line;
    if (where.column > 0) out << ':' << where.column;
  }
  out << ": ";
  if (!key_path.empty()) out << "key '" << key_path << "': ";
  out << problem;
  if (!allowed.empty()) out << " (allowed: " << allowed << ')';
  return out.str();
}

}  // namespace

ConfigError::ConfigError(SourceLocation where, std::string key_path, std::string problem, std::string allowed)
    : Error(format_config_error(where, key_path, problem, allowed)),
      where_(std::move(where)),
      key_path_(std::move(key_path)) {}

}  // namespace portasolve
