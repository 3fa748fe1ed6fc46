#pragma once
// DiffusionSampling: torchgfn's diffusion-sampling environment (src/gfn/gym/diffusion_sampling.py
// with the PinnedBrownianMotionForward / Backward estimators of src/gfn/estimators.py;
// tutorials/examples/train_diffusion_sampler.py): sample an unnormalised density R on R^d (a
// Target, runtime/gfn/targets/target.h) by a discretised stochastic process from 0 at time 0 to
// time 1 (Zhang & Chen 2022; Lahlou et al. 2023; Sendera et al. 2024). Its PF and PB are in
// diffusion_policies.h.
//
// States: float32 [B, d + 1] = (x, t), x in R^d and t in {0, 1, ..., T} the step counter (time
// t / T; torchgfn stores the time t dt itself, float-accumulated). s0 = (0, 0). A forward action
// from t < T is the increment (a, 1): x + a, t + 1, any finite a in R^d; from t = T the only
// action is exit, so every trajectory has T moves, then the exit, and the terminating states
// are the states with t = T. (torchgfn's PF exits one step earlier, when t + dt >= 1 - 0.01 dt,
// at t = (T - 1) / T, while its EUBO walks back from time 1; here both use time 1, as
// gfn-diffusion does.) A backward action from t >= 1 is the increment (a, 1) a forward step
// took: x - a, t - 1; from t = 1 the parent is s0, so a must equal x (up to a float32 tolerance
// of 1e-5 (1 + |x_i|) per coordinate), and the backward step sets x = 0 exactly. No backward
// action from s0.
//
// Reward: log R(x) = the target's log_reward of the x columns (float32); log_partition the
// target's ground-truth log Z; sample_target the target's exact samples at t = T (has_target:
// the target can be sampled). Validation compares the x columns (target_coordinates) on
// [-plot_border, plot_border] (the target's plot range). No modes.
//
// Policy inputs: (x, t / T) float32 [B, d + 1] (torchgfn's networks read the time in [0, 1]);
// with langevin, (x, t / T, g) float32 [B, 2 d + 1] where g = grad log R(x) (the target's
// grad_log_reward, NaN set to 0, clipped to [-lgv_clip, lgv_clip]: gfn-diffusion's Langevin
// input, computed at every state).
//
// Thread-safety: immutable after construction. Errors: the constructor throws
// std::invalid_argument naming the env.* key for an unknown target, a dimension the target
// refuses, n_steps < 1, sigma <= 0 or lgv_clip <= 0.
//
// Local search (local_search.mode langevin): log_reward_and_gradient gives the target's log R
// and grad log R at x; target_evaluations counts the rows at which the target was evaluated.

#include <ATen/core/Tensor.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "runtime/gfn/env/continuous_environment.h"
#include "runtime/gfn/targets/target.h"

namespace gfn::core {

struct DiffusionEnvOptions;

class DiffusionSampling final : public ContinuousEnvironment {
 public:
  explicit DiffusionSampling(const DiffusionEnvOptions& options);

  const Target& target() const { return *target_; }
  /// d, the dimension of the target (dim() is d + 1).
  std::int64_t x_dim() const { return target_->dim(); }
  int n_steps() const { return n_steps_; }
  double sigma() const { return sigma_; }
  bool langevin() const { return langevin_; }
  /// Width of policy_inputs: d + 1, or 2 d + 1 with langevin.
  std::int64_t policy_input_dim() const { return langevin_ ? 2 * x_dim() + 1 : x_dim() + 1; }

  std::string name() const override { return "diffusion"; }
  std::int64_t dim() const override { return x_dim() + 1; }
  at::Tensor initial_states(std::int64_t n) const override;
  /// t == 0.
  at::Tensor is_initial(const at::Tensor& states) const override;
  at::Tensor forward_valid(const at::Tensor& states, const at::Tensor& increments) const override;
  at::Tensor backward_valid(const at::Tensor& states, const at::Tensor& increments) const override;
  std::string forward_rule() const override;
  std::string backward_rule() const override;
  /// t == T.
  at::Tensor can_exit(const at::Tensor& states) const override;
  at::Tensor step_unchecked(const at::Tensor& states, const at::Tensor& increments) const override;
  at::Tensor backward_step_unchecked(const at::Tensor& states,
                                     const at::Tensor& increments) const override;
  at::Tensor log_reward(const at::Tensor& states) const override;
  at::Tensor policy_inputs(const at::Tensor& states) const override;
  void check_states(const at::Tensor& states, const char* who) const override;

  bool has_target() const override { return target_->can_sample(); }
  double log_partition() const override { return target_->log_partition(); }
  at::Tensor log_density(const at::Tensor& states) const override;
  at::Tensor sample_target(std::int64_t n, at::Generator& generator) const override;
  /// The x columns, float32 [B, d].
  at::Tensor target_coordinates(const at::Tensor& states) const override;
  /// (x, T) of x float32 [G, d].
  at::Tensor target_states(const at::Tensor& coordinates) const override;
  std::pair<double, double> target_range() const override;
  bool has_reward_gradient() const override { return true; }
  /// x float32 [B, d]: the target's log_reward and its autograd gradient (one evaluation).
  std::pair<at::Tensor, at::Tensor> log_reward_and_gradient(
      const at::Tensor& coordinates) const override;
  /// Rows of log_reward, log_density, log_reward_and_gradient and (with langevin)
  /// policy_inputs.
  std::int64_t target_evaluations() const override { return evaluations_.load(); }

  /// bool [B]: a = x (to float32 tolerance) on every coordinate, for x float32 [B, d] and
  /// backward increments a float32 [B, d]: the forced step back to s0 from t = 1.
  static at::Tensor returns_to_origin(const at::Tensor& x, const at::Tensor& a);

 private:
  std::unique_ptr<Target> target_;
  int n_steps_;
  double sigma_;
  bool langevin_;
  double lgv_clip_;
  mutable std::atomic<std::int64_t> evaluations_{0};
};

}  // namespace gfn::core
