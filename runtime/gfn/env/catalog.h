#pragma once
// The catalog of the built-in environments' options (GFN_ENVIRONMENT_LIST,
// environment_list.h): for each, its env.name and the fields of its options struct, which
// the experiment's schema binds to the `env:` section (roles/experiment/experiment.cc).
// No LibTorch. Thread-safety: the catalog is immutable once built (a function-local
// static).

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

/// The built-in environments, in GFN_ENVIRONMENT_LIST order, then
/// GFN_CONTINUOUS_ENVIRONMENT_LIST's.
const std::vector<EnvironmentEntry>& environment_catalog();

/// Every catalogued env.name, in catalog order.
std::vector<std::string> catalogued_environment_names();

/// True if `name` is a catalogued continuous environment (GFN_CONTINUOUS_ENVIRONMENT_LIST:
/// "box"), trained by the continuous learner (runtime/gfn/continuous/learner.h).
bool is_continuous_environment(const std::string& name);

}  // namespace gfn::core
