#include "runtime/gfn/env/env_options.h"

#include "runtime/config/fields.h"
#include "runtime/gfn/env/catalog.h"

#include "runtime/gfn/env/environment_list.h"

namespace gfn::core {

// One catalog entry: X(name, OptionsType) of environment_list.h, and whether it is continuous.
#define GFN_CATALOG_ENTRY(ident, Options, is_continuous)                                        \
  EnvironmentEntry{#ident,                                                                      \
                   ident##_fields().fields(),                                                   \
                   ident##_fields().renamed(),                                                  \
                   [] { return std::any(Options{}); },                                          \
                   [](std::any& options) -> void* { return std::any_cast<Options>(&options); }, \
                   is_continuous},
#define GFN_DISCRETE_ENTRY(ident, Options) GFN_CATALOG_ENTRY(ident, Options, false)
#define GFN_CONTINUOUS_ENTRY(ident, Options) GFN_CATALOG_ENTRY(ident, Options, true)

const std::vector<EnvironmentEntry>& environment_catalog() {
  static const std::vector<EnvironmentEntry> catalog = {GFN_ENVIRONMENT_LIST(GFN_DISCRETE_ENTRY)};
  return catalog;
}

const std::vector<EnvironmentEntry>& continuous_environment_catalog() {
  static const std::vector<EnvironmentEntry> catalog = {
      GFN_CONTINUOUS_ENVIRONMENT_LIST(GFN_CONTINUOUS_ENTRY)};
  return catalog;
}

#undef GFN_CONTINUOUS_ENTRY
#undef GFN_DISCRETE_ENTRY
#undef GFN_CATALOG_ENTRY

namespace {

// Both catalogs, the discrete environments first.
const std::vector<EnvironmentEntry>& full_catalog() {
  static const std::vector<EnvironmentEntry> all = [] {
    std::vector<EnvironmentEntry> v = environment_catalog();
    const auto& c = continuous_environment_catalog();
    v.insert(v.end(), c.begin(), c.end());
    return v;
  }();
  return all;
}

}  // namespace

std::vector<std::string> catalogued_environment_names() {
  std::vector<std::string> out;
  for (const auto& e : full_catalog()) out.push_back(e.name);
  return out;
}

bool is_continuous_environment(const std::string& name) {
  for (const auto& e : full_catalog()) {
    if (e.name == name) return e.continuous;
  }
  return false;
}

EnvOptions::EnvOptions() {
  for (const auto& e : full_catalog()) environments.emplace_back(e.name, e.make_default());
}

void* EnvOptions::object(const std::string& env) {
  for (const auto& e : full_catalog()) {
    if (e.name != env) continue;
    for (auto& [held, options] : environments) {
      if (held == env) return e.object(options);
    }
  }
  throw std::logic_error("EnvOptions: environment '" + env + "' is not catalogued");
}

config::OptionMap EnvOptions::option_values(const std::string& env) const {
  for (const auto& e : full_catalog()) {
    if (e.name != env) continue;
    for (const auto& [held, options] : environments) {
      if (held != env) continue;
      std::any copy = options;  // the catalog reaches the struct through a mutable std::any
      return config::field_values(e.fields, e.object(copy));
    }
  }
  throw std::logic_error("EnvOptions: environment '" + env + "' is not catalogued");
}

const config::Fields<EnvOptions>& env_fields() {
  using E = EnvOptions;
  static const auto fields =
      config::Fields<E>()
          .add("name", &E::name,
               "The environment: a name of the registry (runtime/gfn/env/registry.h): "
               "hypergrid, discrete_ebm, bit_sequence, non_autoregressive_bit_sequence, walk, "
               "box, box_polar (continuous: states in [0, 1]^d, docs/environments.md \"Box\"), "
               "line (continuous: a mixture of Gaussians on R, docs/environments.md \"Line\"), "
               "diffusion (continuous: a diffusion sampler of a target density on R^d, "
               "docs/environments.md \"Diffusion sampling\"), "
               "an environment plugin's (env.plugin), or any name for a Python environment "
               "(env.python). Its own keys follow.")
          .add("preprocessor", &E::preprocessor,
               "How states become the network's input: khot (one-hot per coordinate), onehot "
               "(of the state index, enumerable environments), identity (the coordinates as "
               "floats); each environment supports some.",
               config::AsInvalid{})
          .add("plugin", &E::plugin,
               "Path of an environment plugin, a shared library built against the installed "
               "package (docs/environments.md \"Plugins\"); env.name must be the plugin's "
               "environment. Relative paths are from the working directory. Empty: a built-in "
               "environment.")
          .add("options", &E::options,
               "The options of a plugin environment, checked by its own schema, or of a Python "
               "environment (env.python), its constructor's keyword arguments: `options: {key: "
               "value}`, or `--set env.options.key=value`.")
          .add("reward_model", &E::reward_model,
               "Path of a TorchScript module (torch.jit.save) mapping a batch of terminating "
               "states int64 [B, state_dim] to log R, floating [B]; it replaces the "
               "environment's reward (docs/environments.md \"Reward models\"). Empty: the "
               "environment's own.")
          .add("python", &E::python,
               "An environment written in Python, \"module:Class\", run by the embedded "
               "interpreter (docs/environments.md \"Python environments\"); env.options are "
               "its constructor's keyword arguments and env.name is any name. Empty: none.")
          .add("python_path", &E::python_path,
               "Directories of the Python modules of env.python and env.reward_python, "
               "separated by ':' as in PYTHONPATH, searched before sys.path; relative ones from "
               "the working directory. Empty: the configuration file's directory (gfn-train "
               "writes it into config.yaml).")
          .add("reward_python", &E::reward_python,
               "A Python function \"module:function\" mapping a batch of terminating states "
               "int64 [B, state_dim] to log R, floating [B]; it replaces the environment's "
               "reward, built-in, plugin or Python (docs/environments.md \"Python rewards\"). "
               "Empty: the environment's own.");
  return fields;
}

}  // namespace gfn::core
