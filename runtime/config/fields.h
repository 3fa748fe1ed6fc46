#pragma once
// The options of one options struct S, registered by the module that owns S: each field's
// YAML name, member, one-line documentation, rule (rules.h) and traits (unit, whether a
// resumed run may change it). A module writes, in its options.cc:
//
//   const config::Fields<TrainOptions>& train_fields() {
//     static const auto fields = config::Fields<TrainOptions>()
//         .add("batch_size", &TrainOptions::batch_size,
//              "Trajectories per iteration, split over the trainers.", config::positive(),
//              {.unit = "trajectories"})
//         ...;
//     return fields;
//   }
//
// and the program binds it to a section of its root configuration (schema.h). Supported
// member types: bool, integers (signed and unsigned), float/double, std::string,
// IntRange, OptionMap (option_map.h) and enumerations with a name table (enum_names.h). Defaults
// are the struct's default member initializers. Fields are immutable once built; building is not
// thread-safe, reading is.

#include <yaml-cpp/yaml.h>

#include <functional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "runtime/config/enum_names.h"
#include "runtime/config/int_range.h"
#include "runtime/config/option_map.h"
#include "runtime/config/rules.h"

namespace gfn::config {

/// Optional facts of a field, for the reference and for --resume.
struct FieldTraits {
  std::string unit;        ///< e.g. "s", "bytes", "iterations"; "" for none
  bool resumable = false;  ///< a resumed run may change it with --set (resume.h)
};

/// One option, type-erased over a pointer to its options struct.
struct Field {
  std::string name;  ///< YAML key within its section
  std::string type;  ///< "an integer", "one of: a, b", ... (messages, reference)
  std::string doc;   ///< one or two sentences for the reference
  std::string rule;  ///< the rule's text for the reference ("" when none)
  FieldTraits traits;
  bool as_invalid = false;  ///< an unparsable value is reported as "k = v is invalid"
  /// Reads `node` into the field of `object`; false (unchanged) if it is not of the type.
  std::function<bool(void* object, const YAML::Node& node)> assign;
  /// Writes the field's value (not its key) to `out`.
  std::function<void(YAML::Emitter& out, const void* object)> emit;
  /// "" if the value satisfies the rule, else the problem ("must be >= 1").
  std::function<std::string(const void* object)> problem;
  /// The value as text, for messages and the reference.
  std::function<std::string(const void* object)> show;
  /// OptionMap fields only (else null): sets entry `entry` to the scalar `node`
  /// (`--set section.name.entry=value`); false if `node` is not a scalar.
  std::function<bool(void* object, const std::string& entry, const YAML::Node& node)> assign_entry;
};

namespace field_detail {

template <class T>
std::string type_name() {
  if constexpr (std::is_enum_v<T>) {
    return "one of: " + enum_choices<T>();
  } else if constexpr (std::is_same_v<T, IntRange>) {
    return "a list of two integers [min, max]";
  } else if constexpr (std::is_same_v<T, OptionMap>) {
    return "a mapping of names to values";
  } else if constexpr (std::is_same_v<T, bool>) {
    return "a boolean (true/false)";
  } else if constexpr (std::is_integral_v<T> && std::is_unsigned_v<T>) {
    return "a non-negative integer";
  } else if constexpr (std::is_integral_v<T>) {
    return "an integer";
  } else if constexpr (std::is_floating_point_v<T>) {
    return "a number";
  } else {
    static_assert(std::is_same_v<T, std::string>, "unsupported option type");
    return "a string";
  }
}

/// A list of two integers; `--set` gives the text "[a, b]" as a scalar, parsed here.
bool read_range(const YAML::Node& node, IntRange& out);
/// A mapping of scalars (or null: empty); `--set` gives the text "{a: 1}", parsed here.
bool read_map(const YAML::Node& node, OptionMap& out);
void emit_map(YAML::Emitter& out, const OptionMap& value);
/// "{a: 1, b: x}".
std::string show_map(const OptionMap& value);

template <class T>
bool read(const YAML::Node& node, T& out) {
  if constexpr (std::is_same_v<T, IntRange>) {
    return read_range(node, out);
  } else if constexpr (std::is_same_v<T, OptionMap>) {
    return read_map(node, out);
  } else {
    if (!node.IsScalar()) return false;
    if constexpr (std::is_enum_v<T>) {
      return parse_enum(node.Scalar(), out);
    } else {
      if constexpr (std::is_integral_v<T> && std::is_unsigned_v<T> && !std::is_same_v<T, bool>) {
        if (!node.Scalar().empty() && node.Scalar()[0] == '-') return false;
      }
      T value{};
      if (!YAML::convert<T>::decode(node, value)) return false;
      out = value;
      return true;
    }
  }
}

template <class T>
void emit(YAML::Emitter& out, const T& value) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isfinite(value)) {
      out << fmt::format("{}", value);
      return;
    }
    out << value;
  } else if constexpr (std::is_enum_v<T>) {
    out << enum_name(value);
  } else if constexpr (std::is_same_v<T, IntRange>) {
    out << YAML::Flow << YAML::BeginSeq << value.min << value.max << YAML::EndSeq;
  } else if constexpr (std::is_same_v<T, OptionMap>) {
    emit_map(out, value);
  } else {
    out << value;
  }
}

template <class T>
std::string show(const T& value) {
  if constexpr (std::is_enum_v<T>) {
    return enum_name(value);
  } else if constexpr (std::is_same_v<T, IntRange>) {
    return fmt::format("[{}, {}]", value.min, value.max);
  } else if constexpr (std::is_same_v<T, OptionMap>) {
    return show_map(value);
  } else {
    return fmt::format("{}", value);
  }
}

}  // namespace field_detail

/// The value of every field of `fields` in `object` (the options struct they were registered
/// for) as text (Field::show), by key: {"ndim": "2", "reward": "original"}.
inline OptionMap field_values(const std::vector<Field>& fields, const void* object) {
  OptionMap out;
  for (const auto& field : fields) out[field.name] = field.show(object);
  return out;
}

/// The fields of options struct S (default-constructible), in registration order.
template <class S>
class Fields {
 public:
  /// Registers `member` as key `name`. `rule` is a rules.h rule (NoRule: none; AsInvalid:
  /// none, and unknown enumeration names are reported as invalid values).
  template <class T, class R = NoRule>
  Fields&& add(std::string name, T S::*member, std::string doc, R rule = {},
               FieldTraits traits = {}) && {
    add_field(std::move(name), member, std::move(doc), std::move(rule), std::move(traits));
    return std::move(*this);
  }
  template <class T, class R = NoRule>
  Fields& add(std::string name, T S::*member, std::string doc, R rule = {},
              FieldTraits traits = {}) & {
    add_field(std::move(name), member, std::move(doc), std::move(rule), std::move(traits));
    return *this;
  }

  /// A key that no longer exists: refused, naming what to write instead (`hint`).
  Fields&& renamed(std::string old_name, std::string hint) && {
    renamed_.emplace_back(std::move(old_name), std::move(hint));
    return std::move(*this);
  }

  const std::vector<Field>& fields() const { return fields_; }
  const std::vector<std::pair<std::string, std::string>>& renamed() const { return renamed_; }

 private:
  template <class T, class R>
  void add_field(std::string name, T S::*member, std::string doc, R rule, FieldTraits traits) {
    Field f;
    f.name = std::move(name);
    f.type = field_detail::type_name<T>();
    f.doc = std::move(doc);
    f.rule = rule.text;
    f.traits = std::move(traits);
    f.as_invalid = std::is_same_v<R, AsInvalid>;
    f.assign = [member](void* object, const YAML::Node& node) {
      return field_detail::read(node, static_cast<S*>(object)->*member);
    };
    f.emit = [member](YAML::Emitter& out, const void* object) {
      field_detail::emit(out, static_cast<const S*>(object)->*member);
    };
    f.problem = [member, rule](const void* object) -> std::string {
      return rule.check(static_cast<const S*>(object)->*member);
    };
    f.show = [member](const void* object) {
      return field_detail::show(static_cast<const S*>(object)->*member);
    };
    if constexpr (std::is_same_v<T, OptionMap>) {
      f.assign_entry = [member](void* object, const std::string& entry, const YAML::Node& node) {
        if (!node.IsScalar()) return false;
        (static_cast<S*>(object)->*member)[entry] = node.Scalar();
        return true;
      };
    }
    fields_.push_back(std::move(f));
  }

  std::vector<Field> fields_;
  std::vector<std::pair<std::string, std::string>> renamed_;
};

/// Checks every field of `object` against its rule (the schema's check, without the YAML):
/// throws std::invalid_argument "<section>.<name> = <value> is invalid: <problem>" for the
/// first value its rule refuses. For code that receives an options struct without loading
/// it (runtime/gfn/learner.h, tools, tests), so that a module's rules in its Fields are the
/// one validation of its values. O(fields).
template <class S>
void check_values(const Fields<S>& fields, const S& object, const std::string& section) {
  for (const Field& f : fields.fields()) {
    const std::string problem = f.problem(&object);
    if (problem.empty()) continue;
    throw std::invalid_argument(section + "." + f.name + " = " + f.show(&object) +
                                " is invalid: " + problem);
  }
}

}  // namespace gfn::config
