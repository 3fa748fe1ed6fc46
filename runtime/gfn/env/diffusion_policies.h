#pragma once
// The forward and backward policies of DiffusionSampling (diffusion.h): torchgfn's
// PinnedBrownianMotionForward and PinnedBrownianMotionBackward (src/gfn/estimators.py) with
// their IsotropicGaussian (src/gfn/utils/distributions.py). dt = 1 / T; a state's time is
// t dt (t its step counter); every log-density is the sum over the d coordinates of a
// Normal's (runtime/gfn/distributions/normal.h), exact w.r.t. Lebesgue measure on R^d.
//
// Forward (PF), from (x, t): n_outputs() = d, the drift f (the network's output; torchgfn's
// DiffusionPISGradNetForward). At t = T the exit, forced (log-prob 0). Otherwise the increment
// (a, 1) with a ~ N(f dt, s^2 I), s = sigma sqrt(dt): Euler-Maruyama's x + f dt + sigma
// sqrt(dt) eps. Temperature T_e >= 1 is torchgfn's exploration_std e = T_e - 1 (the
// temperature's excess, as Line's scale_factor), combined in variance: s = sqrt(sigma^2 dt +
// e^2); T_e = 1 is the policy itself. An exit before T, a move at T or a non-finite a has
// log-density -inf.
//
// Backward (PB), fixed (no network; torchgfn's DiffusionFixedBackwardModule, zero outputs):
// the Brownian bridge of sigma W pinned at 0 at time 0. From (x, t), t >= 2: a ~ N(x / t,
// sigma^2 dt (t - 1) / t I) (torchgfn: mean x dt / time, std sigma sqrt(dt (time - dt) /
// time)). From t = 1: back to s0, forced (a = x, log-prob 0; torchgfn's scale-0 step, whose
// log-prob it sets to 0). n_outputs() = d (the outputs, all 0, are not read: torchgfn's
// learned corrections times pb_scale_range vanish for the fixed module). An action that is not
// a valid backward action (diffusion.h backward_valid) has log-density -inf; rows at s0 -inf.
//
// Thread-safety: immutable after construction. Errors: sample / log_prob throw
// std::invalid_argument for outputs of the wrong shape or a temperature < 1.

#include <ATen/core/Generator.h>
#include <ATen/core/Tensor.h>

#include <cstdint>

#include "runtime/gfn/continuous/policy.h"

namespace gfn::core {

class DiffusionSampling;

/// What both policies share: d, T and sigma (copied from the environment).
class DiffusionPolicy : public ContinuousPolicy {
 public:
  std::int64_t n_outputs() const override { return d_; }

 protected:
  explicit DiffusionPolicy(const DiffusionSampling& env);
  /// Throws std::invalid_argument naming `who` unless outputs is float32 [B, d] and T >= 1.
  void check(const at::Tensor& outputs, double temperature, const char* who) const;
  /// (a, 1) of a float32 [B, d].
  static at::Tensor increments_of(const at::Tensor& a);
  std::int64_t d_;
  int n_steps_;
  double sigma_;
};

class DiffusionForwardPolicy final : public DiffusionPolicy {
 public:
  explicit DiffusionForwardPolicy(const DiffusionSampling& env) : DiffusionPolicy(env) {}
  /// The step's standard deviation sqrt(sigma^2 dt + (T_e - 1)^2).
  double step_std(double temperature) const;
  ContinuousActions sample(const at::Tensor& states, const at::Tensor& outputs, double temperature,
                           at::Generator& generator) const override;
  at::Tensor log_prob(const at::Tensor& states, const at::Tensor& outputs,
                      const ContinuousActions& actions, double temperature) const override;
  /// log_prob's Normal without its checks, for moves known valid (sampled by this policy
  /// from t < T; continuous_log_probs' trusted path): float32 [R], differentiable w.r.t.
  /// drift, of moves a float32 [R, d] (strided allowed) and drift float32 [R, d]. Equal to
  /// log_prob on such rows (tested); a non-finite a gives a non-finite value, not a check. One
  /// autograd node (distributions/isotropic_normal_rows.h).
  at::Tensor move_log_prob(const at::Tensor& a, const at::Tensor& drift, double temperature) const;
  /// The fused sampler's step (continuous/sampler.h), no autograd: eps ~ N(0, I) into `noise`
  /// (float32 [B, d], contiguous, overwritten), then the moves f dt + s eps of drift f (float32
  /// [B, d], contiguous) into `a` and x + a into `next`, one pass over the B d values (x, a and
  /// next float32 [B, d] with unit column stride: views of the trajectory's rows). It draws
  /// from the generator exactly what sample draws for B rows, so the stream stays the general
  /// loop's (tested). drift undefined: the draw only (the exit step's, which sample makes and
  /// discards; x, a and next unused). Throws std::invalid_argument for other shapes or layouts.
  void draw_step(const at::Tensor& drift, double temperature, at::Tensor& noise,
                 const at::Tensor& x, at::Tensor a, at::Tensor next,
                 at::Generator& generator) const;
  /// The same step on raw rows (the fused sampler's loop, no tensor view per step): drift
  /// float32 [B, d] contiguous, x, a and next B rows of d floats at the given row strides
  /// (unit column stride), B = noise.size(0). Throws std::invalid_argument unless noise is a
  /// contiguous float32 [B, d] and temperature >= 1; the rows are not checked (the tensor
  /// overload checks them).
  void draw_step(const float* drift, double temperature, at::Tensor& noise, const float* x,
                 std::int64_t x_stride, float* a, std::int64_t a_stride, float* next,
                 std::int64_t next_stride, at::Generator& generator) const;
};

class DiffusionBackwardPolicy final : public DiffusionPolicy {
 public:
  explicit DiffusionBackwardPolicy(const DiffusionSampling& env) : DiffusionPolicy(env) {}
  /// is_exit all false; a row at t = 1 has the increment (x, 1). The temperature is checked
  /// and otherwise unused (the bridge is fixed).
  ContinuousActions sample(const at::Tensor& states, const at::Tensor& outputs, double temperature,
                           at::Generator& generator) const override;
  /// actions.is_exit is ignored; so is the temperature, after its check.
  at::Tensor log_prob(const at::Tensor& states, const at::Tensor& outputs,
                      const ContinuousActions& actions, double temperature) const override;
  /// log_prob without its checks on the children of a step-major batch of B trajectories
  /// sampled forward by this environment (continuous_log_probs' trusted path): x float32 CPU
  /// [T B, d] (any row stride, unit column stride) of the states at t = 1..T (rows
  /// [(t - 1) B, t B) at time t), a float32 CPU [T B, d] (the same) the increments that led
  /// to them. float32 [T B], no autograd: the bridge's density from t >= 2, 0 at t = 1 (the
  /// forced step back to s0; a = x by construction). One pass over the rows (16 partial sums
  /// per row, vectorized); equal to log_prob on such rows to float32 rounding (tested). Throws
  /// std::invalid_argument unless T divides the rows and the layouts are as said.
  at::Tensor step_major_log_prob(const at::Tensor& x, const at::Tensor& a) const;

 private:
  /// The bridge's mean float32 [B, d] and standard deviation float32 [B, 1] from (x, t),
  /// t >= 2 (rows with t < 2 get std 1, unused).
  std::pair<at::Tensor, at::Tensor> bridge(const at::Tensor& states) const;
};

}  // namespace gfn::core
