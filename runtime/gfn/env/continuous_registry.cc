#include "runtime/gfn/env/continuous_registry.h"

#include <stdexcept>
#include <string>

#include "runtime/gfn/env/box.h"
#include "runtime/gfn/env/box_policies.h"
#include "runtime/gfn/env/catalog.h"
#include "runtime/gfn/env/plugin_loader.h"

namespace gfn::core {
namespace {

ContinuousParts make_box(const BoxEnvOptions& o) {
  if (o.max_concentration < o.min_concentration) {
    throw std::invalid_argument("env.max_concentration: must be >= env.min_concentration (" +
                                std::to_string(o.min_concentration) + "), got " +
                                std::to_string(o.max_concentration));
  }
  ContinuousParts parts;
  auto box = std::make_unique<Box>(o.box());
  BoxPolicyOptions policy;
  policy.n_components = o.n_components;
  policy.concentration = {o.min_concentration, o.max_concentration};
  parts.pf = std::make_unique<BoxForwardPolicy>(*box, policy);
  parts.pb = std::make_unique<BoxBackwardPolicy>(*box, policy);
  parts.fixed_pb_output = kFixedBackwardOutput;
  parts.env = std::move(box);
  return parts;
}

}  // namespace

ContinuousParts make_continuous_environment(const EnvOptions& options) {
  if (!options.reward_model.empty()) {
    throw std::invalid_argument("env.reward_model: continuous environments do not support it yet");
  }
  if (!options.plugin.empty())
    return load_environment_plugin(options.plugin).make_continuous(options);
  if (options.name == "box") return make_box(options.get<BoxEnvOptions>());
  std::string known;
  for (const auto& name : catalogued_environment_names()) {
    if (is_continuous_environment(name)) known += (known.empty() ? "" : ", ") + name;
  }
  throw std::invalid_argument("env.name: \"" + options.name +
                              "\" is not a continuous environment (continuous: " + known + ")");
}

}  // namespace gfn::core
