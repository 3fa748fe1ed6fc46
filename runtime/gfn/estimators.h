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

#include "runtime/gfn/noisy_linear.h"
#include "runtime/gfn/options.h"

namespace gfn::core {

struct PolicyOutputs {
  at::Tensor pf_logits;  ///< float32 [N, n_actions] (unmasked)
  at::Tensor pb_logits;  ///< float32 [N - pb_begin, n_actions - 1] (unmasked)
  at::Tensor log_flow;   ///< float32 [N]: log F(s) of every row; undefined without a logF head
};

// The hand-written MLP forward and backward read the model's layers (runtime/gfn/fast/
// mlp_layout.h, forward_recorder.h).
struct ModelLayout;
class ForwardRecorder;

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
  GFlowNetModel(std::int64_t input_dim, std::int64_t n_actions, const ModelOptions& model,
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

 private:
  at::Tensor pf_head(const at::Tensor& h);

  std::int64_t n_actions_;
  bool tied_;
  bool uniform_pb_;
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

}  // namespace gfn::core
