#pragma once
// AdamW over flat parameter buffers: the parameters of each group become views into
// ONE contiguous float32 tensor (and their gradients views into a second one), so an
// optimizer step is one fused pass per group (a plain C++ loop over the four flat
// buffers, vectorized by the compiler) instead of ~15 ATen ops per parameter tensor
// (torch::optim::AdamW in LibTorch 1.13 has no foreach/fused variant; Python's
// `foreach=True` / `fused=True` do the same multi-tensor trick). With the 13 parameter
// tensors of the bench models this takes zero_grad + step from ~200 small ops to 2 fills
// and 2 loops.
//
// Update rule: exactly torch::optim::AdamW's (LibTorch 1.13, amsgrad off), the same
// float32 operations in the same order, so updates are BIT-IDENTICAL to it
// (tests/runtime/gfn/fast/flat_adam_test.cc). ATen rounds the two moment updates once (FMA)
// in its AVX2/AVX-512 kernels and twice in its default ones; the constructor runs those
// two ATen ops on a few values to see which, and picks the matching loop (Kernel). If
// neither matches, or FlatAdamPaths::fused is false, step() runs ATen's op sequence on the
// flat buffers instead (9 ops per group):
//   p *= 1 - lr * weight_decay;   m = b1 m + (1-b1) g;   v = b2 v + (1-b2) g^2
//   p -= lr / (1 - b1^t) * m / (sqrt(v) / sqrt(1 - b2^t) + eps)
// The FMA kernel divides by sqrt(1 - beta2^t) without a division instruction (two Newton
// corrections with FMA residuals, correctly rounded by Markstein's theorem: the same bits;
// the loop is bound by the divider, two divisions and a square root per element), unless
// FlatAdamPaths::plain_loops is false (plain_loops.h; A/B switch).
// Two differences: (1) a parameter outside the loss's graph has a zero gradient (a view
// that is always defined) instead of none, so AdamW would skip it while here it takes a
// step with g = 0 (no change unless weight decay is on or it had gradients before).
// (2) The fused loop runs with flush-to-zero / denormals-are-zero (x86 MXCSR, restored
// after the loop): moments that decay into the subnormal range (< 1.2e-38, e.g. of
// dead ReLU units after ~800 steps) become 0 instead of costing a microcode assist per
// multiply (0.10 -> 0.78 ms per step at 2-D h8 after 1,500 iterations without it); such
// values move a parameter by < 1e-33, so the parameters stay bit-identical.
//
// Re-homing: the groups' parameter buffers are consecutive slices of one float32 tensor
// (all_parameters(), in group order), their gradient buffers slices of another
// (all_gradients()). The constructor copies each parameter into its group's buffer and points
// the parameter at its slice (Tensor::set_data), so the module (and model averaging,
// which works in place on parameters() and their grads) sees the same values; the
// gradients are preset to views of the gradient buffer, into which autograd then
// accumulates in place. step() checks that no parameter or gradient was replaced since
// (std::logic_error otherwise). Not thread-safe; float32 CPU parameters only.
//
// Implements the Learner's Optimizer interface (runtime/gfn/optimizer.h; its reference
// implementation is TorchAdamW); save_state / load_state are in flat_adam_state.cc.

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

#include "runtime/gfn/optimizer.h"

namespace gfn::core {

/// Which step() implementation FlatAdamW may use (engine.fused_adam, engine.plain_loops in
/// runtime/gfn/engine_options.h; the defaults are the fast paths).
struct FlatAdamPaths {
  /// A fused loop when its roundings match ATen's kernels on this CPU (detected at
  /// construction); false: ATen's op sequence on the flat buffers (A/B measurements).
  bool fused = true;
  /// The FMA loop's division by sqrt(1 - beta2^t) without a division instruction; false:
  /// the division (same bits).
  bool plain_loops = true;
};

class FlatAdamW final : public Optimizer {
 public:
  struct Group {
    std::vector<at::Tensor> params;  ///< leaf float32 tensors with requires_grad
    double lr = 1e-3;
    double weight_decay = 0.0;  ///< decoupled (AdamW) weight decay
  };
  /// Throws std::invalid_argument for an empty group, a parameter that is not a
  /// float32 CPU leaf, a parameter listed twice, lr < 0 or weight_decay < 0.
  explicit FlatAdamW(std::vector<Group> groups, FlatAdamPaths paths = {}, double beta1 = 0.9,
                     double beta2 = 0.999, double eps = 1e-8);
  /// The Learner's two groups (optimizer.h), logZ without weight decay.
  FlatAdamW(const AdamWGroups& groups, FlatAdamPaths paths);

  /// Sets every gradient to zero (one fill per group).
  void zero_grad() override;
  /// One AdamW step on every group. Throws std::logic_error if a parameter's storage or
  /// gradient was replaced since construction.
  void step() override;

  std::int64_t steps_done() const { return step_; }
  /// Forgets the optimizer state: both moment buffers become zero and the step count 0,
  /// as a freshly constructed FlatAdamW (a respawned agent, runtime/distributed/spawn/).
  /// The parameters and gradients are untouched. O(parameters).
  void reset_state() override;
  /// "step", "n_groups", "exp_avg<i>" and "exp_avg_sq<i>" (flat_adam_state.cc).
  void save_state(torch::serialize::OutputArchive& archive) const override;
  /// Restores them through load_state(step, exp_avg, exp_avg_sq).
  void load_state(torch::serialize::InputArchive& archive) override;
  /// Every group's lr = its Group::lr as constructed times `scale`.
  void set_learning_rate_scale(double scale) override;

  /// How step() computes: a fused loop with ATen's roundings, or ATen's own ops.
  enum class Kernel { kFusedFma, kFusedSeparate, kAtenOps };
  Kernel kernel() const { return kernel_; }
  static const char* kernel_name(Kernel k);
  /// The kernel a FlatAdamW built with `paths` and these betas uses on this CPU: the fused
  /// loop whose roundings match ATen's on a few values, else (or without paths.fused) ATen's
  /// ops. Deterministic for a CPU; microseconds.
  static Kernel detect_kernel(FlatAdamPaths paths, double beta1 = 0.9, double beta2 = 0.999);
  /// The flat parameter buffer of group i, float32 [sum of numels] (tests, checkpoints).
  const at::Tensor& flat_params(std::size_t i) const { return flat_[i].params; }
  /// Every group's parameters, in group order, as one float32 tensor [sum of numels]:
  /// model averaging all-reduces it in place (runtime/distributed/model_averaging.h).
  const at::Tensor& all_parameters() const { return all_params_; }
  /// Every group's gradients, laid out as all_parameters().
  const at::Tensor& all_gradients() const { return all_grads_; }
  /// The first moment (exp_avg) buffer of group i, float32 [sum of numels] (tests).
  const at::Tensor& flat_exp_avg(std::size_t i) const { return flat_[i].exp_avg; }
  /// The second moment (exp_avg_sq) buffer of group i, laid out as flat_exp_avg(i).
  const at::Tensor& flat_exp_avg_sq(std::size_t i) const { return flat_[i].exp_avg_sq; }
  std::size_t n_groups() const { return flat_.size(); }
  /// Checkpoints (runtime/gfn/learner_state.cc): sets the step count and copies the moments
  /// of every group (float32 tensors shaped as flat_exp_avg(i)) into the buffers in place.
  /// Throws std::invalid_argument for a wrong number of groups or a shape mismatch.
  void load_state(std::int64_t step, const std::vector<at::Tensor>& exp_avg,
                  const std::vector<at::Tensor>& exp_avg_sq);

 private:
  struct Flat {
    Group group;
    double base_lr = 0;  ///< group.lr as constructed (set_learning_rate_scale)
    at::Tensor params, grads, exp_avg, exp_avg_sq;   ///< float32 [numel] each
    std::vector<const void*> param_ptrs, grad_ptrs;  ///< to detect a replaced tensor
  };
  std::vector<Flat> flat_;
  at::Tensor all_params_, all_grads_;  ///< flat_[i].params / .grads are slices of these
  double beta1_, beta2_, eps_;
  bool plain_loops_ = true;
  std::int64_t step_ = 0;
  Kernel kernel_ = Kernel::kAtenOps;
};

}  // namespace gfn::core
