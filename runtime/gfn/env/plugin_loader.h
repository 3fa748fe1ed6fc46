#pragma once
// Loading environment plugins (plugin.h; docs/environments.md "Plugins"): `env.plugin` names
// a shared library, `env.name` its environment, `env.options` its options.
//
// gfn-train calls resolve_environment_plugin() right after loading the configuration, on
// every rank, before any communication: a missing file, a library that does not load (an
// undefined symbol, another architecture), a missing entry point, another plugin ABI version
// or build id (plugin.h), an env.name that is not the plugin's, and an unknown or invalid
// option each give one config::ConfigError naming the plugin file (and the option). It also
// writes every option's value, defaults included, into env.options, so config.yaml records
// them. make_environment() (registry.h) builds a plugin environment through
// load_environment_plugin() and works without that first step; make_continuous_environment()
// (continuous_registry.h) builds a continuous plugin's (GFN_CONTINUOUS_ENVIRONMENT_PLUGIN),
// and is_continuous() tells which of the two an env: section names.
//
// Thread-safety: loading is serialised by a process-wide mutex; a loaded plugin is immutable
// and never unloaded. Cost: dlopen once per file and process (~ms); parsing options is
// O(keys).

#include <any>
#include <memory>
#include <string>

#include "runtime/config/option_map.h"
#include "runtime/gfn/env/env_options.h"

namespace gfn::core {

class Environment;
struct ContinuousParts;
struct EnvironmentPluginInfo;

/// A loaded, checked plugin.
class EnvironmentPlugin {
 public:
  EnvironmentPlugin(std::string path, const EnvironmentPluginInfo* info)
      : path_(std::move(path)), info_(info) {}
  /// The absolute path it was loaded from.
  const std::string& path() const { return path_; }
  /// The environment's name (env.name).
  const std::string& name() const;
  /// The options struct from `options` over the plugin's defaults. Throws
  /// config::ConfigError naming env.options.<key>, the plugin and `source` for an unknown
  /// key, a value of the wrong type or one its rule refuses.
  std::any parse_options(const config::OptionMap& options, const std::string& source) const;
  /// Every option of `parsed` (from parse_options) as text, defaults included.
  config::OptionMap values(const std::any& parsed) const;
  /// The environment of `options` (its name checked, its options parsed). Throws
  /// config::ConfigError as above, and what the plugin's factory throws.
  std::unique_ptr<Environment> make(const EnvOptions& options) const;
  /// True for a continuous environment's plugin (GFN_CONTINUOUS_ENVIRONMENT_PLUGIN).
  bool continuous() const;
  /// The continuous environment of `options` with its policies (as make). Throws
  /// config::ConfigError as above, and what the plugin's factory throws. make() refuses a
  /// continuous plugin and make_continuous() a discrete one, naming the file.
  ContinuousParts make_continuous(const EnvOptions& options) const;
  /// Throws config::ConfigError unless env.name is the plugin's environment.
  void check_name(const std::string& env_name, const std::string& source) const;

 private:
  std::string path_;
  const EnvironmentPluginInfo* info_;
};

/// The plugin at `path` (relative to the working directory), loaded and checked once per
/// process. Throws config::ConfigError naming the file for a missing file, a dlopen error
/// (dlerror's text), a missing entry point, an ABI version or build id other than this
/// program's (both values named), or a name of a built-in environment.
const EnvironmentPlugin& load_environment_plugin(const std::string& path);

/// If env.plugin is set: loads it, checks env.name and env.options (`source`: where the
/// configuration came from, for messages) and sets env.options to every option's value.
/// Without env.plugin: nothing. Throws config::ConfigError.
void resolve_environment_plugin(EnvOptions& env, const std::string& source);

/// True if `env` names a continuous environment: a catalogued one (catalog.h
/// is_continuous_environment) or, with env.plugin, a continuous plugin (loads it; throws
/// config::ConfigError as load_environment_plugin).
bool is_continuous(const EnvOptions& env);

}  // namespace gfn::core
