#pragma once
// The shape of the name tables of runtime/gfn's enumerated options (loss_kind.h,
// preprocessor_kind.h, env/hypergrid_reward.h): an enumerator and its YAML spelling,
// written once beside the enumeration. runtime/config parses and writes these options
// with the same tables (its enum_name / parse_enum / enum_choices find a table through
// the enumeration's enum_names overload, by argument-dependent lookup), so runtime/gfn
// needs nothing from runtime/config for them. Header-only, LibTorch-free, thread-safe.

namespace gfn::core {

/// An enumerator and its name (the fields runtime/config/engine_options.h EnumName has).
template <class E>
struct OptionName {
  E value;
  const char* name;
};

/// The name of v in its table (enum_names(E{})), "?" for a value outside it. O(table).
template <class E>
const char* option_name(E v) {
  for (const auto& entry : enum_names(E{})) {
    if (entry.value == v) return entry.name;
  }
  return "?";
}

}  // namespace gfn::core
