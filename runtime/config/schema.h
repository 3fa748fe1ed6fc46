#pragma once
// A configuration schema: named sections, each made of the fields (fields.h) of one or
// more options structs inside a root object, plus cross-checks between sections. From it:
// loading a YAML file with `--set section.key=value` overrides (yaml-cpp; precedence:
// defaults < file < overrides, in command-line order), validation, the effective
// configuration as YAML (config.yaml of a run), the keys a resumed run may change, and
// the reference in Markdown (docs/configuration.md, `gfn-train --print-schema`).
//
// The schema knows no module: a program composes it from the modules' Fields (for
// gfn-train: roles/experiment/experiment.h). Every message of a ConfigError names the
// key, where it came from (the file with its line, or the --set assignment) and the
// offending value.
//
// Several structs may register the same key of one section (every environment that has
// `ndim` registers env.ndim): a value is assigned to all of them; only the bindings that
// apply (Binding::applies, e.g. the selected environment's) are validated, written and
// compared. Building a schema is not thread-safe; a built schema is immutable and may be
// used from any thread. Cost: O(keys) per lookup; a load is O(keys^2) at most (~200 keys).

#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "runtime/config/fields.h"

namespace gfn::config {

/// A configuration that cannot be used: unknown section or key, wrong type, impossible
/// value, unreadable file, YAML syntax error, malformed override. The message says
/// where, which key and which value.
class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The untyped schema over a root object passed as void*; TypedSchema<R> below is the
/// interface programs use.
class Schema {
 public:
  using Object = std::function<void*(void* root)>;
  using Applies = std::function<bool(const void* root)>;
  using Check = std::function<std::string(const void* root)>;

  /// Declares section `name` (sections are written and listed in declaration order).
  void section(std::string name, std::string doc);
  /// Binds `fields` (with their renamed keys) to section `name`, inside the root object
  /// at object(root). `applies(root)` false: the fields are assigned but not validated,
  /// written or compared (null: always). `note` qualifies the fields in the reference
  /// (e.g. "hypergrid").
  void bind(const std::string& section, const std::vector<Field>& fields,
            const std::vector<std::pair<std::string, std::string>>& renamed, Object object,
            Applies applies = nullptr, std::string note = "");
  /// A rule between keys: check(root) returns "" or the problem; the message names `key`
  /// (its value and where it came from).
  void cross_check(std::string key, Check check);

  /// Applies the file at `path` ("" = none) and the overrides to `root`, then validates.
  void load(void* root, const std::string& path, const std::vector<std::string>& overrides) const;
  /// Checks every applicable field's rule, then the cross-checks. `source` says where
  /// the values came from in messages.
  void validate(const void* root, const std::string& source) const;
  /// Every key and its value as YAML, section by section (load of it gives back `root`).
  std::string to_yaml(const void* root) const;
  /// Every key ("section.name"), in declaration order, each once.
  std::vector<std::string> keys() const;
  /// Keys whose values differ between two roots (declaration order).
  std::vector<std::string> differing_keys(const void* a, const void* b) const;
  /// Keys registered with FieldTraits::resumable.
  std::vector<std::string> resumable_keys() const;
  /// The reference (Markdown): a table per section (key, type, default, unit, allowed,
  /// meaning), the defaults taken from `defaults`.
  std::string reference(const void* defaults) const;

  struct Binding {
    std::string section;
    Field field;
    Object object;
    Applies applies;
    std::string note;
  };
  struct Section {
    std::string name;
    std::string doc;
  };

 private:
  struct CrossCheck {
    std::string key;
    Check check;
  };
  using Origins = std::vector<std::pair<std::string, std::string>>;

  const Binding* find(const std::string& key) const;
  /// The binding of `key` that applies to `root` (else the first), or null.
  const Binding* applying(const std::string& key, const void* root) const;
  std::vector<std::string> section_names() const;
  std::vector<std::string> keys_of(const std::string& section) const;
  /// The reference's "meaning" of a key: its doc, qualified by the notes of its bindings.
  std::string meaning_of(const std::string& section, const std::string& name) const;
  void refuse_renamed(const std::string& key, const std::string& where) const;
  /// What an unknown `key` of --set is followed by in its error: "; did you mean ...?" with
  /// the nearest keys (nearest.h), else the keys of its section, else the sections.
  std::string unknown_key_remedy(const std::string& key) const;
  bool assign(void* root, const std::string& key, const YAML::Node& node) const;
  void apply_file(void* root, const std::string& path, Origins& origins) const;
  void apply_section(void* root, const std::string& path, const std::string& section,
                     const YAML::Node& keys, Origins& origins) const;
  void apply_override(void* root, const std::string& path, const std::string& assignment,
                      Origins& origins) const;
  /// `--set section.map.entry=value` of an OptionMap field: sets the entry; false if `key`
  /// names no entry of a map.
  bool assign_map_entry(void* root, const std::string& key, const std::string& value) const;
  void validate_with(const void* root, const Origins& origins, const std::string& fallback) const;

  std::vector<Section> sections_;
  std::vector<Binding> bindings_;
  std::vector<std::pair<std::string, std::string>> renamed_;  ///< full key -> hint
  std::vector<CrossCheck> cross_checks_;
};

/// The schema of a root configuration struct R (default-constructible; its defaults are
/// the reference's).
template <class R>
class TypedSchema {
 public:
  /// Section `name` made of the fields of root.*member.
  template <class S>
  TypedSchema& section(std::string name, std::string doc, S R::*member, const Fields<S>& fields) {
    schema_.section(name, std::move(doc));
    return extend(name, member, fields);
  }
  /// More fields of section `name` (declared before), in root.*member.
  template <class S>
  TypedSchema& extend(const std::string& name, S R::*member, const Fields<S>& fields) {
    schema_.bind(name, fields.fields(), fields.renamed(),
                 [member](void* root) -> void* { return &(static_cast<R*>(root)->*member); });
    return *this;
  }
  /// More fields of section `name` (type-erased, e.g. from a catalog), in the struct
  /// `object(root)` points to, validated only when applies(root); `note` qualifies them in
  /// the reference.
  TypedSchema& extend_fields(const std::string& name, const std::vector<Field>& fields,
                             const std::vector<std::pair<std::string, std::string>>& renamed,
                             std::function<void*(R&)> object, std::function<bool(const R&)> applies,
                             std::string note) {
    schema_.bind(
        name, fields, renamed,
        [object](void* root) -> void* { return object(*static_cast<R*>(root)); },
        [applies](const void* root) { return applies(*static_cast<const R*>(root)); },
        std::move(note));
    return *this;
  }
  TypedSchema& cross_check(std::string key, std::function<std::string(const R&)> check) {
    schema_.cross_check(std::move(key),
                        [check](const void* root) { return check(*static_cast<const R*>(root)); });
    return *this;
  }

  /// Defaults, then the file ("" = none), then the overrides; validated. Throws ConfigError.
  R load(const std::string& path, const std::vector<std::string>& overrides = {}) const {
    R root;
    schema_.load(&root, path, overrides);
    return root;
  }
  void validate(const R& root, const std::string& source) const { schema_.validate(&root, source); }
  std::string to_yaml(const R& root) const { return schema_.to_yaml(&root); }
  std::vector<std::string> keys() const { return schema_.keys(); }
  std::vector<std::string> differing_keys(const R& a, const R& b) const {
    return schema_.differing_keys(&a, &b);
  }
  std::vector<std::string> resumable_keys() const { return schema_.resumable_keys(); }
  std::string reference() const {
    const R defaults;
    return schema_.reference(&defaults);
  }

 private:
  Schema schema_;
};

}  // namespace gfn::config
