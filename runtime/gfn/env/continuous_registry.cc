#include "runtime/gfn/env/continuous_registry.h"

#include <stdexcept>
#include <string>

#include "runtime/gfn/env/box.h"
#include "runtime/gfn/env/box_polar.h"
#include "runtime/gfn/env/box_polar_policies.h"
#include "runtime/gfn/env/box_policies.h"
#include "runtime/gfn/env/catalog.h"
#include "runtime/gfn/env/diffusion.h"
#include "runtime/gfn/env/diffusion_options.h"
#include "runtime/gfn/env/diffusion_policies.h"
#include "runtime/gfn/env/line.h"
#include "runtime/gfn/env/line_options.h"
#include "runtime/gfn/env/line_policies.h"
#include "runtime/gfn/env/plugin_loader.h"

namespace gfn::core {
namespace {

template <class O>
void check_concentrations(const O& o) {
  if (o.max_concentration < o.min_concentration) {
    throw std::invalid_argument("env.max_concentration: must be >= env.min_concentration (" +
                                std::to_string(o.min_concentration) + "), got " +
                                std::to_string(o.max_concentration));
  }
}

ContinuousParts make_box(const BoxEnvOptions& o) {
  check_concentrations(o);
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

// torchgfn's train_box.py: PF with the s0 mixture as constant outputs; the fixed PB
// (BoxPBUniform) outputs concentrations of 1 and equal logits, read without normalisation.
ContinuousParts make_box_polar(const BoxPolarEnvOptions& o, bool fixed_pb) {
  check_concentrations(o);
  ContinuousParts parts;
  auto box = std::make_unique<BoxPolar>(o.box());
  BoxPolarPolicyOptions policy;
  policy.n_components = o.n_components;
  policy.n_components_s0 = o.n_components_s0;
  policy.concentration = {o.min_concentration, o.max_concentration};
  auto pf = std::make_unique<BoxPolarForwardPolicy>(*box, policy);
  parts.pf_constant_outputs = static_cast<int>(pf->constant_outputs());
  parts.pf = std::move(pf);
  policy.skip_normalization = fixed_pb;
  parts.pb = std::make_unique<BoxPolarBackwardPolicy>(*box, policy);
  parts.fixed_pb_output = 1.0;
  parts.env = std::move(box);
  return parts;
}

// torchgfn's train_line.py: Gaussian PF and PB (learned; model.uniform_pb has no meaning).
ContinuousParts make_line(const LineEnvOptions& o, bool fixed_pb) {
  if (fixed_pb) {
    throw std::invalid_argument(
        "model.uniform_pb: line has no fixed backward policy (its PB is learned, as "
        "train_line.py's)");
  }
  ContinuousParts parts;
  auto line = std::make_unique<Line>(line_options(o));
  const LinePolicyOptions policy{o.policy_std_min, o.policy_std_max};
  parts.pf = std::make_unique<LineForwardPolicy>(*line, policy);
  parts.pb = std::make_unique<LineBackwardPolicy>(*line, policy);
  parts.env = std::move(line);
  return parts;
}

// torchgfn's train_diffusion_sampler.py: the pinned-Brownian-motion PF on a PISGradNet
// (model.hidden_dim, model.n_hidden: its hidden_dim and joint_layers) and the fixed bridge PB.
ContinuousParts make_diffusion(const DiffusionEnvOptions& o, const ModelShape& model) {
  ContinuousParts parts;
  auto env = std::make_unique<DiffusionSampling>(o);
  parts.pf = std::make_unique<DiffusionForwardPolicy>(*env);
  parts.pb = std::make_unique<DiffusionBackwardPolicy>(*env);
  parts.fixed_pb_output = 0.0;  // torchgfn's zero outputs (unread by the bridge)
  parts.pb_fixed = true;        // whatever model.uniform_pb says
  parts.pis_pf = true;
  parts.pis.x_dim = env->x_dim();
  parts.pis.harmonics_dim = o.harmonics_dim;
  parts.pis.emb_dim = o.emb_dim;
  parts.pis.hidden_dim = model.hidden_dim;
  parts.pis.joint_layers = model.n_hidden;
  parts.pis.zero_init = o.zero_init;
  parts.pis.langevin = o.langevin;
  parts.pis.lgv_layers = o.lgv_layers;
  parts.policy_input_dim = env->policy_input_dim();
  parts.env = std::move(env);
  return parts;
}

}  // namespace

ContinuousParts make_continuous_environment(const EnvOptions& options, bool fixed_pb) {
  return make_continuous_environment(options, ModelShape{fixed_pb});
}

ContinuousParts make_continuous_environment(const EnvOptions& options, const ModelShape& model) {
  const bool fixed_pb = model.uniform_pb;
  if (!options.reward_model.empty()) {
    throw std::invalid_argument("env.reward_model: continuous environments do not support it yet");
  }
  if (!options.plugin.empty())
    return load_environment_plugin(options.plugin).make_continuous(options);
  if (options.name == "box") return make_box(options.get<BoxEnvOptions>());
  if (options.name == "line") return make_line(options.get<LineEnvOptions>(), fixed_pb);
  if (options.name == "diffusion") return make_diffusion(options.get<DiffusionEnvOptions>(), model);
  if (options.name == "box_polar") {
    return make_box_polar(options.get<BoxPolarEnvOptions>(), fixed_pb);
  }
  std::string known;
  for (const auto& name : catalogued_environment_names()) {
    if (is_continuous_environment(name)) known += (known.empty() ? "" : ", ") + name;
  }
  throw std::invalid_argument("env.name: \"" + options.name +
                              "\" is not a continuous environment (continuous: " + known + ")");
}

}  // namespace gfn::core
