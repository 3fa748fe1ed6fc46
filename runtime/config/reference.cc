// Schema::reference: the Markdown reference of a schema (docs/configuration.md is this text
// for gfn-train's schema, written by `gfn-train --print-schema`).
#include <fmt/format.h>

#include "runtime/config/schema.h"

namespace gfn::config {
namespace {

/// A table cell: pipes escaped, line breaks removed.
std::string cell(std::string text) {
  std::string out;
  for (char c : text) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

/// The type column ("integer", "choice", ...) and the names of an enumeration.
std::pair<std::string, std::string> type_and_choices(const std::string& type) {
  const std::string choice = "one of: ";
  if (type.rfind(choice, 0) == 0) return {"choice", type.substr(choice.size())};
  if (type == "an integer") return {"integer", ""};
  if (type == "a non-negative integer") return {"integer >= 0", ""};
  if (type == "a number") return {"number", ""};
  if (type == "a boolean (true/false)") return {"boolean", ""};
  if (type == "a string") return {"string", ""};
  return {"[min, max]", ""};
}

}  // namespace

std::string Schema::meaning_of(const std::string& section, const std::string& name) const {
  std::vector<const Binding*> all;
  for (const auto& b : bindings_) {
    if (b.section == section && b.field.name == name) all.push_back(&b);
  }
  if (all.size() == 1 && all[0]->note.empty()) return all[0]->field.doc;
  bool same_doc = true;
  std::string notes;
  for (const Binding* b : all) {
    same_doc = same_doc && b->field.doc == all[0]->field.doc;
    notes += (notes.empty() ? "" : ", ") + b->note;
  }
  if (same_doc) return "*" + notes + ":* " + all[0]->field.doc;
  std::string out;
  for (const Binding* b : all) out += (out.empty() ? "*" : " *") + b->note + ":* " + b->field.doc;
  return out;
}

std::string Schema::reference(const void* defaults) const {
  void* root = const_cast<void*>(defaults);  // read only
  std::string out;
  for (const auto& s : sections_) {
    out += fmt::format("## `{}`\n\n{}\n\n", s.name, s.doc);
    out += "| key | type | default | unit | allowed | meaning |\n";
    out += "| --- | --- | --- | --- | --- | --- |\n";
    for (const auto& name : keys_of(s.name)) {
      const std::string key = s.name + "." + name;
      const Binding* b = applying(key, defaults);
      const std::string meaning = meaning_of(s.name, name);
      auto [type, choices] = type_and_choices(b->field.type);
      std::string allowed = choices.empty() ? b->field.rule : choices;
      const std::string value = b->field.show(b->object(root));
      out += fmt::format("| `{}` | {} | `{}` | {} | {} | {} |\n", key, type,
                         value.empty() ? "\"\"" : cell(value), cell(b->field.traits.unit),
                         cell(allowed), cell(meaning));
    }
    out += "\n";
  }
  return out;
}

}  // namespace gfn::config
