#include "roles/trainer/model_export.h"

#include <ATen/ATen.h>
#include <torch/nn/module.h>

#include <algorithm>
#include <nlohmann/json.hpp>

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

}  // namespace

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
  nlohmann::json keys = nlohmann::json::array();
  for (const auto& e : entries) keys.push_back(e.first);
  const core::EnvironmentDescription description = env.describe();
  nlohmann::json sidecar = {
      {"state_dict", "model_state_dict.pt"},
      {"check", "model_check.pt"},
      {"format", "dict of float32 tensors, torch::pickle_save (Python: torch.load)"},
      {"names", "torchgfn TBGFlowNet / DBGFlowNet state dict over gfn.utils.modules.MLP"},
      {"keys", keys},
      {"env",
       {{"name", description.name},
        {"options", options_json(description.options)},
        {"state_dim", env.state_dim()},
        {"n_actions", env.n_actions()},
        {"preprocessor", config::enum_name(config.env.preprocessor)},
        {"preprocessor_output_dim", input_dim}}},
      {"pf", mlp_json(input_dim, env.n_actions(), m)},
      {"pb", m.uniform_pb ? nlohmann::json(nullptr) : mlp_json(input_dim, env.n_actions() - 1, m)},
      {"logF", model.has_log_flow() ? mlp_json(input_dim, 1, m) : nlohmann::json(nullptr)},
      {"tied", m.tied},
      {"uniform_pb", m.uniform_pb},
      {"loss", config::enum_name(config.train.loss)},
      {"logZ", model.log_z().item<double>()},
      {"config", "config.yaml"}};
  output::write_json(dir + "/model.json", sidecar);
}

}  // namespace gfn::roles
