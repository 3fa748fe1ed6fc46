#pragma once
// The catalogs of the built-in environments' options (GFN_ENVIRONMENT_LIST and
// GFN_CONTINUOUS_ENVIRONMENT_LIST, environment_list.h): for each, its env.name and the fields
// of its options struct, which the experiment's schema binds to the `env:` section
// (roles/experiment/experiment.cc). No LibTorch. Thread-safety: the catalogs are immutable
// once built (function-local statics).

#include <any>
#include <string>
#include <utility>
#include <vector>

#include "runtime/config/fields.h"

namespace gfn::core {

/// One environment of the catalog: its env.name and its options' fields.
struct EnvironmentEntry {
  std::string name;
  std::vector<config::Field> fields;
  std::vector<std::pair<std::string, std::string>> renamed;
  std::any (*make_default)();          ///< the options struct with its defaults
  void* (*object)(std::any& options);  ///< the struct inside make_default()'s result
  bool continuous = false;  ///< of GFN_CONTINUOUS_ENVIRONMENT_LIST (a ContinuousEnvironment)
};

/// The built-in discrete environments (make_environment, registry.h), in GFN_ENVIRONMENT_LIST
/// order.
const std::vector<EnvironmentEntry>& environment_catalog();

/// The built-in continuous environments (make_continuous_environment, continuous_registry.h),
/// in GFN_CONTINUOUS_ENVIRONMENT_LIST order.
const std::vector<EnvironmentEntry>& continuous_environment_catalog();

/// Every catalogued env.name, the discrete catalog's then the continuous one's.
std::vector<std::string> catalogued_environment_names();

/// True if `name` is a catalogued continuous environment (GFN_CONTINUOUS_ENVIRONMENT_LIST:
/// "box", "box_polar"), trained by the continuous learner (runtime/gfn/continuous/learner.h).
bool is_continuous_environment(const std::string& name);

}  // namespace gfn::core
