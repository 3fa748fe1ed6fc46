#include "roles/trainer/model_export.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <torch/nn/module.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "runtime/gfn/continuous/learner.h"
#include "runtime/gfn/env/box_options.h"
#include "runtime/gfn/env/environment.h"
#include "runtime/gfn/estimators.h"
#include "runtime/gfn/learner.h"
#include "runtime/gfn/preprocessors.h"
#include "runtime/output/run_output.h"
#include "runtime/output/torchgfn_export.h"

namespace gfn::roles {
namespace {

// torchgfn's MLP(input_dim, output_dim, hidden_dim, n_hidden_layers): its trunk has
// n_hidden_layers + 1 Linear layers, ours model.n_hidden (docs/results/quality.md "Quality
// reference").
nlohmann::json mlp_json(std::int64_t input_dim, std::int64_t output_dim,
                        const core::ModelOptions& m) {
  return {{"class", "gfn.utils.modules.MLP"},  {"input_dim", input_dim},
          {"output_dim", output_dim},          {"hidden_dim", m.hidden_dim},
          {"n_hidden_layers", m.n_hidden - 1}, {"activation_fn", "relu"}};
}

// The environment's options as JSON values: numbers, booleans and lists as such, anything
// else (names, "inf") as the string the configuration writes.
nlohmann::json options_json(const config::OptionMap& options) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [key, text] : options) {
    const nlohmann::json value = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    const bool typed = value.is_number() || value.is_boolean() || value.is_array();
    out[key] = typed ? value : nlohmann::json(text);
  }
  return out;
}

// The sidecar's entries every export has: the files, the keys, the options and logZ.
nlohmann::json sidecar_common(const output::NamedTensors& entries,
                              const roles::ExperimentConfig& config, double log_z) {
  nlohmann::json keys = nlohmann::json::array();
  for (const auto& e : entries) keys.push_back(e.first);
  return {{"state_dict", "model_state_dict.pt"},
          {"check", "model_check.pt"},
          {"format", "dict of float32 tensors, torch::pickle_save (Python: torch.load)"},
          {"keys", keys},
          {"tied", config.model.tied},
          {"uniform_pb", config.model.uniform_pb},
          {"loss", config::enum_name(config.train.loss)},
          {"logZ", log_z},
          {"config", "config.yaml"}};
}

// torchgfn's Box estimator class of a continuous network (box_cartesian_utils.py; the state
// flow module is box_polar_utils.py's): its MLP arguments, torchgfn's convention since its
// March 2026 MLP fix (n_hidden_layers counts the trunk's Linear layers, input projection
// included: our model.n_hidden), and the module's own input map.
nlohmann::json box_mlp_json(const std::string& cls, std::int64_t dim, std::int64_t output_dim,
                            const core::ModelOptions& m, const char* activation) {
  return {{"class", cls},
          {"input_dim", dim},
          {"output_dim", output_dim},
          {"hidden_dim", m.hidden_dim},
          {"n_hidden_layers", m.n_hidden},
          {"trunk_linear_layers", m.n_hidden},
          {"activation_fn", activation},
          {"input",
           cls.find("MLP") != std::string::npos ? "states, mapped to 2 s - 1 inside" : "states"}};
}

// The check batch of a continuous model: s0 and 63 exact samples of R / Z (seed 0), with the
// raw PF / PB outputs and log F our model computes for them.
output::NamedTensors continuous_check(core::ContinuousLearner& learner) {
  const core::ContinuousEnvironment& env = learner.env();
  at::Generator gen = at::detail::createCPUGenerator(0);
  const at::Tensor states = env.has_target()
                                ? at::cat({env.initial_states(1), env.sample_target(63, gen)})
                                : env.initial_states(1);
  core::ContinuousModel& model = learner.model();
  const core::ContinuousOutputs out = model.forward(env.policy_inputs(states), 0);
  output::NamedTensors check{
      {"states", states.contiguous()}, {"inputs", states.contiguous()}, {"pf_logits", out.pf}};
  if (!model.options().uniform_pb) check.emplace_back("pb_logits", out.pb.contiguous());
  if (model.has_log_flow()) {
    check.emplace_back("log_flow", model.log_flow(states, env.is_initial(states)).unsqueeze(1));
  }
  return check;
}

// Our names -> torchgfn's; with a log F network, logZ is BoxStateFlowModule's logZ_value; PF's
// constant outputs (the polar Box's s0 parameters) are BoxPFMLP's PFs0, of shape [1, 5 K0], in
// the order torchgfn's BoxPFEstimator reads them (mixture logits, alpha_theta, beta_theta,
// alpha_r, beta_r; box_polar_policies.h).
output::NamedTensors continuous_state_dict(core::ContinuousLearner& learner) {
  output::NamedTensors ours;
  at::Tensor pfs0;
  for (const auto& p : learner.module().named_parameters()) {
    if (p.key() == "pf_constant") {
      pfs0 = p.value().detach().unsqueeze(0).contiguous().clone();
    } else {
      ours.emplace_back(p.key(), p.value());
    }
  }
  output::NamedTensors entries = output::torchgfn_state_dict(ours);
  if (learner.model().has_log_flow()) {
    for (auto& e : entries) {
      if (e.first == "logZ") e.first = "logF.module.logZ_value";
    }
  }
  if (pfs0.defined()) entries.emplace_back("pf.module.PFs0", pfs0);
  return entries;
}

// torchgfn's PF and PB estimator modules of the environment, with their own arguments:
// box_cartesian_utils.py's for the Cartesian Box, box_polar_utils.py's for the polar one.
std::pair<nlohmann::json, nlohmann::json> box_policy_json(core::ContinuousLearner& learner,
                                                          const roles::ExperimentConfig& config) {
  const auto& m = config.model;
  const std::int64_t d = learner.env().dim();
  const std::int64_t pf_out = learner.gflownet().pf.n_outputs();
  const std::int64_t pb_out = learner.gflownet().pb.n_outputs();
  if (config.env.name == "box_polar") {
    const auto& o = config.env.get<core::BoxPolarEnvOptions>();
    const std::int64_t pf_head = pf_out - learner.model().options().pf_constant_outputs;
    const std::string polar = "gfn.gym.helpers.box_polar_utils.";
    nlohmann::json pf = box_mlp_json(polar + "BoxPFMLP", d, pf_head, m, "elu");
    nlohmann::json pb = box_mlp_json(polar + "BoxPBMLP", d, pb_out, m, "elu");
    pf["n_components"] = pb["n_components"] = o.n_components;
    pf["n_components_s0"] = o.n_components_s0;
    pf["input"] = pb["input"] = "states";
    pf["outputs"] = "last_layer's 1 + 3 K columns, then PFs0's 5 K0 (raw, before any sigmoid)";
    return {pf, pb};
  }
  const std::string cartesian = "gfn.gym.helpers.box_cartesian_utils.";
  nlohmann::json pf = box_mlp_json(cartesian + "BoxCartesianPFMLP", d, pf_out, m, "elu");
  nlohmann::json pb = box_mlp_json(cartesian + "BoxCartesianPBMLP", d, pb_out, m, "elu");
  pf["n_components"] = pb["n_components"] = config.env.get<core::BoxEnvOptions>().n_components;
  pf["n_dim"] = pb["n_dim"] = d;
  return {pf, pb};
}

}  // namespace

void export_model(core::ContinuousLearner& learner, const roles::ExperimentConfig& config) {
  at::NoGradGuard no_grad;
  const auto& dir = config.output.dir;
  const output::NamedTensors entries = continuous_state_dict(learner);
  output::write_torch_dict(dir + "/model_state_dict.pt", entries);
  output::write_torch_dict(dir + "/model_check.pt", continuous_check(learner));

  const auto& m = config.model;
  core::ContinuousModel& model = learner.model();
  const std::int64_t d = learner.env().dim();
  const auto [pf, pb] = box_policy_json(learner, config);
  nlohmann::json sidecar = sidecar_common(entries, config, model.log_z().item<double>());
  sidecar["names"] = config.env.name == "box_polar"
                         ? "torchgfn TBGFlowNet / DBGFlowNet state dict over its polar Box "
                           "estimators (BoxPFEstimator, BoxPBEstimator)"
                         : "torchgfn TBGFlowNet / DBGFlowNet state dict over its Box estimators";
  sidecar["env"] = {{"name", learner.env().name()},
                    {"options", options_json(config.env.option_values(config.env.name))},
                    {"state_dim", d},
                    {"continuous", true}};
  sidecar["pf"] = pf;
  sidecar["pb"] = m.uniform_pb ? nlohmann::json(nullptr) : pb;
  sidecar["pb_fixed_output"] =
      m.uniform_pb ? nlohmann::json(model.options().fixed_pb_output) : nlohmann::json(nullptr);
  sidecar["logF"] =
      model.has_log_flow()
          ? box_mlp_json("gfn.gym.helpers.box_polar_utils.BoxStateFlowModule", d, 1, m, "relu")
          : nlohmann::json(nullptr);
  output::write_json(dir + "/model.json", sidecar);
}

void export_model(core::Learner& learner, const roles::ExperimentConfig& config) {
  at::NoGradGuard no_grad;
  auto& module = learner.model();
  auto& model = learner.model();
  const auto& env = learner.env();
  const auto& pre = learner.preprocessor();
  const auto& dir = config.output.dir;

  output::NamedTensors ours;
  for (const auto& p : module.named_parameters()) ours.emplace_back(p.key(), p.value());
  const auto entries = output::torchgfn_state_dict(ours);
  output::write_torch_dict(dir + "/model_state_dict.pt", entries);

  // A check batch: enumerated states (the first 64), else the initial state.
  const at::Tensor states =
      env.enumerable()
          ? env.all_states().narrow(0, 0, std::min<std::int64_t>(64, env.all_states().size(0)))
          : env.initial_states(1);
  const at::Tensor inputs = pre(states).contiguous();
  const bool was_training = module.is_training();
  module.eval();  // NoisyNet is refused above; eval keeps the check deterministic anyway
  output::NamedTensors check{{"states", states.contiguous()},
                             {"inputs", inputs},
                             {"pf_logits", model.pf_logits(inputs).contiguous()}};
  if (!model.uniform_pb()) check.emplace_back("pb_logits", model.pb_logits(inputs).contiguous());
  module.train(was_training);
  output::write_torch_dict(dir + "/model_check.pt", check);

  const auto& m = config.model;
  const auto input_dim = pre.output_dim();
  const core::EnvironmentDescription description = env.describe();
  nlohmann::json sidecar = sidecar_common(entries, config, model.log_z().item<double>());
  sidecar["names"] = "torchgfn TBGFlowNet / DBGFlowNet state dict over gfn.utils.modules.MLP";
  sidecar["env"] = {{"name", description.name},
                    {"options", options_json(description.options)},
                    {"state_dim", env.state_dim()},
                    {"n_actions", env.n_actions()},
                    {"preprocessor", config::enum_name(config.env.preprocessor)},
                    {"preprocessor_output_dim", input_dim}};
  sidecar["pf"] = mlp_json(input_dim, env.n_actions(), m);
  sidecar["pb"] =
      m.uniform_pb ? nlohmann::json(nullptr) : mlp_json(input_dim, env.n_actions() - 1, m);
  sidecar["logF"] = model.has_log_flow() ? mlp_json(input_dim, 1, m) : nlohmann::json(nullptr);
  output::write_json(dir + "/model.json", sidecar);
}

}  // namespace gfn::roles
