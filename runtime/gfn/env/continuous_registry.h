#pragma once
// Continuous environments by name (env.name of GFN_CONTINUOUS_ENVIRONMENT_LIST,
// environment_list.h: "box", "box_polar", "line"): the environment with its forward and backward
// policies (runtime/gfn/continuous/policy.h), built from its env: keys (EnvOptions::get). The
// discrete environments are registry.h's; make_environment refuses a continuous name, and this one
// a discrete name, each saying which kind the name is.
//
// With env.plugin, the plugin's continuous environment (plugin.h, GFN_CONTINUOUS_ENVIRONMENT_
// PLUGIN; plugin_loader.h).
//
// Thread-safety: pure factory functions. Errors: std::invalid_argument naming the env.* key
// for an unknown name, options the environment or its policies refuse, or an option
// continuous environments do not support (env.reward_model); config::ConfigError from a
// plugin.

#include <memory>

#include "runtime/gfn/continuous/pis_network.h"
#include "runtime/gfn/continuous/policy.h"
#include "runtime/gfn/env/continuous_environment.h"
#include "runtime/gfn/env/env_options.h"

namespace gfn::core {

/// A continuous environment and the policies its networks' outputs are read by.
struct ContinuousParts {
  std::unique_ptr<ContinuousEnvironment> env;
  std::unique_ptr<ContinuousPolicy> pf;  ///< forward policy (exit included)
  std::unique_ptr<ContinuousPolicy> pb;  ///< backward policy (back to source included)
  /// The constant raw output of the fixed backward policy (model.uniform_pb: torchgfn's
  /// UniformModule fill value; Box: kFixedBackwardOutput of box_policies.h).
  double fixed_pb_output = 1.0;
  /// PF's trailing outputs that do not depend on the state (ContinuousModelOptions::
  /// pf_constant_outputs; box_polar: its s0 distribution's 5 K0 parameters), else 0.
  int pf_constant_outputs = 0;
  /// The PB has no network whatever model.uniform_pb says (diffusion's fixed bridge).
  bool pb_fixed = false;
  /// PF is a PISGradNet of these options (ContinuousModelOptions::pis_pf; diffusion).
  bool pis_pf = false;
  PisNetworkOptions pis;
  /// Width of env->policy_inputs when it differs from env->dim() (diffusion: d + 1 or
  /// 2 d + 1 for states of width d + 1); 0: env->dim().
  std::int64_t policy_input_dim = 0;
};

/// What of model: an environment's networks read (diffusion's PISGradNet: its hidden width and
/// joint layers).
struct ModelShape {
  bool uniform_pb = false;  ///< model.uniform_pb
  int hidden_dim = 64;      ///< model.hidden_dim
  int n_hidden = 2;         ///< model.n_hidden
};

/// Builds the continuous environment options.name names, with its policies. fixed_pb: the
/// backward policy reads the constant outputs fixed_pb_output (model.uniform_pb; box_polar's
/// then are the concentrations themselves, torchgfn's BoxPBUniform).
ContinuousParts make_continuous_environment(const EnvOptions& options, bool fixed_pb = false);
/// The same with the model's shape (diffusion builds its PISGradNet options from it).
ContinuousParts make_continuous_environment(const EnvOptions& options, const ModelShape& model);

}  // namespace gfn::core
