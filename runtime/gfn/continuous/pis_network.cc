#include "runtime/gfn/continuous/pis_network.h"

#include <ATen/ATen.h>
#include <torch/autograd.h>
#include <torch/nn/modules/activation.h>

#include <stdexcept>
#include <string>

#include "runtime/gfn/continuous/exact_gelu.h"

namespace gfn::core {

PisNetwork::PisNetwork(const PisNetworkOptions& o) : options_(o) {
  if (o.x_dim < 1 || o.harmonics_dim < 1 || o.emb_dim < 1 || o.hidden_dim < 1 ||
      o.joint_layers < 1 || o.lgv_layers < 1) {
    throw std::invalid_argument(
        "PisNetwork: every width and layer count (d, harmonics_dim, emb_dim, hidden_dim, "
        "joint_layers, lgv_layers) must be >= 1");
  }
  using torch::nn::GELU;
  using torch::nn::Linear;
  // Registration order fixes parameters(): the time encoding, the state encoding, the joint
  // network, the head, then the Langevin scaling.
  t_phase_ = register_parameter("t_phase", torch::randn({1, o.harmonics_dim}));
  t_pe_ = register_buffer("t_pe", torch::linspace(0.1, 100.0, o.harmonics_dim).unsqueeze(0));
  t_model_ =
      register_module("t_model", torch::nn::Sequential(Linear(2 * o.harmonics_dim, o.hidden_dim),
                                                       GELU(), Linear(o.hidden_dim, o.emb_dim)));
  s_model_ = register_module("s_model", Linear(o.x_dim, o.emb_dim));
  joint_linears_.push_back(Linear(o.emb_dim, o.hidden_dim));
  torch::nn::Sequential joint(GELU(), joint_linears_.back(), GELU());
  for (int i = 1; i < o.joint_layers; ++i) {
    joint_linears_.push_back(Linear(o.hidden_dim, o.hidden_dim));
    joint->push_back(joint_linears_.back());
    joint->push_back(GELU());
  }
  joint_model_ = register_module("joint_model", joint);
  drift_head_ = register_module("drift_head", Linear(o.hidden_dim, o.x_dim));
  torch::NoGradGuard no_grad;
  if (o.zero_init) {
    drift_head_->weight.fill_(1e-8);
    drift_head_->bias.fill_(0.0);
  }
  if (!o.langevin) return;
  lgv_phase_ = register_parameter("lgv_phase", torch::randn({1, o.emb_dim}));
  lgv_pe_ = register_buffer("lgv_pe", torch::linspace(0.1, 100.0, o.emb_dim).unsqueeze(0));
  torch::nn::Sequential lgv(Linear(2 * o.emb_dim, o.hidden_dim));
  for (int i = 1; i < o.lgv_layers; ++i) {
    lgv->push_back(GELU());
    lgv->push_back(Linear(o.hidden_dim, o.hidden_dim));
  }
  lgv->push_back(GELU());
  Linear head(o.hidden_dim, o.x_dim);
  if (o.zero_init) {
    head->weight.fill_(0.0);
    head->bias.fill_(0.01);
  }
  lgv->push_back(head);
  lgv_model_ = register_module("lgv_model", lgv);
}

at::Tensor PisNetwork::harmonics(const at::Tensor& tau, const at::Tensor& pe,
                                 const at::Tensor& phase) {
  const at::Tensor angle = tau * pe + phase;  // [N, 1] * [1, H] -> [N, H]
  return at::cat({angle.sin(), angle.cos()}, 1);
}

at::Tensor PisNetwork::time_network(const at::Tensor& tau, torch::nn::Sequential& model,
                                    const at::Tensor& pe, const at::Tensor& phase) {
  if (!options_.shared_time_embedding) return model->forward(harmonics(tau, pe, phase));
  // The distinct times (the step counter's T + 1 values) and each row's index among them.
  const auto [times, row_time, counts] =
      at::_unique2(tau.reshape({-1}), /*sorted=*/true, /*return_inverse=*/true,
                   /*return_counts=*/false);
  const at::Tensor per_time = model->forward(harmonics(times.unsqueeze(1), pe, phase));
  return per_time.index_select(0, row_time);
}

at::Tensor PisNetwork::step_biases(const at::Tensor& tau) {
  if (options_.langevin) throw std::logic_error("PisNetwork::step_biases: not with langevin");
  return t_model_->forward(harmonics(tau, t_pe_, t_phase_)) + s_model_->bias;
}

at::Tensor PisNetwork::step_drift(const at::Tensor& x, const at::Tensor& bias_row) {
  if (options_.langevin) throw std::logic_error("PisNetwork::step_drift: not with langevin");
  return drift_head_->forward(joint_model_->forward(at::addmm(bias_row, x, s_model_->weight.t())));
}

at::Tensor PisNetwork::step_major_forward(const at::Tensor& x, const at::Tensor& tau) {
  if (options_.langevin) {
    throw std::logic_error("PisNetwork::step_major_forward: not with langevin");
  }
  const std::int64_t k = tau.size(0);
  if (x.dim() != 2 || x.size(1) != options_.x_dim || k < 1 || x.size(0) % k != 0) {
    throw std::invalid_argument("PisNetwork::step_major_forward: need x [K B, " +
                                std::to_string(options_.x_dim) + "] and tau [K, 1]");
  }
  const std::int64_t b = x.size(0) / k;
  const std::int64_t emb = options_.emb_dim;
  const at::Tensor s_emb = at::mm(x, s_model_->weight.t()).view({k, b, emb});
  const at::Tensor joint_in = (s_emb + step_biases(tau).unsqueeze(1)).view({k * b, emb});
  return drift_head_->forward(joint_model_->forward(joint_in));
}

PisActivations PisNetwork::allocate_activations(const at::Tensor& x, std::int64_t steps,
                                                std::int64_t rows_per_step) const {
  PisActivations a;
  a.x = x;
  a.steps = steps;
  a.rows_per_step = rows_per_step;
  const std::int64_t rows = steps * rows_per_step;
  for (int j = 0; j <= options_.joint_layers; ++j) {
    const std::int64_t width = j == 0 ? options_.emb_dim : options_.hidden_dim;
    a.pre.push_back(at::empty({rows, width}, at::kFloat));
    a.post.push_back(at::empty({rows, width}, at::kFloat));
    a.slope.push_back(at::empty({rows, width}, at::kFloat));
  }
  a.drift = at::empty({rows, options_.x_dim}, at::kFloat);
  return a;
}

at::Tensor PisNetwork::step_drift_saved(const at::Tensor& bias_row, PisActivations& saved,
                                        std::int64_t k) {
  if (options_.langevin) throw std::logic_error("PisNetwork::step_drift_saved: not with langevin");
  at::NoGradGuard no_grad;
  const std::int64_t b = saved.rows_per_step;
  const auto rows = [k, b](const at::Tensor& t) { return t.narrow(0, k * b, b); };
  at::Tensor pre = rows(saved.pre[0]);
  at::addmm_out(pre, bias_row, rows(saved.x), s_model_->weight.t());
  for (std::size_t j = 0; j < saved.pre.size(); ++j) {
    at::Tensor post = rows(saved.post[j]);
    at::Tensor slope = rows(saved.slope[j]);
    exact_gelu_slope_out(rows(saved.pre[j]), post, slope);
    if (j + 1 < saved.pre.size()) {
      at::Tensor next = rows(saved.pre[j + 1]);
      const torch::nn::Linear& layer = joint_linears_[j];
      at::addmm_out(next, layer->bias, post, layer->weight.t());
    }
  }
  at::Tensor drift = rows(saved.drift);
  at::addmm_out(drift, drift_head_->bias, rows(saved.post.back()), drift_head_->weight.t());
  return drift;
}

namespace {

// The state path's backward from saved activations (PisNetwork::saved_forward). Inputs:
// params = [step biases [K, emb], s_model weight, (joint weight, bias) per layer, head weight,
// head bias]; activations = [x, post..., slope...] in ctx->saved_data.
struct PisSavedForward : torch::autograd::Function<PisSavedForward> {
  static at::Tensor forward(torch::autograd::AutogradContext* ctx, at::TensorList params,
                            const PisActivations* saved) {
    ctx->saved_data["x"] = saved->x;
    ctx->saved_data["post"] = saved->post;
    ctx->saved_data["slope"] = saved->slope;
    ctx->saved_data["steps"] = saved->steps;
    std::vector<at::Tensor> weights;
    for (std::size_t i = 1; i < params.size(); ++i) weights.push_back(params[i]);
    ctx->saved_data["weights"] = weights;
    return saved->drift.detach();  // a tensor of its own for the node's history
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    const auto post = ctx->saved_data["post"].toTensorVector();
    const auto slope = ctx->saved_data["slope"].toTensorVector();
    const auto w = ctx->saved_data["weights"].toTensorVector();  // Ws, (W_j, b_j)..., Wh, bh
    const at::Tensor x = ctx->saved_data["x"].toTensor();
    const std::int64_t steps = ctx->saved_data["steps"].toInt();
    const std::size_t layers = post.size() - 1;
    torch::autograd::variable_list out(w.size() + 2);  // the last: the pointer's (undefined)
    at::Tensor grad = grads[0];
    out[w.size() - 1] = at::mm(grad.t(), post[layers]);
    out[w.size()] = grad.sum(0);
    at::Tensor d_post = at::mm(grad, w[w.size() - 2]);
    for (std::size_t j = layers; j >= 1; --j) {
      const at::Tensor d_pre = d_post.mul_(slope[j]);
      out[2 * j] = at::mm(d_pre.t(), post[j - 1]);
      out[2 * j + 1] = d_pre.sum(0);
      d_post = at::mm(d_pre, w[2 * j - 1]);
    }
    const at::Tensor d_pre0 = d_post.mul_(slope[0]);
    out[1] = at::mm(d_pre0.t(), x);
    out[0] = d_pre0.view({steps, -1, d_pre0.size(1)}).sum(1);
    return out;
  }
};

}  // namespace

at::Tensor PisNetwork::saved_forward(const PisActivations& saved, const at::Tensor& tau) {
  if (options_.langevin) throw std::logic_error("PisNetwork::saved_forward: not with langevin");
  if (tau.size(0) != saved.steps || saved.pre.size() != joint_linears_.size() + 1) {
    throw std::invalid_argument("PisNetwork::saved_forward: activations of another batch");
  }
  std::vector<at::Tensor> params{step_biases(tau), s_model_->weight};
  for (const auto& layer : joint_linears_) {
    params.push_back(layer->weight);
    params.push_back(layer->bias);
  }
  params.push_back(drift_head_->weight);
  params.push_back(drift_head_->bias);
  return PisSavedForward::apply(at::TensorList(params), &saved);
}

at::Tensor PisNetwork::forward(const at::Tensor& input) {
  const std::int64_t d = options_.x_dim;
  if (input.dim() != 2 || input.size(1) != input_dim()) {
    throw std::invalid_argument("PisNetwork::forward: need inputs [N, " +
                                std::to_string(input_dim()) + "]");
  }
  const at::Tensor x = input.narrow(1, 0, d);
  const at::Tensor tau = input.narrow(1, d, 1);
  const at::Tensor t_emb = time_network(tau, t_model_, t_pe_, t_phase_);
  const at::Tensor s_emb = s_model_->forward(x);
  at::Tensor drift = drift_head_->forward(joint_model_->forward(s_emb + t_emb));
  if (options_.langevin) {
    const at::Tensor g = input.narrow(1, d + 1, d);
    drift = drift + time_network(tau, lgv_model_, lgv_pe_, lgv_phase_) * g;
  }
  return drift;
}

}  // namespace gfn::core
