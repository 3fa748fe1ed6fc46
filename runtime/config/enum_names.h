#pragma once
// Enumerated options and their YAML names, written once beside each enumeration: a
// module declares `enum class E`, a table `kENames[] = {{E::kA, "a"}, ...}` of
// EnumName<E> and `enum_names(E)` returning it, in E's namespace (found by
// argument-dependent lookup). The schema (schema.h) parses and writes such options with
// the table; the module uses the same table for its own messages and the wire.
// Header-only, no dependency, thread-safe (the tables are constant).

#include <string>

namespace gfn::config {

/// An enumerator and its YAML spelling. Any table whose entries have `value` and `name`
/// works with the functions below (transport/backend.h keeps its own struct of that shape,
/// since transport/ links nothing of runtime/).
template <class E>
struct EnumName {
  E value;
  const char* name;
};

/// The YAML spelling of v ("?" for a value outside its table). O(table size).
template <class E>
const char* enum_name(E v) {
  for (const auto& entry : enum_names(E{})) {
    if (entry.value == v) return entry.name;
  }
  return "?";
}

/// Parses `text` into `out`; false (out unchanged) if it is not one of the names.
template <class E>
bool parse_enum(const std::string& text, E& out) {
  for (const auto& entry : enum_names(E{})) {
    if (text == entry.name) {
      out = entry.value;
      return true;
    }
  }
  return false;
}

/// "a, b, c": the allowed names of E, in table order.
template <class E>
std::string enum_choices() {
  std::string out;
  for (const auto& entry : enum_names(E{})) {
    if (!out.empty()) out += ", ";
    out += entry.name;
  }
  return out;
}

}  // namespace gfn::config
