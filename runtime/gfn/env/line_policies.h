#pragma once
// The forward and backward policies of Line (line.h), torchgfn's tutorials/examples/
// train_line.py: GaussianStepMLP's two outputs [loc, raw scale] read by StepEstimator into
// ScaledGaussianWithOptionalExit. Both read n_outputs() = 2 columns; the Normal
// (runtime/gfn/distributions/normal.h) has mean loc and scale
//   sigma = std_min + (std_max - std_min) sigmoid(raw)   (GaussianStepMLP.forward)
// plus the exploration scale_factor of train_line.py's off-policy sampling (below).
//
// Forward (PF), from (x, t): at t = n_steps the exit, forced (log-prob 0, the p = 1 event of
// torchgfn's exit); otherwise the increment (a, 1) with a ~ N(loc, sigma^2), log-density
// log N(a; loc, sigma^2) (-inf for an exit before n_steps or a move at n_steps).
// Backward (PB), from (x, t), t >= 1: at t = 1 back to s0, forced (a = x - init_value,
// log-prob 0: torchgfn's S1 -> S0 transition); otherwise (a, 1) with a ~ N(loc, sigma^2) and
// log-density log N(a; loc, sigma^2). An action that is not a valid backward action of Line
// (line.h backward_valid) has log-density -inf; rows at s0 have -inf.
//
// Temperature T >= 1 is train_line.py's exploration: sampling with scale_factor = T - 1 added
// to sigma (sigma + scale_factor, StepEstimator.to_probability_distribution), so T = 1 is the
// policy itself; train.temperature_start 3 with temperature 1 and
// train.temperature_anneal_fraction 1 is the script's linspace(2, 0) schedule. T < 1 has no
// meaning for these policies and is refused.
//
// Thread-safety: immutable after construction. Errors: the constructors throw
// std::invalid_argument naming the option unless 0 < std_min < std_max (finite); sample /
// log_prob throw it for outputs of the wrong shape or T < 1.

#include <ATen/core/Generator.h>
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <utility>

#include "runtime/gfn/continuous/policy.h"

namespace gfn::core {

class Line;

struct LinePolicyOptions {
  double std_min = 0.1;  ///< env.policy_std_min
  double std_max = 1.0;  ///< env.policy_std_max
};

/// What both policies share: Line's n_steps and init_value (copied), the options and the
/// mapping of outputs to the Normal's loc and scale.
class LinePolicy : public ContinuousPolicy {
 public:
  std::int64_t n_outputs() const override { return 2; }

 protected:
  LinePolicy(const Line& line, const LinePolicyOptions& options);
  /// loc and sigma + (T - 1), each float32 [B], of outputs float32 [B, 2]; throws for another
  /// shape or T < 1 naming `who`.
  std::pair<at::Tensor, at::Tensor> normal_parameters(const at::Tensor& outputs, double temperature,
                                                      const char* who) const;
  int n_steps_;
  double init_value_;
  LinePolicyOptions options_;
};

class LineForwardPolicy final : public LinePolicy {
 public:
  LineForwardPolicy(const Line& line, const LinePolicyOptions& options)
      : LinePolicy(line, options) {}
  ContinuousActions sample(const at::Tensor& states, const at::Tensor& outputs, double temperature,
                           at::Generator& generator) const override;
  at::Tensor log_prob(const at::Tensor& states, const at::Tensor& outputs,
                      const ContinuousActions& actions, double temperature) const override;
};

class LineBackwardPolicy final : public LinePolicy {
 public:
  LineBackwardPolicy(const Line& line, const LinePolicyOptions& options)
      : LinePolicy(line, options) {}
  /// is_exit is all false; a row at t = 1 has the increment (x - init_value, 1).
  ContinuousActions sample(const at::Tensor& states, const at::Tensor& outputs, double temperature,
                           at::Generator& generator) const override;
  /// actions.is_exit is ignored.
  at::Tensor log_prob(const at::Tensor& states, const at::Tensor& outputs,
                      const ContinuousActions& actions, double temperature) const override;
};

}  // namespace gfn::core
