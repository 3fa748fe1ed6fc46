#include "runtime/gfn/continuous/estimators.h"

#include <ATen/ATen.h>
#include <torch/nn/modules/activation.h>

#include <stdexcept>
#include <string>

namespace gfn::core {
namespace {

// torchgfn MLP trunk: Linear(in, h) + activation, then (n_hidden - 1) x [Linear(h, h) +
// activation].
template <class Activation>
torch::nn::Sequential make_trunk(std::int64_t input_dim, const ContinuousModelOptions& o) {
  torch::nn::Sequential trunk;
  trunk->push_back(torch::nn::Linear(input_dim, o.hidden_dim));
  trunk->push_back(Activation());
  for (int i = 1; i < o.n_hidden; ++i) {
    trunk->push_back(torch::nn::Linear(o.hidden_dim, o.hidden_dim));
    trunk->push_back(Activation());
  }
  return trunk;
}

void check_pis(const ContinuousModelOptions& o, std::int64_t pf_outputs, std::int64_t policy_dim) {
  const std::int64_t d = o.pis.x_dim;
  if ((o.tied && !o.uniform_pb) || o.pf_constant_outputs != 0 || pf_outputs != d ||
      policy_dim != (o.pis.langevin ? 2 * d + 1 : d + 1)) {
    throw std::invalid_argument(
        "ContinuousModel: a PISGradNet PF needs a fixed or untied PB, no constant outputs, d "
        "outputs and its own input width");
  }
}

}  // namespace

ContinuousModel::ContinuousModel(std::int64_t input_dim, std::int64_t pf_outputs,
                                 std::int64_t pb_outputs, const ContinuousModelOptions& options)
    : options_(options), pb_outputs_(pb_outputs) {
  if (options.hidden_dim < 1 || options.n_hidden < 1) {
    throw std::invalid_argument("ContinuousModel: hidden_dim and n_hidden must be >= 1, got " +
                                std::to_string(options.hidden_dim) + " and " +
                                std::to_string(options.n_hidden));
  }
  if (input_dim < 1 || pf_outputs < 1 || pb_outputs < 1) {
    throw std::invalid_argument("ContinuousModel: need input_dim, pf_outputs and pb_outputs >= 1");
  }
  const int n_constant = options.pf_constant_outputs;
  if (n_constant < 0 || n_constant >= pf_outputs) {
    throw std::invalid_argument("ContinuousModel: pf_constant_outputs must be in [0, " +
                                std::to_string(pf_outputs) + "), got " +
                                std::to_string(n_constant));
  }
  const std::int64_t policy_dim =
      options.policy_input_dim > 0 ? options.policy_input_dim : input_dim;
  // Registration order fixes the order of parameters(): PF, PB, log F, then logZ.
  if (options.pis_pf) {
    check_pis(options, pf_outputs, policy_dim);
    pf_pis_ = register_module("pf_pis", std::make_shared<PisNetwork>(options.pis));
  } else {
    pf_trunk_ = register_module("pf_trunk", make_trunk<torch::nn::ELU>(policy_dim, options));
    pf_head_ =
        register_module("pf_head", torch::nn::Linear(options.hidden_dim, pf_outputs - n_constant));
  }
  if (n_constant > 0) {
    pf_constant_ = register_parameter("pf_constant", torch::zeros({n_constant}, torch::kFloat));
  }
  if (!options.uniform_pb) {
    pb_trunk_ = options.tied
                    ? pf_trunk_
                    : register_module("pb_trunk", make_trunk<torch::nn::ELU>(policy_dim, options));
    pb_head_ = register_module("pb_head", torch::nn::Linear(options.hidden_dim, pb_outputs));
  }
  if (options.with_log_flow) {
    log_flow_trunk_ =
        register_module("logF_trunk", make_trunk<torch::nn::ReLU>(input_dim, options));
    log_flow_head_ = register_module("logF_head", torch::nn::Linear(options.hidden_dim, 1));
  }
  log_z_ = register_parameter("logZ", torch::zeros({}, torch::kFloat));
}

at::Tensor ContinuousModel::pf_outputs(const at::Tensor& h) {
  const at::Tensor head = pf_head_->forward(h);
  if (!pf_constant_.defined()) return head;
  return at::cat({head, pf_constant_.unsqueeze(0).expand({h.size(0), -1})}, 1);
}

at::Tensor ContinuousModel::pf(const at::Tensor& x) {
  if (pf_pis_) return pf_pis_->forward(x);
  return pf_outputs(pf_trunk_->forward(x));
}

ContinuousOutputs ContinuousModel::forward(const at::Tensor& x, std::int64_t pb_begin) {
  const std::int64_t n = x.size(0);
  if (pb_begin < 0 || pb_begin > n) {
    throw std::invalid_argument("ContinuousModel::forward: pb_begin " + std::to_string(pb_begin) +
                                " is not in [0, " + std::to_string(n) + "]");
  }
  ContinuousOutputs out;
  const at::Tensor h = pf_pis_ ? at::Tensor() : pf_trunk_->forward(x);
  out.pf = pf_pis_ ? pf_pis_->forward(x) : pf_outputs(h);
  if (options_.uniform_pb) {
    out.pb = at::full({n - pb_begin, pb_outputs_}, options_.fixed_pb_output, x.options());
  } else if (options_.tied) {
    out.pb = pb_head_->forward(h.narrow(0, pb_begin, n - pb_begin));
  } else {
    out.pb = pb_head_->forward(pb_trunk_->forward(x.narrow(0, pb_begin, n - pb_begin)));
  }
  return out;
}

at::Tensor ContinuousModel::log_flow(const at::Tensor& states, const at::Tensor& is_initial) {
  if (!has_log_flow()) {
    throw std::logic_error("ContinuousModel::log_flow: the model has no log F network");
  }
  const at::Tensor f = log_flow_head_->forward(log_flow_trunk_->forward(states)).squeeze(1);
  return at::where(is_initial, log_z_, f);
}

}  // namespace gfn::core
