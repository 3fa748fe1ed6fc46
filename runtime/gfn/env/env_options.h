#pragma once
// YAML `env:` (docs/configuration.md): the environment's name, the preprocessor, and each
// environment's own options (hypergrid_options.h, ...), which it registers in the
// catalog (catalog.h). Every built-in environment's options are held, with their defaults,
// so that any env.* key of any environment can be given whatever env.name says; a key several
// environments read (env.ndim) sets them all; only the selected environment's are validated,
// and config.yaml shows its values.
//
// Adding an environment (docs/environments.md): its options struct and fields in
// <name>_options.h / .cc, one X(name, OptionsType) line in GFN_ENVIRONMENT_LIST
// (environment_list.h), and its factory in registry.cc (GFN_DEFINE_ENVIRONMENT).
// No LibTorch: the configuration can be loaded without the environments' code
// (tests/fuzz/). EnvOptions is a plain value type.

#include <any>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/config/option_map.h"
#include "runtime/gfn/env/bit_sequence_options.h"
#include "runtime/gfn/env/box_options.h"
#include "runtime/gfn/env/diffusion_options.h"
#include "runtime/gfn/env/discrete_ebm_options.h"
#include "runtime/gfn/env/hypergrid_options.h"
#include "runtime/gfn/env/line_options.h"
#include "runtime/gfn/env/non_autoregressive_bit_sequence_options.h"
#include "runtime/gfn/env/walk_options.h"
#include "runtime/gfn/preprocessor_kind.h"

namespace gfn::config {
template <class S>
class Fields;
}

namespace gfn::core {

struct EnvOptions {
  std::string name = "hypergrid";                           ///< a name of the registry (registry.h)
  PreprocessorKind preprocessor = PreprocessorKind::kKHot;  ///< khot | onehot | identity
  /// Path of an environment plugin (a shared library, plugin.h); "" = a built-in environment.
  std::string plugin;
  /// The plugin's options, checked by its own schema (plugin_loader.h), or the Python
  /// environment's keyword arguments.
  config::OptionMap options;
  /// Path of a TorchScript module giving log R of a batch of terminating states
  /// (reward_model.h); "" = the environment's own reward.
  std::string reward_model;
  /// An environment written in Python, "module:Class" (runtime/python/python_environment.h;
  /// docs/environments.md "Python environments"); "" = none. env.options go to its constructor.
  std::string python;
  /// Directories searched for env.python's and env.reward_python's modules, separated by ':'
  /// (as PYTHONPATH), put before sys.path. gfn-train sets an empty value to the configuration
  /// file's directory (python_environment.h resolve_python_path).
  std::string python_path;
  /// A Python function "module:function" giving log R of a batch of terminating states; it
  /// replaces the environment's reward (python_environment.h); "" = the environment's own.
  std::string reward_python;

  /// Every catalogued environment's options, with their defaults.
  EnvOptions();

  /// The options of the environment whose options type is T (e.g. HyperGridOptions; the
  /// built-in environments' option headers are included above).
  /// Throws std::logic_error if T is not catalogued.
  template <class T>
  const T& get() const {
    for (const auto& [env, options] : environments) {
      if (const T* p = std::any_cast<T>(&options)) return *p;
    }
    throw std::logic_error("EnvOptions: no environment has these options");
  }
  template <class T>
  T& get() {
    return const_cast<T&>(static_cast<const EnvOptions*>(this)->get<T>());
  }
  /// The options struct of catalogued environment `env` (for the schema's bindings).
  void* object(const std::string& env);
  /// Every option of catalogued environment `env` as text (its registered fields, defaults
  /// included): {"ndim": "2", "height": "8", ...}. Throws std::logic_error if `env` is not
  /// catalogued.
  config::OptionMap option_values(const std::string& env) const;

  /// env name -> its options struct (std::any of the catalogued type).
  std::vector<std::pair<std::string, std::any>> environments;
};

/// The `env:` keys of EnvOptions itself (name, preprocessor); each environment's keys come
/// from the catalog.
const config::Fields<EnvOptions>& env_fields();

}  // namespace gfn::core
