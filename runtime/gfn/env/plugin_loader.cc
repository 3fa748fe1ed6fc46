#include "runtime/gfn/env/plugin_loader.h"

#include <dlfcn.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <map>
#include <mutex>
#include <vector>

#include "runtime/config/schema.h"
#include "runtime/gfn/env/catalog.h"
#include "runtime/gfn/env/plugin.h"

namespace gfn::core {
namespace {

using config::ConfigError;

/// The address of entry point `symbol` of `handle`, or a ConfigError naming the file.
void* entry_point(void* handle, const char* symbol, const std::string& path) {
  void* address = dlsym(handle, symbol);
  if (address == nullptr) {
    throw ConfigError(fmt::format(
        "env.plugin '{}': not an environment plugin: it has no entry point {} (define the "
        "environment with GFN_ENVIRONMENT_PLUGIN, runtime/gfn/env/plugin.h)",
        path, symbol));
  }
  return address;
}

/// Checks the ABI version and build id before anything else of the plugin is used.
void check_abi(void* handle, const std::string& path) {
  const auto abi = reinterpret_cast<int (*)()>(
      entry_point(handle, "gfn_environment_plugin_abi_version", path))();
  if (abi != kEnvironmentPluginAbiVersion) {
    throw ConfigError(fmt::format(
        "env.plugin '{}': plugin ABI version {}, but this program has version {}: rebuild the "
        "plugin against this installation's headers",
        path, abi, kEnvironmentPluginAbiVersion));
  }
  const std::string build_id = reinterpret_cast<const char* (*)()>(
      entry_point(handle, "gfn_environment_plugin_build_id", path))();
  if (build_id != kEnvironmentPluginBuildId) {
    throw ConfigError(fmt::format(
        "env.plugin '{}': built with {}, but this program with {}: rebuild the plugin with the "
        "same compiler and LibTorch",
        path, build_id, kEnvironmentPluginBuildId));
  }
}

const EnvironmentPluginInfo* open_plugin(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    throw ConfigError(fmt::format("env.plugin '{}': no such file", path));
  }
  // RTLD_NOW: an undefined symbol is reported here, not at the first call.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    throw ConfigError(fmt::format("env.plugin '{}': cannot load it: {}", path, dlerror()));
  }
  try {
    check_abi(handle, path);
    const auto* info = reinterpret_cast<const EnvironmentPluginInfo* (*)()>(
        entry_point(handle, "gfn_environment_plugin", path))();
    const auto builtin = catalogued_environment_names();
    if (std::find(builtin.begin(), builtin.end(), info->name) != builtin.end()) {
      throw ConfigError(fmt::format(
          "env.plugin '{}': its environment '{}' has the name of a built-in environment; "
          "rename it",
          path, info->name));
    }
    return info;
  } catch (...) {
    dlclose(handle);
    throw;
  }
}

const config::Field* find_field(const EnvironmentPluginInfo& info, const std::string& key) {
  for (const auto& f : info.fields) {
    if (f.name == key) return &f;
  }
  return nullptr;
}

std::vector<std::string> field_names(const EnvironmentPluginInfo& info) {
  std::vector<std::string> names;
  for (const auto& f : info.fields) names.push_back(f.name);
  return names;
}

}  // namespace

const std::string& EnvironmentPlugin::name() const { return info_->name; }

std::any EnvironmentPlugin::parse_options(const config::OptionMap& options,
                                          const std::string& source) const {
  std::any parsed = info_->make_default();
  void* object = info_->object(parsed);
  for (const auto& [key, value] : options) {
    const config::Field* field = find_field(*info_, key);
    if (field == nullptr) {
      throw ConfigError(fmt::format(
          "{}: unknown key 'env.options.{}' of environment '{}' (plugin '{}'; its keys: {})",
          source, key, info_->name, path_, fmt::join(field_names(*info_), ", ")));
    }
    if (!field->assign(object, YAML::Node(value))) {
      throw ConfigError(fmt::format("{}: env.options.{} must be {}, got '{}' (plugin '{}')", source,
                                    key, field->type, value, path_));
    }
  }
  for (const auto& field : info_->fields) {
    const std::string problem = field.problem(object);
    if (problem.empty()) continue;
    throw ConfigError(fmt::format("{}: env.options.{} = {} is invalid: {} (plugin '{}')", source,
                                  field.name, field.show(object), problem, path_));
  }
  return parsed;
}

config::OptionMap EnvironmentPlugin::values(const std::any& parsed) const {
  std::any copy = parsed;
  return config::field_values(info_->fields, info_->object(copy));
}

void EnvironmentPlugin::check_name(const std::string& env_name, const std::string& source) const {
  if (env_name == info_->name) return;
  throw ConfigError(fmt::format(
      "{}: env.name = {} is invalid: the plugin '{}' provides the environment '{}' (write "
      "env.name: {})",
      source, env_name, path_, info_->name, info_->name));
}

bool EnvironmentPlugin::continuous() const { return static_cast<bool>(info_->make_continuous); }

std::unique_ptr<Environment> EnvironmentPlugin::make(const EnvOptions& options) const {
  if (continuous()) {
    throw ConfigError(fmt::format(
        "env.plugin '{}': its environment '{}' is continuous (a ContinuousEnvironment); the "
        "discrete engine cannot build it",
        path_, info_->name));
  }
  check_name(options.name, "configuration");
  const std::any parsed = parse_options(options.options, "configuration");
  std::unique_ptr<Environment> env = info_->make(parsed);
  env->record_options(values(parsed));
  return env;
}

ContinuousParts EnvironmentPlugin::make_continuous(const EnvOptions& options) const {
  if (!continuous()) {
    throw ConfigError(fmt::format(
        "env.plugin '{}': its environment '{}' is discrete (GFN_ENVIRONMENT_PLUGIN), not "
        "continuous",
        path_, info_->name));
  }
  check_name(options.name, "configuration");
  return info_->make_continuous(parse_options(options.options, "configuration"));
}

const EnvironmentPlugin& load_environment_plugin(const std::string& path) {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<EnvironmentPlugin>> loaded;
  std::error_code ec;
  std::string absolute = std::filesystem::absolute(path, ec).lexically_normal().string();
  if (ec) absolute = path;
  const std::lock_guard<std::mutex> lock(mutex);
  auto& plugin = loaded[absolute];
  if (!plugin) plugin = std::make_unique<EnvironmentPlugin>(absolute, open_plugin(absolute));
  return *plugin;
}

void resolve_environment_plugin(EnvOptions& env, const std::string& source) {
  if (env.plugin.empty()) return;
  const EnvironmentPlugin& plugin = load_environment_plugin(env.plugin);
  plugin.check_name(env.name, source);
  env.options = plugin.values(plugin.parse_options(env.options, source));
}

bool is_continuous(const EnvOptions& env) {
  if (env.plugin.empty()) return is_continuous_environment(env.name);
  return load_environment_plugin(env.plugin).continuous();
}

}  // namespace gfn::core
