#pragma once
// Environment plugins: an environment built out of tree, as a shared library, against the
// installed package (docs/environments.md "Plugins"; examples/custom_env/). The experiment
// names it with
//
//   env: {name: my_env, plugin: path/to/libmy_env.so, options: {size: 6}}
//
// and gfn-train loads it on every rank before any communication
// (resolve_environment_plugin, plugin_loader.h). A plugin is one .cc file:
//
//   #include "runtime/gfn/env/plugin.h"
//   struct MyEnvOptions { int size = 4; };                      // env.options, with defaults
//   const gfn::config::Fields<MyEnvOptions>& my_env_fields() {  // its schema (fields.h)
//     static const auto fields = gfn::config::Fields<MyEnvOptions>().add(
//         "size", &MyEnvOptions::size, "Number of states.", gfn::config::at_least(2));
//     return fields;
//   }
//   class MyEnv final : public gfn::core::Environment { ... };  // environment.h's contract
//   GFN_ENVIRONMENT_PLUGIN(my_env, MyEnvOptions, my_env_fields()) {
//     return std::make_unique<MyEnv>(options);  // options: const MyEnvOptions&
//   }
//
// built with the CMake package's `gfn_add_environment_plugin(my_env my_env.cc)`.
//
// A continuous environment (a ContinuousEnvironment, continuous_environment.h, with its forward
// and backward ContinuousPolicy, runtime/gfn/continuous/policy.h) is a plugin the same way,
// with GFN_CONTINUOUS_ENVIRONMENT_PLUGIN, whose body returns the ContinuousParts
// (continuous_registry.h) instead; gfn-train then trains it with the ContinuousLearner
// (examples/continuous_env/).
//
// ABI. A plugin runs inside gfn-train: it shares its C++ types (Environment's vtable,
// at::Tensor, std::string, config::Field), so it must be built by the same compiler family,
// standard library ABI and LibTorch as the program, against headers of the same plugin ABI
// version. The macro exports two C functions the loader calls before anything else:
// gfn_environment_plugin_abi_version() (kEnvironmentPluginAbiVersion) and
// gfn_environment_plugin_build_id() (kEnvironmentPluginBuildId); a mismatch of either is
// refused naming the file and both values. kEnvironmentPluginAbiVersion is bumped whenever
// Environment, ContinuousEnvironment, ContinuousPolicy, Preprocessor, config::Field or
// EnvironmentPluginInfo change layout.
//
// Symbols. The plugin leaves gfn-runtime's own functions (Environment's non-virtual
// members, the preprocessors) undefined; the programs that load plugins export them
// (CMake ENABLE_EXPORTS). LibTorch, yaml-cpp and fmt are shared libraries both link.
// Thread-safety: the factory may be called from any thread, once per environment built;
// the environment it returns must follow environment.h (immutable, const members callable
// concurrently). A loaded plugin is never unloaded.

#include <torch/csrc/api/include/torch/version.h>

#include <any>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "runtime/config/fields.h"
#include "runtime/gfn/env/continuous_registry.h"
#include "runtime/gfn/env/environment.h"
#include "runtime/gfn/preprocessors.h"

namespace gfn::core {

/// Bumped when a type shared with plugins changes layout (see above).
inline constexpr int kEnvironmentPluginAbiVersion = 4;

#define GFN_PLUGIN_STRINGIFY_(x) #x
#define GFN_PLUGIN_STRINGIFY(x) GFN_PLUGIN_STRINGIFY_(x)
#if defined(__clang__)
#define GFN_PLUGIN_COMPILER "clang " GFN_PLUGIN_STRINGIFY(__clang_major__)
#elif defined(__GNUC__)
#define GFN_PLUGIN_COMPILER "gcc " GFN_PLUGIN_STRINGIFY(__GNUC__)
#else
#define GFN_PLUGIN_COMPILER "unknown compiler"
#endif
#if defined(_GLIBCXX_USE_CXX11_ABI)
#define GFN_PLUGIN_STDLIB "libstdc++ cxx11-abi " GFN_PLUGIN_STRINGIFY(_GLIBCXX_USE_CXX11_ABI)
#else
#define GFN_PLUGIN_STDLIB "other standard library"
#endif

/// What the program and a plugin must agree on besides the ABI version:
/// "LibTorch 1.13.0, gcc 12, libstdc++ cxx11-abi 1" for this build.
inline constexpr const char* kEnvironmentPluginBuildId =
    "LibTorch " TORCH_VERSION ", " GFN_PLUGIN_COMPILER ", " GFN_PLUGIN_STDLIB;

/// What GFN_ENVIRONMENT_PLUGIN exports (gfn_environment_plugin()); read only after the
/// ABI version and build id matched.
struct EnvironmentPluginInfo {
  std::string name;                    ///< env.name of the environment
  std::vector<config::Field> fields;   ///< the keys of env.options (its schema)
  std::any (*make_default)();          ///< its options struct with defaults, in a std::any
  void* (*object)(std::any& options);  ///< the struct inside such a std::any
  /// Builds the environment from options made by make_default() (then assigned, checked);
  /// empty for a continuous environment.
  std::function<std::unique_ptr<Environment>(const std::any& options)> make;
  /// A continuous environment's factory (GFN_CONTINUOUS_ENVIRONMENT_PLUGIN); else empty.
  std::function<ContinuousParts(const std::any& options)> make_continuous;
};

namespace plugin_detail {

/// The record's name, schema and options struct, shared by both kinds of plugin.
template <class Options>
EnvironmentPluginInfo base_info(const char* name, const config::Fields<Options>& fields) {
  EnvironmentPluginInfo info;
  info.name = name;
  info.fields = fields.fields();
  info.make_default = [] { return std::any(Options{}); };
  info.object = [](std::any& options) -> void* { return std::any_cast<Options>(&options); };
  return info;
}

template <class Options>
EnvironmentPluginInfo make_info(const char* name, const config::Fields<Options>& fields,
                                std::unique_ptr<Environment> (*factory)(const Options& options)) {
  EnvironmentPluginInfo info = base_info(name, fields);
  info.make = [factory](const std::any& options) {
    return factory(std::any_cast<const Options&>(options));
  };
  return info;
}

template <class Options>
EnvironmentPluginInfo make_continuous_info(const char* name, const config::Fields<Options>& fields,
                                           ContinuousParts (*factory)(const Options& options)) {
  EnvironmentPluginInfo info = base_info(name, fields);
  info.make_continuous = [factory](const std::any& options) {
    return factory(std::any_cast<const Options&>(options));
  };
  return info;
}

}  // namespace plugin_detail
}  // namespace gfn::core

/// What both macros below define: the factory `gfn_plugin_make_<ident>` returning `Result`
/// (declared, its body follows the macro), the ABI version and build id (checked first), and
/// the record `make_record` builds from it.
#define GFN_PLUGIN_DEFINE_(ident, Options, fields_expr, Result, make_record)                   \
  static Result gfn_plugin_make_##ident(const Options& options);                               \
  extern "C" __attribute__((visibility("default"))) int gfn_environment_plugin_abi_version() { \
    return ::gfn::core::kEnvironmentPluginAbiVersion;                                          \
  }                                                                                            \
  extern "C" __attribute__((visibility("default"))) const char*                                \
  gfn_environment_plugin_build_id() {                                                          \
    return ::gfn::core::kEnvironmentPluginBuildId;                                             \
  }                                                                                            \
  extern "C" __attribute__((visibility("default"))) const ::gfn::core::EnvironmentPluginInfo*  \
  gfn_environment_plugin() {                                                                   \
    static const ::gfn::core::EnvironmentPluginInfo info =                                     \
        ::gfn::core::plugin_detail::make_record<Options>(#ident, fields_expr,                  \
                                                         &gfn_plugin_make_##ident);            \
    return &info;                                                                              \
  }                                                                                            \
  static Result gfn_plugin_make_##ident(const Options& options)

/// Defines the plugin's environment `ident` (its env.name), whose options struct is
/// `Options` with the fields `fields_expr` (a const config::Fields<Options>&). The body
/// that follows receives `const Options& options` and returns the environment; it may throw
/// std::invalid_argument for bad options (the message names the option).
#define GFN_ENVIRONMENT_PLUGIN(ident, Options, fields_expr)                                  \
  GFN_PLUGIN_DEFINE_(ident, Options, fields_expr, std::unique_ptr<::gfn::core::Environment>, \
                     make_info)

/// The same for a continuous environment: the body receives `const Options& options` and
/// returns its ContinuousParts (the environment, its forward and backward policies and the
/// fixed backward policy's output, continuous_registry.h).
#define GFN_CONTINUOUS_ENVIRONMENT_PLUGIN(ident, Options, fields_expr)          \
  GFN_PLUGIN_DEFINE_(ident, Options, fields_expr, ::gfn::core::ContinuousParts, \
                     make_continuous_info)
