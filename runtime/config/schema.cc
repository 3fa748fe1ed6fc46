#include "runtime/config/schema.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "runtime/config/nearest.h"

namespace gfn::config {
namespace {

/// "; did you mean a.b, a.c or a.d?" for the keys of `keys` nearest to the unknown `key`
/// (nearest.h, at most 3), or "" when none is close to it.
std::string did_you_mean(const std::string& key, const std::vector<std::string>& keys) {
  const auto nearest = nearest_names(key, keys, 3);
  if (nearest.empty()) return "";
  if (nearest.size() == 1) return fmt::format("; did you mean {}?", nearest[0]);
  return fmt::format("; did you mean {} or {}?",
                     fmt::join(nearest.begin(), nearest.end() - 1, ", "), nearest.back());
}

std::string file_where(const std::string& path, const YAML::Node& node) {
  const YAML::Mark mark = node.Mark();
  if (mark.is_null()) return fmt::format("config file '{}'", path);
  return fmt::format("config file '{}' line {}", path, mark.line + 1);
}

std::string scalar_text(const YAML::Node& node) {
  if (node.IsScalar()) return node.Scalar();
  if (node.IsNull()) return "(empty)";
  return node.IsMap() ? "(a mapping)" : "(a sequence)";
}

/// A section or key name: a plain scalar; a complex key ("? {a: b}") or an empty one is
/// refused naming the file and line.
std::string key_name(const std::string& path, const YAML::Node& key) {
  if (!key.IsScalar()) {
    throw ConfigError(fmt::format("{}: a section or key name must be a plain name, got {}",
                                  file_where(path, key), scalar_text(key)));
  }
  return key.Scalar();
}

bool applies_to(const Schema::Binding& b, const void* root) {
  return !b.applies || b.applies(root);
}

}  // namespace

namespace field_detail {

bool read_range(const YAML::Node& node, IntRange& out) {
  YAML::Node seq = node;
  if (node.IsScalar()) {
    try {
      seq = YAML::Load(node.Scalar());
    } catch (const YAML::Exception&) {
      return false;
    }
  }
  if (!seq.IsSequence() || seq.size() != 2) return false;
  IntRange r;
  if (!YAML::convert<std::int64_t>::decode(seq[0], r.min) ||
      !YAML::convert<std::int64_t>::decode(seq[1], r.max)) {
    return false;
  }
  out = r;
  return true;
}

bool read_map(const YAML::Node& node, OptionMap& out) {
  YAML::Node map = node;
  if (node.IsScalar()) {
    try {
      map = YAML::Load(node.Scalar());
    } catch (const YAML::Exception&) {
      return false;
    }
  }
  if (map.IsNull()) {
    out.clear();
    return true;
  }
  if (!map.IsMap()) return false;
  OptionMap values;
  for (const auto& kv : map) {
    if (!kv.first.IsScalar() || !kv.second.IsScalar()) return false;
    values[kv.first.Scalar()] = kv.second.Scalar();
  }
  out = std::move(values);
  return true;
}

void emit_map(YAML::Emitter& out, const OptionMap& value) {
  out << YAML::Flow << YAML::BeginMap;
  for (const auto& [k, v] : value) out << YAML::Key << k << YAML::Value << v;
  out << YAML::EndMap;
}

std::string show_map(const OptionMap& value) {
  std::vector<std::string> entries;
  for (const auto& [k, v] : value) entries.push_back(k + ": " + v);
  return fmt::format("{{{}}}", fmt::join(entries, ", "));
}

}  // namespace field_detail

void Schema::section(std::string name, std::string doc) {
  sections_.push_back({std::move(name), std::move(doc)});
}

void Schema::bind(const std::string& section, const std::vector<Field>& fields,
                  const std::vector<std::pair<std::string, std::string>>& renamed, Object object,
                  Applies applies, std::string note) {
  const bool declared = std::any_of(sections_.begin(), sections_.end(),
                                    [&](const Section& s) { return s.name == section; });
  if (!declared) throw std::logic_error("schema: section '" + section + "' is not declared");
  for (const auto& f : fields) bindings_.push_back({section, f, object, applies, note});
  for (const auto& [old_name, hint] : renamed)
    renamed_.emplace_back(section + "." + old_name, hint);
}

void Schema::cross_check(std::string key, Check check) {
  if (find(key) == nullptr) throw std::logic_error("schema: cross-check of unknown key " + key);
  cross_checks_.push_back({std::move(key), std::move(check)});
}

const Schema::Binding* Schema::find(const std::string& key) const {
  for (const auto& b : bindings_) {
    if (b.section + "." + b.field.name == key) return &b;
  }
  return nullptr;
}

const Schema::Binding* Schema::applying(const std::string& key, const void* root) const {
  const Binding* first = nullptr;
  for (const auto& b : bindings_) {
    if (b.section + "." + b.field.name != key) continue;
    if (applies_to(b, root)) return &b;
    if (first == nullptr) first = &b;
  }
  return first;
}

std::vector<std::string> Schema::section_names() const {
  std::vector<std::string> out;
  for (const auto& s : sections_) out.push_back(s.name);
  return out;
}

std::vector<std::string> Schema::keys_of(const std::string& section) const {
  std::vector<std::string> out;
  for (const auto& b : bindings_) {
    if (b.section != section) continue;
    if (std::find(out.begin(), out.end(), b.field.name) == out.end()) out.push_back(b.field.name);
  }
  return out;
}

std::vector<std::string> Schema::keys() const {
  std::vector<std::string> out;
  for (const auto& s : sections_) {
    for (const auto& name : keys_of(s.name)) out.push_back(s.name + "." + name);
  }
  return out;
}

void Schema::refuse_renamed(const std::string& key, const std::string& where) const {
  for (const auto& [old_key, hint] : renamed_) {
    if (old_key == key) {
      throw ConfigError(fmt::format("{}: key '{}' was renamed: use {}", where, key, hint));
    }
  }
}

bool Schema::assign(void* root, const std::string& key, const YAML::Node& node) const {
  for (const auto& b : bindings_) {
    if (b.section + "." + b.field.name != key) continue;
    if (!b.field.assign(b.object(root), node)) return false;
  }
  return true;
}

void Schema::apply_file(void* root, const std::string& path, Origins& origins) const {
  YAML::Node top;
  try {
    top = YAML::LoadFile(path);
  } catch (const YAML::BadFile&) {
    throw ConfigError(fmt::format("cannot open config file '{}'", path));
  } catch (const YAML::ParserException& e) {
    throw ConfigError(fmt::format("config file '{}' line {}: YAML syntax error: {}", path,
                                  e.mark.line + 1, e.msg));
  }
  if (top.IsNull()) return;  // empty file: defaults
  if (!top.IsMap()) {
    throw ConfigError(fmt::format("{}: expected a mapping of sections ({}) at the top level",
                                  file_where(path, top), fmt::join(section_names(), ", ")));
  }
  for (const auto& sec : top) {
    const std::string section = key_name(path, sec.first);
    if (keys_of(section).empty()) {
      throw ConfigError(fmt::format("{}: unknown section '{}' (known sections: {})",
                                    file_where(path, sec.first), section,
                                    fmt::join(section_names(), ", ")));
    }
    if (sec.second.IsNull()) continue;
    if (!sec.second.IsMap()) {
      throw ConfigError(fmt::format("{}: section '{}' must be a mapping of keys, got {}",
                                    file_where(path, sec.second), section,
                                    scalar_text(sec.second)));
    }
    apply_section(root, path, section, sec.second, origins);
  }
}

void Schema::apply_section(void* root, const std::string& path, const std::string& section,
                           const YAML::Node& keys, Origins& origins) const {
  for (const auto& kv : keys) {
    const std::string key = section + "." + key_name(path, kv.first);
    const Binding* b = find(key);
    if (b == nullptr) {
      refuse_renamed(key, file_where(path, kv.first));
      throw ConfigError(
          fmt::format("{}: unknown key '{}' (keys of '{}': {}){}", file_where(path, kv.first), key,
                      section, fmt::join(keys_of(section), ", "), did_you_mean(key, this->keys())));
    }
    if (!assign(root, key, kv.second)) {
      if (b->field.as_invalid) {
        throw ConfigError(fmt::format("{}: {} = {} is invalid: must be {}",
                                      file_where(path, kv.second), key, scalar_text(kv.second),
                                      b->field.type));
      }
      throw ConfigError(fmt::format("{}: {} must be {}, got '{}'", file_where(path, kv.second), key,
                                    b->field.type, scalar_text(kv.second)));
    }
    origins.emplace_back(key, file_where(path, kv.second));
  }
}

std::string Schema::unknown_key_remedy(const std::string& key) const {
  const std::string nearest = did_you_mean(key, keys());
  if (!nearest.empty()) return nearest;
  const std::size_t dot = key.find('.');
  const std::string section = key.substr(0, dot);
  if (dot != std::string::npos && !keys_of(section).empty()) {
    return fmt::format("; keys of '{}': {}", section, fmt::join(keys_of(section), ", "));
  }
  return fmt::format("; sections: {}", fmt::join(section_names(), ", "));
}

bool Schema::assign_map_entry(void* root, const std::string& key, const std::string& value) const {
  const std::size_t dot = key.rfind('.');
  if (dot == std::string::npos || find(key) != nullptr) return false;
  const std::string map_key = key.substr(0, dot);
  bool assigned = false;
  for (const auto& b : bindings_) {
    if (b.section + "." + b.field.name != map_key || !b.field.assign_entry) continue;
    assigned = b.field.assign_entry(b.object(root), key.substr(dot + 1), YAML::Node(value));
  }
  return assigned;
}

void Schema::apply_override(void* root, const std::string& path, const std::string& assignment,
                            Origins& origins) const {
  const std::string context =
      path.empty() ? std::string("no config file") : fmt::format("config file '{}'", path);
  const std::size_t eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0) {
    throw ConfigError(
        fmt::format("--set '{}': expected section.key=value ({})", assignment, context));
  }
  const std::string key = assignment.substr(0, eq);
  const std::string value = assignment.substr(eq + 1);
  if (assign_map_entry(root, key, value)) {
    origins.emplace_back(key.substr(0, key.rfind('.')),
                         fmt::format("--set {} ({})", assignment, context));
    return;
  }
  const Binding* b = find(key);
  if (b == nullptr) {
    refuse_renamed(key, fmt::format("--set {} ({})", assignment, context));
    throw ConfigError(fmt::format("--set {}: unknown key '{}' ({}){}", assignment, key, context,
                                  unknown_key_remedy(key)));
  }
  if (!assign(root, key, YAML::Node(value))) {
    if (b->field.as_invalid) {
      throw ConfigError(fmt::format("--set {} ({}): {} = {} is invalid: must be {}", assignment,
                                    context, key, value, b->field.type));
    }
    throw ConfigError(fmt::format("--set {}: {} must be {}, got '{}' ({})", assignment, key,
                                  b->field.type, value, context));
  }
  origins.emplace_back(key, fmt::format("--set {} ({})", assignment, context));
}

void Schema::validate_with(const void* root, const Origins& origins,
                           const std::string& fallback) const {
  const auto where_of = [&](const std::string& key) {
    std::string where = fallback;
    for (const auto& [k, w] : origins) {
      if (k == key) where = w;  // the last assignment of the key wins
    }
    return where.empty() ? std::string("configuration") : where;
  };
  void* mutable_root = const_cast<void*>(root);  // Object accessors take void*; nothing is written
  for (const auto& b : bindings_) {
    if (!applies_to(b, root)) continue;
    const void* object = b.object(mutable_root);
    const std::string problem = b.field.problem(object);
    if (problem.empty()) continue;
    const std::string key = b.section + "." + b.field.name;
    throw ConfigError(fmt::format("{}: {} = {} is invalid: {}", where_of(key), key,
                                  b.field.show(object), problem));
  }
  for (const auto& rule : cross_checks_) {
    const std::string problem = rule.check(root);
    if (problem.empty()) continue;
    const Binding* b = applying(rule.key, root);
    throw ConfigError(fmt::format("{}: {} = {} is invalid: {}", where_of(rule.key), rule.key,
                                  b->field.show(b->object(mutable_root)), problem));
  }
}

void Schema::load(void* root, const std::string& path,
                  const std::vector<std::string>& overrides) const {
  Origins origins;
  if (!path.empty()) apply_file(root, path, origins);
  for (const auto& assignment : overrides) apply_override(root, path, assignment, origins);
  validate_with(
      root, origins,
      path.empty() ? std::string("defaults") : fmt::format("config file '{}' (default)", path));
}

void Schema::validate(const void* root, const std::string& source) const {
  validate_with(root, {}, source);
}

std::string Schema::to_yaml(const void* root) const {
  void* mutable_root = const_cast<void*>(root);  // read only
  YAML::Emitter out;
  out << YAML::BeginMap;
  for (const auto& s : sections_) {
    out << YAML::Key << s.name << YAML::Value << YAML::BeginMap;
    for (const auto& name : keys_of(s.name)) {
      const Binding* b = applying(s.name + "." + name, root);
      out << YAML::Key << name << YAML::Value;
      b->field.emit(out, b->object(mutable_root));
    }
    out << YAML::EndMap;
  }
  out << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

std::vector<std::string> Schema::differing_keys(const void* a, const void* b) const {
  std::vector<std::string> out;
  for (const auto& key : keys()) {
    const Binding* ba = applying(key, a);
    const Binding* bb = applying(key, b);
    const std::string va = ba->field.show(ba->object(const_cast<void*>(a)));
    const std::string vb = bb->field.show(bb->object(const_cast<void*>(b)));
    if (va != vb) out.push_back(key);
  }
  return out;
}

std::vector<std::string> Schema::resumable_keys() const {
  std::vector<std::string> out;
  for (const auto& key : keys()) {
    if (find(key)->field.traits.resumable) out.push_back(key);
  }
  return out;
}

}  // namespace gfn::config
