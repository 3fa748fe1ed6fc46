#pragma once
// Estimators of a GFlowNet on an Environment: the forward policy PF (n_actions logits),
// the backward policy PB (n_actions - 1 logits, or a fixed uniform PB) and the learned log
// partition function logZ, all in one torch::nn::Module so that parameters()
// lists every trainable tensor (for the optimizer and for model averaging).
//
// Follows torchgfn: gfn.utils.modules.MLP (Linear + ReLU trunk, then a Linear
// output layer; PB may share PF's trunk, "tied"), DiscreteUniform (uniform PB) and
// TBGFlowNet's logZ parameter (initialised to 0), and optionally a state-flow head
// log F(s) (torchgfn ScalarEstimator over an MLP, used by DB and SubTB; on PF's trunk
// when tied). Linear layers keep LibTorch's default initialisation (kaiming-uniform
// weights, as in PyTorch). Parameter names: "pf_trunk.*", "pf_head.*", "pb_trunk.*"
// (untied only), "pb_head.*" (learned PB only), "logF_trunk.*" (logF head, untied
// only), "logF_head.*" (logF head only), "logZ".
//
// NoisyNet exploration (model.n_noisy_layers = n > 0, model.noisy_std_init; torchgfn MLP
// n_noisy_layers / std_init): the last n Linear layers of PF become NoisyLinear
// (noisy_linear.h): the output head "pf_noisy_head.*" (replacing "pf_head.*") and the last
// n - 1 hidden Linear(h, h) layers of PF's trunk; the input layer never is, so n <=
// model.n_hidden. PB and logF heads stay plain (with a tied trunk they share PF's noisy
// hidden layers). reset_noise() draws new noise; in eval mode (Module::eval()) the noisy
// layers use their mean weights. With n = 0 the model, its parameters and their
// initialisation are exactly those of a model without this option.
//
// Not thread-safe (a Module); one thread owns a model.

#include <torch/nn/module.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/linear.h>

#include <cstdint>
#include <vector>

#include "runtime/config/options.h"
#include "runtime/gfn/noisy_linear.h"

namespace gfn::core {

struct PolicyOutputs {
  at::Tensor pf_logits;  ///< float32 [N, n_actions] (unmasked)
  at::Tensor pb_logits;  ///< float32 [N - pb_begin, n_actions - 1] (unmasked)
  at::Tensor log_flow;   ///< float32 [N]: log F(s) of every row; undefined without a logF head
};

struct ModelLayout;  // estimators.cc: the model's MLPs for the hand-written backward

class GFlowNetModel : public torch::nn::Module {
  friend class ForwardRecorder;
  friend struct ModelLayout;

 public:
  /// input_dim: preprocessor output width; n_actions: forward actions including exit
  /// (PB has n_actions - 1). Throws std::invalid_argument if model.hidden_dim < 1,
  /// model.n_hidden < 1, input_dim < 1 or n_actions < 2, or model.n_noisy_layers is not in
  /// [0, model.n_hidden] (or noisy_std_init <= 0 with noisy layers). with_log_flow adds the
  /// state-flow head log F(s) (needed by the "db" and "subtb" losses, see
  /// Loss::needs_log_flow).
  GFlowNetModel(std::int64_t input_dim, std::int64_t n_actions, const config::ModelOptions& model,
                bool with_log_flow = false);

  /// PF logits of preprocessed states x float32 [N, input_dim] -> [N, n_actions].
  at::Tensor pf_logits(const at::Tensor& x);
  /// PB logits -> [N, n_actions - 1]; zeros (uniform PB) when uniform_pb.
  at::Tensor pb_logits(const at::Tensor& x);
  /// log F(s) of preprocessed states x float32 [N, input_dim] -> [N].
  /// Throws std::logic_error if the model has no logF head.
  at::Tensor log_flow(const at::Tensor& x);
  /// PF on all N rows, PB on rows [pb_begin, N) and, with a logF head, log F on all N
  /// rows of x, in one pass through the shared trunk when tied. Throws
  /// std::invalid_argument if pb_begin not in [0, N].
  PolicyOutputs forward(const at::Tensor& x, std::int64_t pb_begin);

  /// The learned logZ, a float32 scalar parameter (shape []).
  const at::Tensor& log_z() const { return log_z_; }
  bool tied() const { return tied_; }
  bool uniform_pb() const { return uniform_pb_; }
  bool has_log_flow() const { return !log_flow_head_.is_empty(); }
  /// True if PF has NoisyNet layers (model.n_noisy_layers > 0).
  bool noisy() const { return !noisy_layers_.empty(); }
  /// The NoisyLinear layers of PF, input side first (the output head last).
  const std::vector<NoisyLinear>& noisy_layers() const { return noisy_layers_; }
  /// New factorised noise in every noisy layer from `generator`; no-op without any.
  void reset_noise(at::Generator& generator);
  std::int64_t n_actions() const { return n_actions_; }
  /// engine.plain_loops (runtime/config/engine_options.h): the hand-written forwards and
  /// backward below (forward_manual_backward, ForwardRecorder) use the dispatch-free loops
  /// of plain_loops.h; false: the ATen ops. Default true; set by the Learner.
  bool plain_loops() const { return plain_loops_; }
  void set_plain_loops(bool on) { plain_loops_ = on; }

 private:
  at::Tensor pf_head(const at::Tensor& h);

  std::int64_t n_actions_;
  bool tied_;
  bool uniform_pb_;
  bool plain_loops_ = true;
  torch::nn::Sequential pf_trunk_{nullptr};
  torch::nn::Sequential pb_trunk_{nullptr};  ///< == pf_trunk_ when tied
  torch::nn::Linear pf_head_{nullptr};       ///< null when PF's head is noisy
  NoisyLinear pf_noisy_head_{nullptr};       ///< null without noisy layers
  std::vector<NoisyLinear> noisy_layers_;
  torch::nn::Linear pb_head_{nullptr};             ///< null when uniform_pb
  torch::nn::Sequential log_flow_trunk_{nullptr};  ///< == pf_trunk_ when tied
  torch::nn::Linear log_flow_head_{nullptr};       ///< null without a logF head
  at::Tensor log_z_;
};

/// model.forward(x, 0) (PF, PB and logF on all M rows of x float32 [M, input_dim]) with a
/// hand-written backward: the forward runs WITHOUT autograd (bit-identical values to
/// model.forward: the same addmm GEMMs; bias rows and ReLU as plain loops if
/// model.plain_loops(), plain_loops.h) keeping every layer's activations, and the
/// outputs (pf_logits [M, n_actions], pb_logits [M, n_actions - 1], log_flow [M] if the
/// model has a logF head) come out of ONE autograd node (RecordedMlp in estimators.cc)
/// whose backward runs the MLPs' backward with the minimal GEMMs per Linear layer
/// (grad-weight mm, grad-input mm except for the first layer; bias gradients as column
/// sums in ATen's summation order, add_column_sums in plain_loops.h),
/// instead of ~3 autograd nodes, transposes and one AccumulateGrad per parameter.
/// A uniform PB returns constant zeros (no gradient), as model.forward.
///
/// write_leaf_grads: the backward accumulates the gradient of each leaf parameter (every
/// parameter except NoisyLinear's effective weights, whose mu/sigma get theirs through
/// autograd) IN PLACE into its .grad (with FlatAdamW: the flat gradient buffer) instead of
/// returning it to autograd: same values for loss.backward(), no AccumulateGrad; but
/// tensor hooks on those parameters do not run and torch::autograd::grad() does not
/// return their gradients. Gradients equal autograd's up to GEMM summation order
/// (tests/runtime/gfn/state_table_test.cc). Parameters, noise and mode must not change
/// before the backward (a parameter modified in place makes the backward throw, like
/// autograd's saved-variable check). Used by the state table (state_table.h); not
/// thread-safe.
PolicyOutputs forward_manual_backward(GFlowNetModel& model, const at::Tensor& x,
                                      bool write_leaf_grads);

/// Records forward passes of a model WITHOUT autograd (on-policy sampling, one record per
/// sampling step; sampler.h) and afterwards gives the outputs of all recorded rows ONE
/// autograd node, whose backward is the MLP's backward on all rows at once (a few large
/// GEMMs per layer, like autograd's on one batched forward) from the recorded activations.
/// This is how the loss reuses the sampling forward (torchgfn's save_logprobs) without
/// paying a per-step backward (~27 small GEMM chains at 4-D h8, batch 128).
///
/// Records PF's trunk and head; for a tied model also the PB head (learned PB) and the
/// logF head (if any), which share that trunk pass. The parameters, the NoisyNet noise and
/// the mode (train / eval) must not change between record() and outputs(). Not
/// thread-safe; single use (outputs() once).
class ForwardRecorder {
 public:
  explicit ForwardRecorder(GFlowNetModel& model);
  /// x float32 [M, input_dim] -> detached outputs of model.forward(x, 0) (same ops, same
  /// values): pf_logits [M, n_actions]; tied only: pb_logits [M, n_actions - 1] (learned
  /// PB) and log_flow [M] (logF head); undefined otherwise. Keeps the layer inputs.
  PolicyOutputs record(const at::Tensor& x);
  /// The outputs of every recorded row, concatenated in record order, differentiable
  /// w.r.t. the model's parameters. Throws std::logic_error if nothing was recorded or
  /// outputs() was already called.
  PolicyOutputs outputs();
  /// Rows recorded so far.
  std::int64_t rows() const { return rows_; }

 private:
  GFlowNetModel& model_;
  std::vector<std::vector<at::Tensor>> acts_;   ///< per record: x, h_1, ..., h_L
  std::vector<std::vector<at::Tensor>> heads_;  ///< per record: head outputs [M, out]
  std::int64_t rows_ = 0;
  bool done_ = false;
};

}  // namespace gfn::core
