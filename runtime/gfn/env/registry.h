#pragma once
// Environments by name, for YAML (`env.name: hypergrid | discrete_ebm | bit_sequence |
// non_autoregressive_bit_sequence | line | <yours>`): make_environment(options) builds the
// environment EnvOptions::name names from its own options (EnvOptions::get<ItsOptions>()).
//
// Registering an environment (docs/environments.md walks through it):
//  1. Its options: a struct and its fields (<name>_options.h / .cc, no LibTorch).
//  2. In your one .cc file, implement a core::Environment subclass and define its factory
//     with the macro below:
//        GFN_DEFINE_ENVIRONMENT(my_env) {
//          return std::make_unique<MyEnv>(options.get<MyEnvOptions>());
//        }
//     (`options` is the const core::EnvOptions& parameter the macro declares).
//  3. Add `X(my_env, MyEnvOptions)` to GFN_ENVIRONMENT_LIST (environment_list.h) and the
//     files to runtime/gfn/env/CMakeLists.txt.
// The name in YAML is the macro's identifier.
//
// Why an explicit list rather than self-registration by a static object in each .cc:
// the environments are in a static archive, and the linker pulls an archive member only
// to resolve an undefined symbol. A .cc whose only hook is a static registrar object is
// referenced by nobody, so it is silently dropped and its environment would be
// "unknown" at run time with no build error. --whole-archive or an OBJECT library
// avoid that but must be repeated on every executable's link line. The list references
// every factory, so every listed environment is linked, in every binary.
//
// Thread-safety: the registry is immutable (a function-local static built once).

#include <memory>
#include <string>
#include <vector>

#include "runtime/gfn/env/env_options.h"

namespace gfn::core {

class Environment;

using EnvironmentFactory = std::unique_ptr<Environment> (*)(const EnvOptions& options);

/// Builds the environment options.name names. Throws std::invalid_argument naming
/// env.name and listing the registered names for an unknown name (saying so for a
/// continuous environment's name: continuous_registry.h builds those), and whatever the
/// environment's constructor throws for bad options (std::invalid_argument naming the
/// field). With options.plugin set, the plugin's environment (plugin_loader.h; throws
/// config::ConfigError for a plugin that does not load or options it refuses). With
/// options.reward_model set, wrapped by with_reward_model (reward_model.h; throws
/// config::ConfigError for a module that cannot serve). With options.python set, the Python
/// environment, and with options.reward_python, its Python reward (PythonSupport).
std::unique_ptr<Environment> make_environment(const EnvOptions& options);

/// make_environment without the reward model.
std::unique_ptr<Environment> make_base_environment(const EnvOptions& options);

/// What the embedded Python provides (runtime/python/python_environment.h, whose install()
/// sets it): the environment of env.python and the wrapper of env.reward_python. A program
/// that does not link the Python library leaves it empty, and make_environment then refuses
/// env.python and env.reward_python with a config::ConfigError. Set once at start-up, before
/// any environment is built (not thread-safe).
struct PythonSupport {
  EnvironmentFactory make = nullptr;
  std::unique_ptr<Environment> (*with_reward)(std::unique_ptr<Environment> inner,
                                              const EnvOptions& options) = nullptr;
};
void set_python_support(PythonSupport support);

/// The registered names, sorted.
std::vector<std::string> environment_names();

/// True if `name` is registered.
bool has_environment(const std::string& name);

}  // namespace gfn::core

/// Defines the factory of environment `ident` (its YAML name): the body that follows
/// receives `const gfn::core::EnvOptions& options` and returns the environment.
#define GFN_DEFINE_ENVIRONMENT(ident)                                     \
  std::unique_ptr<::gfn::core::Environment> gfn_make_environment_##ident( \
      const ::gfn::core::EnvOptions& options)
