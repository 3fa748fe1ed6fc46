#pragma once
// The estimators of a GFlowNet on a continuous environment, in one torch::nn::Module (so
// parameters() lists every trainable tensor): the PF network, the PB network and the
// learned logZ, optionally a state-flow network log F(s). The networks output the raw
// parameters a ContinuousPolicy (policy.h) reads; their widths come from the policies.
//
// Follows torchgfn's Box estimators (src/gfn/gym/helpers/box_cartesian_utils.py,
// _BoxCartesianMLP over gfn.utils.modules.MLP; tutorials/examples/train_box.py):
//  * PF: an MLP trunk Linear(input, h) + ELU, then (n_hidden - 1) x [Linear(h, h) + ELU],
//    and a Linear(h, pf_outputs) head, on the environment's policy inputs
//    (ContinuousEnvironment::policy_inputs; Box: 2 s - 1).
//  * PB: a Linear(h, pb_outputs) head on PF's trunk (tied, the box benchmarks' setting), on a
//    trunk of its own (untied), or no network at all (uniform_pb: every output equals
//    fixed_pb_output, torchgfn's UniformModule; see box_policies.h for what it means on Box).
//  * log F (with_log_flow, for DB and SubTB): a ReLU MLP of its own (torchgfn's
//    BoxStateFlowModule, never tied) on the states themselves, whose value at s0 is logZ.
//  * PF's constant outputs (pf_constant_outputs > 0, torchgfn's BoxPFMLP.PFs0 for the polar
//    Box, box_polar_policies.h): the last pf_constant_outputs of the pf_outputs columns are a
//    learned vector, initialised to 0, the same on every row; the head gives the others.
//  * logZ: a float32 scalar, initialised to 0.
//  * pis_pf (diffusion sampling): PF is a PisNetwork (pis_network.h) named "pf_pis.*" instead
//    of the trunk and head; the policy inputs may be wider than the states (policy_input_dim).
// Linear layers keep LibTorch's default initialisation (PyTorch's). Parameter names:
// "pf_trunk.*", "pf_head.*", "pb_trunk.*" (untied), "pb_head.*" (learned PB), "logF_trunk.*",
// "logF_head.*" (log F), "pf_constant" (PF's constant outputs), "logZ". With the box benchmarks'
// setting (d = 2, h = 256, n_hidden = 2, 5 components: 31 outputs) the model has 74,528 parameters
// with the fixed PB and 82,495 with the tied learned PB (torchgfn's counts of
// TBGFlowNet.parameters()).
//
// Not thread-safe (a Module); one thread owns a model.

#include <torch/nn/module.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/linear.h>

#include <cstdint>
#include <memory>

#include "runtime/gfn/continuous/pis_network.h"

namespace gfn::core {

struct ContinuousModelOptions {
  int hidden_dim = 256;          ///< h
  int n_hidden = 2;              ///< hidden layers of each trunk, input projection included
  bool tied = true;              ///< PB's head on PF's trunk
  bool uniform_pb = false;       ///< PB outputs are the constant fixed_pb_output (no network)
  double fixed_pb_output = 1.0;  ///< torchgfn's UniformModule fill value for Box
  bool with_log_flow = false;    ///< add the log F network (DB, SubTB)
  int pf_constant_outputs = 0;   ///< trailing PF columns that are one learned vector, >= 0
  /// PF is a PISGradNet of `pis` (pis_network.h; env.name diffusion) instead of the MLP; its
  /// outputs are the drift (pf_outputs = pis.x_dim, no constant outputs); PB must be
  /// uniform_pb or untied.
  bool pis_pf = false;
  PisNetworkOptions pis;
  /// Width of the policy inputs (ContinuousEnvironment::policy_inputs); 0: input_dim.
  std::int64_t policy_input_dim = 0;
};

/// The raw outputs of the policy networks for N rows.
struct ContinuousOutputs {
  at::Tensor pf;  ///< float32 [N, pf_outputs]
  at::Tensor pb;  ///< float32 [N - pb_begin, pb_outputs]
};

class ContinuousModel : public torch::nn::Module {
 public:
  /// input_dim: the width of the states (d), and of the policy inputs unless
  /// options.policy_input_dim says otherwise; pf_outputs counts the constant outputs. Throws
  /// std::invalid_argument if hidden_dim < 1, n_hidden < 1, input_dim < 1, an output width < 1,
  /// pf_constant_outputs not in [0, pf_outputs), or with pis_pf a PB tied to PF, constant
  /// outputs, pf_outputs != pis.x_dim or a policy input width the network does not read.
  ContinuousModel(std::int64_t input_dim, std::int64_t pf_outputs, std::int64_t pb_outputs,
                  const ContinuousModelOptions& options);

  /// PF outputs float32 [N, pf_outputs] of policy inputs x float32 [N, input_dim].
  at::Tensor pf(const at::Tensor& x);
  /// PF outputs of all N rows of policy inputs x float32 [N, input_dim] and PB outputs of
  /// rows [pb_begin, N), through the shared trunk once when tied. Throws
  /// std::invalid_argument if pb_begin is not in [0, N].
  ContinuousOutputs forward(const at::Tensor& x, std::int64_t pb_begin);
  /// log F(s) float32 [N] of states float32 [N, input_dim]; logZ on the rows where
  /// is_initial (bool [N]) is true. Throws std::logic_error without a log F network.
  at::Tensor log_flow(const at::Tensor& states, const at::Tensor& is_initial);

  /// The learned logZ, a float32 scalar parameter (shape []).
  const at::Tensor& log_z() const { return log_z_; }
  bool has_log_flow() const { return !log_flow_head_.is_empty(); }
  const ContinuousModelOptions& options() const { return options_; }
  /// PF's PisNetwork with options.pis_pf, else null (diffusion's fused sampler, sampler.h).
  PisNetwork* pf_pis() { return pf_pis_.get(); }

 private:
  ContinuousModelOptions options_;
  std::int64_t pb_outputs_;
  torch::nn::Sequential pf_trunk_{nullptr};
  torch::nn::Linear pf_head_{nullptr};
  std::shared_ptr<PisNetwork> pf_pis_;       ///< with pis_pf, instead of pf_trunk_ / pf_head_
  at::Tensor pf_constant_;                   ///< float32 [pf_constant_outputs]; undefined when 0
  torch::nn::Sequential pb_trunk_{nullptr};  ///< == pf_trunk_ when tied; null when uniform
  torch::nn::Linear pb_head_{nullptr};       ///< null when uniform
  torch::nn::Sequential log_flow_trunk_{nullptr};
  torch::nn::Linear log_flow_head_{nullptr};
  at::Tensor log_z_;

  /// The PF head's output of trunk features h [N, hidden_dim], with the constant outputs.
  at::Tensor pf_outputs(const at::Tensor& h);
};

}  // namespace gfn::core
