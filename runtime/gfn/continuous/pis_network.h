#pragma once
// PISGradNet: the forward network of diffusion samplers (Zhang & Chen 2022, the Path Integral
// Sampler; torchgfn's DiffusionPISGradNetForward, src/gfn/utils/modules.py, used by
// tutorials/examples/train_diffusion_sampler.py), with gfn-diffusion's optional Langevin term
// (energy_sampling/models/gfn.py with pis_architectures and langevin: LangevinScalingModelPIS,
// per dimension). For x in R^d and time tau in [0, 1]:
//
//   phi(tau)  = [sin(tau pe + phase), cos(tau pe + phase)], pe = linspace(0.1, 100, H), phase a
//               learned vector ~ N(0, 1) (H = harmonics_dim)
//   t_emb     = Linear(h, emb)(GELU(Linear(2 H, h)(phi(tau))))
//   s_emb     = Linear(d, emb)(x)
//   drift     = Linear(h, d)(joint(GELU(s_emb + t_emb))), joint = Linear(emb, h), GELU, then
//               (joint_layers - 1) x [Linear(h, h), GELU]
//   langevin: drift += s(tau) * g, s(tau) = lgv(phi'(tau)) of its own phase and pe (width
//               emb), lgv = Linear(2 emb, h), (lgv_layers - 1) x [GELU, Linear(h, h)], GELU,
//               Linear(h, d); g = grad log R(x), given in the input.
//
// zero_init: the drift head's weights 1e-8 and bias 0 (torchgfn), the Langevin head's weights 0
// and bias 0.01 (gfn-diffusion). Linear layers otherwise keep LibTorch's (PyTorch's) default
// initialisation; the phases draw from LibTorch's default generator (torch::manual_seed).
// Parameter names: "t_phase", "t_model.*", "s_model.*", "joint_model.*", "drift_head.*", and
// with langevin "lgv_phase", "lgv_model.*".
//
// Shared time embedding (shared_time_embedding, the default): phi(tau) and the networks that read
// only it (t_model; lgv_model with langevin) run once per DISTINCT tau of the batch and their rows
// are gathered back (index_select, whose gradient sums over the rows that share a time). The rows
// of a sampling step all share one time and a batch of B trajectories of T steps has T + 1
// distinct times, so this replaces B (T + 1) rows of the time encoding by T + 1 (the largest GEMMs
// of the network: 2 H x h and h x emb per row, against d x emb for the state). The same function:
// drift and gradients equal the plain path's (every row computed) to float32 rounding (tested,
// tests/runtime/gfn/env/diffusion_test.cc). Cost of the lookup: one at::_unique2 (a sort) of the
// N times.
//
// Not thread-safe (a Module).

#include <torch/nn/module.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/linear.h>

#include <cstdint>
#include <vector>

namespace gfn::core {

/// The state path's activations of a PISGradNet (without langevin) on a step-major batch of
/// K steps of B rows, saved by the fused sampler (PisNetwork::step_drift_saved) so that the
/// loss reuses the sampling forward (PisNetwork::saved_forward) instead of recomputing it.
/// pre[0] = s_model(x) + t_emb (float32 [K B, emb]), pre[j] = joint layer j's Linear output
/// (float32 [K B, h], j = 1..joint_layers), post[j] = GELU(pre[j]), slope[j] = GELU'(pre[j])
/// (the backward's factor, stored by the same pass); drift float32 [K B, d]. Valid
/// only while the parameters are those that computed it (the same training iteration).
struct PisActivations {
  at::Tensor x;  ///< float32 [K B, d], the inputs (a view of the sampled states)
  std::vector<at::Tensor> pre, post, slope;
  at::Tensor drift;
  std::int64_t steps = 0;          ///< K
  std::int64_t rows_per_step = 0;  ///< B
};

struct PisNetworkOptions {
  std::int64_t x_dim = 2;  ///< d
  int harmonics_dim = 64;  ///< H
  int emb_dim = 64;        ///< torchgfn's s_emb_dim = t_emb_dim
  int hidden_dim = 64;     ///< h
  int joint_layers = 2;    ///< hidden layers of the joint network
  bool zero_init = false;  ///< (above)
  bool langevin = false;   ///< the input carries g and the drift adds s(tau) * g
  int lgv_layers = 3;      ///< Linear layers of the Langevin scaling network before its head
  bool shared_time_embedding = true;  ///< time networks once per distinct tau (above); false:
                                      ///< every row (the plain path the fast one is tested on)
};

class PisNetwork : public torch::nn::Module {
 public:
  /// Throws std::invalid_argument unless every width and layer count is >= 1.
  explicit PisNetwork(const PisNetworkOptions& options);
  /// The input width: d + 1 (x, tau), or 2 d + 1 with langevin (x, tau, g).
  std::int64_t input_dim() const {
    return options_.langevin ? 2 * options_.x_dim + 1 : options_.x_dim + 1;
  }
  /// The drift float32 [N, d] of inputs float32 [N, input_dim()].
  at::Tensor forward(const at::Tensor& input);

  /// Sampling steps at known times (diffusion's fused sampler, continuous/sampler.h), without
  /// langevin: step_biases(tau) of the K times tau float32 [K, 1] is float32 [K, emb], row k =
  /// t_model(phi(tau_k)) + s_model's bias; step_drift(x, row) of x float32 [N, d] (strided
  /// allowed) and one such row [1, emb] is the drift float32 [N, d] of (x, tau_k): the state
  /// encoding's GEMM takes the time embedding as its bias, the forward pass of a step in 4
  /// GEMMs. Equal to forward to float32 rounding (tested). Throws std::logic_error with
  /// langevin.
  at::Tensor step_biases(const at::Tensor& tau);
  at::Tensor step_drift(const at::Tensor& x, const at::Tensor& bias_row);
  /// The drift float32 [K B, d], with autograd, of x float32 [K B, d] (strided allowed) whose
  /// rows [k B, (k + 1) B) all have the time tau_k of tau float32 [K, 1] (a step-major batch,
  /// diffusion's loss pass, continuous_log_probs): the K time embeddings (step_biases) are
  /// broadcast over the B rows of their step instead of found per row (no sort, no gather;
  /// the backward sums each step's rows). Equal to forward to float32 rounding (tested).
  /// Throws std::logic_error with langevin, std::invalid_argument unless K divides the rows.
  at::Tensor step_major_forward(const at::Tensor& x, const at::Tensor& tau);

  /// Reuse of the sampling forward (engine.reuse_logprobs; continuous/sampler.h): buffers for
  /// K steps of B rows whose inputs will be x float32 [K B, d] (a view, filled step by step).
  PisActivations allocate_activations(const at::Tensor& x, std::int64_t steps,
                                      std::int64_t rows_per_step) const;
  /// step_drift of step k, no autograd, computed into saved's rows [k B, (k + 1) B) (x of
  /// saved.x's rows), on raw arrays (the fused sampler's loop): bias_row points at emb floats
  /// (a row of step_biases); returns the drift rows [B, d] of step k in saved.drift
  /// (contiguous). No ATen call per step: oneDNN's sgemm (dnnl_sgemm, row-major; the
  /// summation order is oneDNN's, not OpenBLAS's: equal to forward to float32 rounding,
  /// tested) on the weights' and saved's buffers, GELU by exact_gelu_slope (equal to at::gelu
  /// to float32 rounding). Throws std::logic_error with langevin or non-contiguous weights
  /// (nn::Linear's are), std::invalid_argument unless saved.x has unit column stride.
  const float* step_drift_saved(const float* bias_row, PisActivations& saved, std::int64_t k);
  /// step_major_forward(saved.x, tau) without recomputing it: saved.drift with an autograd node
  /// whose backward is the network's (the weights', biases' and time embeddings' gradients from
  /// the saved activations, batched over all K B rows: 2 GEMMs per layer, 1 for s_model, by
  /// oneDNN's sgemm on the buffers; GELU's derivative saved by step_drift_saved, its product and
  /// the bias gradients' column sums in one pass per layer, summed in double over 64-row float
  /// blocks). Cost: 2 GEMMs of 2 K B n_in n_out FLOPs per Linear layer of the state path (1
  /// for s_model) and one pass over each layer's [K B, width] gradient.
  /// The same drift and gradients as step_major_forward to float32 rounding (tested), if the
  /// parameters have not changed since saved was computed (not checked). The time embeddings
  /// (step_biases(tau), K rows) are recomputed with autograd.
  at::Tensor saved_forward(const PisActivations& saved, const at::Tensor& tau);

 private:
  /// [sin(tau pe + phase), cos(tau pe + phase)] of tau float32 [N, 1].
  static at::Tensor harmonics(const at::Tensor& tau, const at::Tensor& pe, const at::Tensor& phase);
  /// model(harmonics(tau)) of tau float32 [N, 1], [N, model's width]: per row, or per distinct
  /// tau gathered back to the rows (options_.shared_time_embedding).
  at::Tensor time_network(const at::Tensor& tau, torch::nn::Sequential& model, const at::Tensor& pe,
                          const at::Tensor& phase);
  PisNetworkOptions options_;
  at::Tensor t_phase_, t_pe_, lgv_phase_, lgv_pe_;
  torch::nn::Sequential t_model_{nullptr};
  torch::nn::Linear s_model_{nullptr};
  torch::nn::Sequential joint_model_{nullptr};
  std::vector<torch::nn::Linear> joint_linears_;  ///< joint_model_'s Linear layers, in order
  torch::nn::Linear drift_head_{nullptr};
  torch::nn::Sequential lgv_model_{nullptr};
};

}  // namespace gfn::core
