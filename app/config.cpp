#include "app/config.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

namespace portasolve::config {

namespace {

const char* kind_name(Kind kind) {
  // In Kind's order.
  static const char* const names[] = {
      "true or false", "an integer",        "a number",           "a string",
      "one of",        "a list of numbers", "a list of integers", "a list, each one of"};
  static_assert(std::size(names) == static_cast<std::size_t>(Kind::ChoiceList) + 1);
  return names[static_cast<std::size_t>(kind)];
}

std::string format_bound(double value) {
  char text[32];
  for (int digits = 6; digits <= 17; ++digits) {
    std::snprintf(text, sizeof text, "%.*g", digits, value);
    if (std::strtod(text, nullptr) == value) break;
  }
  return text;
}

std::string join(const std::vector<std::string>& items, const std::string& separator = ", ") {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : separator) + item;
  return out;
}

std::string describe(const YAML::Node& node) {
  if (node.IsScalar()) return "'" + node.Scalar() + "'";
  if (node.IsSequence()) return "a list";
  if (node.IsMap()) return "a group of keys";
  return "no value";
}

SourceLocation mark_of(const std::string& file, const YAML::Mark& mark) {
  if (mark.is_null()) return SourceLocation{file, 0, 0};
  return SourceLocation{file, mark.line + 1, mark.column + 1};
}

std::optional<double> parse_real(const std::string& text) {
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size()) return std::nullopt;
  return value;
}

std::optional<std::int64_t> parse_integer(const std::string& text) {
  // "1e6" is a fine way to write a million; "1.5" is not an integer.
  const auto value = parse_real(text);
  if (!value || !std::isfinite(*value) || std::floor(*value) != *value || std::fabs(*value) > 9007199254740992.0)
    return std::nullopt;
  return static_cast<std::int64_t>(*value);
}

bool is_bool_text(const std::string& text, bool& value) {
  std::string lower = text;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  if (lower == "true" || lower == "yes" || lower == "on") return value = true, true;
  if (lower == "false" || lower == "no" || lower == "off") return value = false, true;
  return false;
}

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t substitution = diagonal + (std::tolower(static_cast<unsigned char>(a[i - 1])) !=
                                                   std::tolower(static_cast<unsigned char>(b[j - 1])));
      diagonal = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, substitution});
    }
  }
  return row[b.size()];
}

// Splits "a.b=value" into path and value text.
std::pair<std::string, std::string> split_assignment(const std::string& assignment) {
  const auto equals = assignment.find('=');
  if (equals == std::string::npos || equals == 0)
    throw ConfigError(SourceLocation{"--set " + assignment}, "", "expected KEY.PATH=VALUE", "e.g. --set run.repeats=5");
  return {assignment.substr(0, equals), assignment.substr(equals + 1)};
}

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> parts;
  std::stringstream in(path);
  std::string part;
  while (std::getline(in, part, '.')) parts.push_back(part);
  return parts;
}

YAML::Node parse_override_value(const std::string& assignment, const std::string& key, const std::string& text) {
  try {
    return YAML::Load(text);
  } catch (const YAML::Exception& error) {
    throw ConfigError(SourceLocation{"--set " + assignment}, key, "malformed value: " + error.msg);
  }
}

}  // namespace

std::string closest_match(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_distance = std::max<std::size_t>(1, (word.size() + 2) / 4) + 1;
  for (const auto& candidate : candidates) {
    const std::size_t distance = edit_distance(word, candidate);
    if (distance < best_distance) best_distance = distance, best = candidate;
  }
  return best;
}

// ---------------------------------------------------------------- Field

Field::Field(std::string path, Kind kind, std::string description)
    : path_(std::move(path)), kind_(kind), description_(std::move(description)) {}

Field& Field::optional() { return optional_ = true, *this; }
Field& Field::at_least(double bound) { return min_ = bound, min_exclusive_ = false, *this; }
Field& Field::greater_than(double bound) { return min_ = bound, min_exclusive_ = true, *this; }
Field& Field::at_most(double bound) { return max_ = bound, max_exclusive_ = false, *this; }
Field& Field::less_than(double bound) { return max_ = bound, max_exclusive_ = true, *this; }
Field& Field::choices(std::vector<std::string> allowed) { return choices_ = std::move(allowed), *this; }
Field& Field::min_items(std::size_t count) { return min_items_ = count, *this; }

std::string Field::allowed() const {
  std::string text = kind_name(kind_);
  if (kind_ == Kind::Choice || kind_ == Kind::ChoiceList) text += ": " + join(choices_);
  std::vector<std::string> limits;
  if (min_) limits.push_back((min_exclusive_ ? "> " : ">= ") + format_bound(*min_));
  if (max_) limits.push_back((max_exclusive_ ? "< " : "<= ") + format_bound(*max_));
  if (!limits.empty()) {
    const bool list = kind_ == Kind::RealList || kind_ == Kind::IntegerList;
    text += (list ? ", each " : " ") + join(limits, " and ");
  }
  if (min_items_ > 0) text += ", at least " + std::to_string(min_items_) + " item" + (min_items_ > 1 ? "s" : "");
  return text;
}

void Field::check_number(double value, const SourceLocation& where, const std::string& text) const {
  const bool below = min_ && (min_exclusive_ ? !(value > *min_) : !(value >= *min_));
  const bool above = max_ && (max_exclusive_ ? !(value < *max_) : !(value <= *max_));
  if (below || above) throw ConfigError(where, path_, "out of range: " + text, allowed());
}

void Field::check_choice(const std::string& value, const SourceLocation& where) const {
  if (std::find(choices_.begin(), choices_.end(), value) != choices_.end()) return;
  const std::string suggestion = closest_match(value, choices_);
  throw ConfigError(where, path_,
                    "got '" + value + "'" + (suggestion.empty() ? "" : " (did you mean '" + suggestion + "'?)"),
                    allowed());
}

YAML::Node Field::validate(const YAML::Node& value, const SourceLocation& where) const {
  const auto scalar = [&](const YAML::Node& item, Kind as) -> YAML::Node {
    if (!item.IsScalar())
      throw ConfigError(where, path_, "expected " + std::string(kind_name(as)) + ", got " + describe(item), allowed());
    const std::string& text = item.Scalar();
    switch (as) {
      case Kind::Boolean: {
        bool flag = false;
        if (!is_bool_text(text, flag))
          throw ConfigError(where, path_, "expected true or false, got '" + text + "'", allowed());
        return YAML::Node(flag);
      }
      case Kind::Integer: {
        const auto number = parse_integer(text);
        if (!number) throw ConfigError(where, path_, "expected an integer, got '" + text + "'", allowed());
        check_number(static_cast<double>(*number), where, text);
        return YAML::Node(*number);
      }
      case Kind::Real: {
        const auto number = parse_real(text);
        if (!number || !std::isfinite(*number))
          throw ConfigError(where, path_, "expected a finite number, got '" + text + "'", allowed());
        check_number(*number, where, text);
        return YAML::Node(format_bound(*number));
      }
      case Kind::String:
        return YAML::Node(text);
      case Kind::Choice:
        check_choice(text, where);
        return YAML::Node(text);
      default:
        break;
    }
    throw std::logic_error("config: list kind used as scalar");
  };

  if (!value.IsDefined() || value.IsNull()) throw ConfigError(where, path_, "no value", allowed());
  switch (kind_) {
    case Kind::RealList:
    case Kind::IntegerList:
    case Kind::ChoiceList: {
      if (!value.IsSequence()) throw ConfigError(where, path_, "expected a list, got " + describe(value), allowed());
      const Kind item_kind = kind_ == Kind::RealList      ? Kind::Real
                             : kind_ == Kind::IntegerList ? Kind::Integer
                                                          : Kind::Choice;
      YAML::Node items(YAML::NodeType::Sequence);
      // A list of rows (a matrix) reads as its entries, row by row.
      for (const auto& item : value) {
        if (item.IsSequence() && kind_ == Kind::RealList)
          for (const auto& entry : item) items.push_back(scalar(entry, item_kind));
        else
          items.push_back(scalar(item, item_kind));
      }
      if (items.size() < min_items_)
        throw ConfigError(where, path_, "has " + std::to_string(items.size()) + " items", allowed());
      items.SetStyle(YAML::EmitterStyle::Flow);
      return items;
    }
    default:
      return scalar(value, kind_);
  }
}

// ---------------------------------------------------------------- Schema

Field& Schema::add(std::string path, Kind kind, std::string description) {
  if (find(path)) throw std::logic_error("config schema: key '" + path + "' declared twice");
  fields_.emplace_back(std::move(path), kind, std::move(description));
  return fields_.back();
}

const Field* Schema::find(const std::string& path) const {
  for (const auto& field : fields_)
    if (field.path() == path) return &field;
  return nullptr;
}

Config Schema::validate(YAML::Node raw, const std::string& file, const std::vector<std::string>& overrides) const {
  // Not cloned: clones lose the source marks errors point at.
  YAML::Node document = raw.IsDefined() && !raw.IsNull() ? raw : YAML::Node(YAML::NodeType::Map);
  if (!document.IsMap())
    throw ConfigError(mark_of(file, document.Mark()), "",
                      "expected a group of keys at the top, got " + describe(document));

  // --set assignments, applied to the tree; remembered so errors point at them.
  std::map<std::string, std::string> overridden;  // key path -> assignment
  for (const auto& assignment : overrides) {
    const auto [key, text] = split_assignment(assignment);
    const auto parts = split_path(key);
    YAML::Node node;
    node.reset(document);
    for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
      YAML::Node child = node[parts[i]];
      if (!child.IsDefined() || child.IsNull())
        node[parts[i]] = YAML::Node(YAML::NodeType::Map);
      else if (!child.IsMap())
        throw ConfigError(SourceLocation{"--set " + assignment}, key, "'" + parts[i] + "' is not a group of keys");
      YAML::Node next = node[parts[i]];
      node.reset(next);
    }
    node[parts.back()] = parse_override_value(assignment, key, text);
    overridden[key] = assignment;
  }
  const auto locate = [&](const std::string& path, const YAML::Mark& mark) {
    for (const auto& [key, assignment] : overridden)
      if (path == key || path.rfind(key + ".", 0) == 0 || key.rfind(path + ".", 0) == 0)
        return SourceLocation{"--set " + assignment};
    return mark_of(file, mark);
  };
  const auto children_of = [&](const std::string& prefix) {
    std::vector<std::string> names;
    for (const auto& field : fields_) {
      const std::string& path = field.path();
      if (!prefix.empty() && path.rfind(prefix + ".", 0) != 0) continue;
      const std::string rest = prefix.empty() ? path : path.substr(prefix.size() + 1);
      const std::string name = rest.substr(0, rest.find('.'));
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    }
    return names;
  };

  Config config;
  config.file_ = file;
  const auto walk = [&](const auto& self, const YAML::Node& map, const std::string& prefix) -> void {
    std::set<std::string> seen;
    for (const auto& entry : map) {
      const YAML::Node& key_node = entry.first;
      const std::string name = key_node.IsScalar() ? key_node.Scalar() : std::string();
      const std::string path = prefix.empty() ? name : prefix + "." + name;
      const SourceLocation key_where = locate(path, key_node.Mark());
      if (!seen.insert(name).second) throw ConfigError(key_where, path, "duplicate key");
      if (const Field* field = find(path)) {
        const SourceLocation where = locate(path, entry.second.Mark());
        config.values_[path] = field->validate(entry.second, where);
        config.origins_[path] = where;
        continue;
      }
      const std::vector<std::string> children = children_of(path);
      if (!children.empty()) {
        if (!entry.second.IsMap())
          throw ConfigError(locate(path, entry.second.Mark()), path,
                            "expected a group of keys, got " + describe(entry.second), "keys " + join(children));
        self(self, entry.second, path);
        continue;
      }
      const std::vector<std::string> siblings = children_of(prefix);
      std::string suggestion = closest_match(name, siblings);
      if (!suggestion.empty()) suggestion = prefix.empty() ? suggestion : prefix + "." + suggestion;
      if (suggestion.empty()) {
        for (const auto& field : fields_) {
          const std::string& other = field.path();
          const std::string last = other.substr(other.rfind('.') == std::string::npos ? 0 : other.rfind('.') + 1);
          if (last == name) suggestion = other;
        }
      }
      throw ConfigError(key_where, path,
                        "unknown key" + (suggestion.empty() ? std::string() : " (did you mean '" + suggestion + "'?)"),
                        "keys " + (prefix.empty() ? std::string() : "under '" + prefix + "': ") + join(siblings));
    }
  };
  walk(walk, document, "");

  for (const auto& field : fields_) {
    config.order_.push_back(field.path());
    if (config.values_.count(field.path())) continue;
    if (field.default_node()) {
      config.values_[field.path()] = field.validate(*field.default_node(), SourceLocation{file + " (default)"});
      config.origins_[field.path()] = SourceLocation{file};
    } else if (!field.is_optional()) {
      throw ConfigError(SourceLocation{file}, field.path(), "missing required key", field.allowed());
    }
  }
  return config;
}

// ---------------------------------------------------------------- Config

bool Config::has(const std::string& path) const { return values_.count(path) > 0; }

const YAML::Node& Config::value(const std::string& path) const {
  const auto it = values_.find(path);
  if (it == values_.end())
    throw std::logic_error("config: no value for key '" + path + "' (not in the schema, or optional)");
  return it->second;
}

bool Config::boolean(const std::string& path) const { return value(path).as<bool>(); }
std::int64_t Config::integer(const std::string& path) const { return value(path).as<std::int64_t>(); }
double Config::real(const std::string& path) const { return value(path).as<double>(); }
std::string Config::string(const std::string& path) const { return value(path).as<std::string>(); }
std::vector<double> Config::reals(const std::string& path) const { return value(path).as<std::vector<double>>(); }
std::vector<std::int64_t> Config::integers(const std::string& path) const {
  return value(path).as<std::vector<std::int64_t>>();
}
std::vector<std::string> Config::strings(const std::string& path) const {
  return value(path).as<std::vector<std::string>>();
}

SourceLocation Config::where(const std::string& path) const {
  const auto it = origins_.find(path);
  return it == origins_.end() ? SourceLocation{file_} : it->second;
}

std::string Config::to_yaml() const {
  YAML::Node tree(YAML::NodeType::Map);
  for (const auto& path : order_) {
    const auto it = values_.find(path);
    if (it == values_.end()) continue;
    const auto parts = split_path(path);
    YAML::Node node;
    node.reset(tree);
    for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
      if (!node[parts[i]].IsDefined()) node[parts[i]] = YAML::Node(YAML::NodeType::Map);
      YAML::Node next = node[parts[i]];
      node.reset(next);
    }
    node[parts.back()] = it->second;
  }
  YAML::Emitter out;
  out << tree;
  return std::string(out.c_str()) + "\n";
}

// ---------------------------------------------------------------- loading

namespace {

// Tags (!!float, !custom) would change how values read, or nothing at all:
// the schema decides every type, so a tag is an error rather than ignored.
// yaml-cpp marks untagged nodes "?" (plain) or "!" (quoted).
// Deeper than any config goes (keys nest three levels, lists one more): a
// deeper tree is a recursive alias (&a [*a]), which would recurse forever.
constexpr int max_config_depth = 32;

void reject_tags(const YAML::Node& node, const std::string& file, const int depth = 0) {
  if (depth > max_config_depth)
    throw ConfigError(mark_of(file, node.Mark()), "",
                      "YAML nested deeper than " + std::to_string(max_config_depth) + " levels (a recursive alias?)",
                      "plain keys and values; configs nest a few levels");
  const std::string& tag = node.Tag();
  if (!tag.empty() && tag != "?" && tag != "!") {
    const std::string shown = tag.rfind("tag:yaml.org,2002:", 0) == 0 ? "!!" + tag.substr(18) : tag;
    throw ConfigError(mark_of(file, node.Mark()), "", "YAML tag '" + shown + "' is not supported",
                      "the plain value; the schema decides each key's type");
  }
  if (node.IsMap())
    for (const auto& entry : node) {
      reject_tags(entry.first, file, depth + 1);
      reject_tags(entry.second, file, depth + 1);
    }
  else if (node.IsSequence())
    for (const auto& item : node) reject_tags(item, file, depth + 1);
}

}  // namespace

YAML::Node load_yaml_file(const std::string& file) {
  std::ifstream in(file);
  if (!in) throw ConfigError(SourceLocation{file}, "", "cannot open the config file", "a readable YAML file");
  std::vector<YAML::Node> documents;
  try {
    documents = YAML::LoadAll(in);
  } catch (const YAML::ParserException& error) {
    throw ConfigError(mark_of(file, error.mark), "", "malformed YAML: " + error.msg);
  }
  // One config per file: a second document would otherwise be dropped unseen
  // (an empty one after a trailing '---' is harmless).
  for (std::size_t k = 1; k < documents.size(); ++k)
    if (!documents[k].IsNull())
      throw ConfigError(mark_of(file, documents[k].Mark()), "",
                        "a second YAML document (after '---'); portasolve reads one config per file",
                        "one document: merge the keys into the first, or use a file per config");
  if (documents.empty()) return YAML::Node();
  reject_tags(documents.front(), file);
  return documents.front();
}

std::string read_experiment(const YAML::Node& document, const std::string& file,
                            const std::vector<std::string>& overrides, const std::vector<std::string>& known) {
  Field field("experiment", Kind::Choice, "which driver runs this config");
  field.choices(known);
  for (auto it = overrides.rbegin(); it != overrides.rend(); ++it) {
    const auto [key, text] = split_assignment(*it);
    if (key == "experiment")
      return field.validate(parse_override_value(*it, key, text), SourceLocation{"--set " + *it}).as<std::string>();
  }
  if (!document.IsMap())
    throw ConfigError(mark_of(file, document.Mark()), "experiment", "missing required key", field.allowed());
  const YAML::Node value = document["experiment"];
  if (!value.IsDefined())
    throw ConfigError(SourceLocation{file}, "experiment", "missing required key", field.allowed());
  return field.validate(value, mark_of(file, value.Mark())).as<std::string>();
}

}  // namespace portasolve::config
