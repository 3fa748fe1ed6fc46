#include "runtime/gfn/estimators.h"

#include <ATen/ATen.h>
#include <torch/nn/modules/activation.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace gfn::core {
namespace {

// torchgfn MLP trunk: Linear(in, h) + ReLU, then (n_hidden - 1) x [Linear(h, h) + ReLU];
// the last n_noisy of the Linear(h, h) layers are NoisyLinear (appended to `noisy`).
torch::nn::Sequential make_trunk(std::int64_t input_dim, const ModelOptions& m, int n_noisy = 0,
                                 std::vector<NoisyLinear>* noisy = nullptr) {
  torch::nn::Sequential trunk;
  trunk->push_back(torch::nn::Linear(input_dim, m.hidden_dim));
  trunk->push_back(torch::nn::ReLU());
  for (int i = 1; i < m.n_hidden; ++i) {
    if (i >= m.n_hidden - n_noisy) {
      NoisyLinear layer(m.hidden_dim, m.hidden_dim, m.noisy_std_init);
      noisy->push_back(layer);
      trunk->push_back(layer);
    } else {
      trunk->push_back(torch::nn::Linear(m.hidden_dim, m.hidden_dim));
    }
    trunk->push_back(torch::nn::ReLU());
  }
  return trunk;
}

}  // namespace

GFlowNetModel::GFlowNetModel(std::int64_t input_dim, std::int64_t n_actions,
                             const ModelOptions& model, bool with_log_flow)
    : n_actions_(n_actions), tied_(model.tied), uniform_pb_(model.uniform_pb) {
  if (model.hidden_dim < 1) {
    throw std::invalid_argument("model.hidden_dim must be >= 1, got " +
                                std::to_string(model.hidden_dim));
  }
  if (model.n_hidden < 1) {
    throw std::invalid_argument("model.n_hidden must be >= 1, got " +
                                std::to_string(model.n_hidden));
  }
  if (input_dim < 1 || n_actions < 2) {
    throw std::invalid_argument("GFlowNetModel: need input_dim >= 1 and n_actions >= 2, got " +
                                std::to_string(input_dim) + " and " + std::to_string(n_actions));
  }
  if (model.n_noisy_layers < 0 || model.n_noisy_layers > model.n_hidden) {
    throw std::invalid_argument(
        "model.n_noisy_layers must be in [0, model.n_hidden = " + std::to_string(model.n_hidden) +
        "] (the input layer is never "
        "noisy), got " +
        std::to_string(model.n_noisy_layers));
  }
  // Registration order fixes the order of parameters(): PF, PB, logF, then logZ.
  const int n_noisy = model.n_noisy_layers;
  pf_trunk_ = register_module(
      "pf_trunk", make_trunk(input_dim, model, n_noisy > 0 ? n_noisy - 1 : 0, &noisy_layers_));
  if (n_noisy > 0) {
    pf_noisy_head_ = register_module(
        "pf_noisy_head", NoisyLinear(model.hidden_dim, n_actions, model.noisy_std_init));
    noisy_layers_.push_back(pf_noisy_head_);
  } else {
    pf_head_ = register_module("pf_head", torch::nn::Linear(model.hidden_dim, n_actions));
  }
  if (!uniform_pb_) {
    pb_trunk_ = tied_ ? pf_trunk_ : register_module("pb_trunk", make_trunk(input_dim, model));
    pb_head_ = register_module("pb_head", torch::nn::Linear(model.hidden_dim, n_actions - 1));
  }
  if (with_log_flow) {
    log_flow_trunk_ =
        tied_ ? pf_trunk_ : register_module("logF_trunk", make_trunk(input_dim, model));
    log_flow_head_ = register_module("logF_head", torch::nn::Linear(model.hidden_dim, 1));
  }
  log_z_ = register_parameter("logZ", torch::zeros({}, torch::kFloat));
}

at::Tensor GFlowNetModel::pf_head(const at::Tensor& h) {
  return pf_noisy_head_ ? pf_noisy_head_->forward(h) : pf_head_->forward(h);
}

at::Tensor GFlowNetModel::pf_logits(const at::Tensor& x) { return pf_head(pf_trunk_->forward(x)); }

void GFlowNetModel::reset_noise(at::Generator& generator) {
  for (auto& layer : noisy_layers_) layer->reset_noise(generator);
}

at::Tensor GFlowNetModel::pb_logits(const at::Tensor& x) {
  if (uniform_pb_) return torch::zeros({x.size(0), n_actions_ - 1}, torch::kFloat);
  return pb_head_->forward(pb_trunk_->forward(x));
}

at::Tensor GFlowNetModel::log_flow(const at::Tensor& x) {
  if (!has_log_flow()) {
    throw std::logic_error("GFlowNetModel::log_flow: the model was built without a logF head");
  }
  return log_flow_head_->forward(log_flow_trunk_->forward(x)).squeeze(1);
}

PolicyOutputs GFlowNetModel::forward(const at::Tensor& x, std::int64_t pb_begin) {
  const std::int64_t n = x.size(0);
  if (pb_begin < 0 || pb_begin > n) {
    throw std::invalid_argument("GFlowNetModel::forward: pb_begin " + std::to_string(pb_begin) +
                                " not in [0, " + std::to_string(n) + "]");
  }
  PolicyOutputs out;
  if (tied_) {
    // One trunk pass serves every head.
    const at::Tensor h = pf_trunk_->forward(x);
    out.pf_logits = pf_head(h);
    out.pb_logits = uniform_pb_ ? pb_logits(x.narrow(0, pb_begin, n - pb_begin))
                                : pb_head_->forward(h.narrow(0, pb_begin, n - pb_begin));
    if (has_log_flow()) out.log_flow = log_flow_head_->forward(h).squeeze(1);
  } else {
    out.pf_logits = pf_logits(x);
    out.pb_logits = pb_logits(x.narrow(0, pb_begin, n - pb_begin));
    if (has_log_flow()) out.log_flow = log_flow(x);
  }
  return out;
}

}  // namespace gfn::core
