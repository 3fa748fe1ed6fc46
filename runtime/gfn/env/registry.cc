#include "runtime/gfn/env/registry.h"

#include <algorithm>
#include <map>
#include <stdexcept>

#include "runtime/config/schema.h"
#include "runtime/gfn/env/catalog.h"
#include "runtime/gfn/env/environment.h"
#include "runtime/gfn/env/plugin_loader.h"
#include "runtime/gfn/env/reward_model.h"

#include "runtime/gfn/env/environment_list.h"

// The factories of the environments of GFN_ENVIRONMENT_LIST, each defined by
// GFN_DEFINE_ENVIRONMENT in its .cc (registry.h explains why this list is explicit).
#define GFN_DECLARE_ENVIRONMENT_FACTORY(ident, Options)                   \
  std::unique_ptr<::gfn::core::Environment> gfn_make_environment_##ident( \
      const ::gfn::core::EnvOptions& options);
GFN_ENVIRONMENT_LIST(GFN_DECLARE_ENVIRONMENT_FACTORY)
#undef GFN_DECLARE_ENVIRONMENT_FACTORY

namespace gfn::core {
namespace {

const std::map<std::string, EnvironmentFactory>& registry() {
#define GFN_REGISTRY_ENTRY(ident, Options) {#ident, &::gfn_make_environment_##ident},
  static const std::map<std::string, EnvironmentFactory> kRegistry = {
      GFN_ENVIRONMENT_LIST(GFN_REGISTRY_ENTRY)};
#undef GFN_REGISTRY_ENTRY
  return kRegistry;
}

PythonSupport& python_support() {
  static PythonSupport support;
  return support;
}

/// The installed Python support, or a ConfigError naming `key` in a program without it.
const PythonSupport& require_python(const char* key) {
  if (python_support().make == nullptr) {
    throw config::ConfigError(std::string(key) +
                              ": this program has no embedded Python (gfn-train has; a program "
                              "links gfn_python and calls gfn::python::install())");
  }
  return python_support();
}

}  // namespace

void set_python_support(PythonSupport support) { python_support() = support; }

std::vector<std::string> environment_names() {
  std::vector<std::string> names;
  for (const auto& kv : registry()) names.push_back(kv.first);
  return names;
}

bool has_environment(const std::string& name) { return registry().count(name) > 0; }

std::unique_ptr<Environment> make_environment(const EnvOptions& options) {
  std::unique_ptr<Environment> env = make_base_environment(options);
  if (!options.reward_model.empty()) env = with_reward_model(std::move(env), options.reward_model);
  if (!options.reward_python.empty()) {
    env = require_python("env.reward_python").with_reward(std::move(env), options);
  }
  return env;
}

std::unique_ptr<Environment> make_base_environment(const EnvOptions& options) {
  if (!options.python.empty()) return require_python("env.python").make(options);
  if (!options.plugin.empty()) return load_environment_plugin(options.plugin).make(options);
  const auto it = registry().find(options.name);
  if (it == registry().end() && is_continuous_environment(options.name)) {
    throw std::invalid_argument("env.name: \"" + options.name +
                                "\" is a continuous environment (make_continuous_environment, "
                                "runtime/gfn/env/continuous_registry.h), not a discrete one");
  }
  if (it == registry().end()) {
    std::string known;
    for (const auto& n : environment_names()) known += (known.empty() ? "" : ", ") + n;
    throw std::invalid_argument("env.name: unknown environment \"" + options.name +
                                "\" (known: " + known + ")");
  }
  std::unique_ptr<Environment> env = it->second(options);
  env->record_options(options.option_values(options.name));
  return env;
}

}  // namespace gfn::core
