#pragma once
// ContinuousPolicy: how a network's raw outputs become a distribution over the actions of a
// ContinuousEnvironment (runtime/gfn/env/continuous_environment.h), forward (PF: increments
// or exit) or backward (PB: increments back to the parent), as torchgfn's
// Estimator.to_probability_distribution with its Distribution's sample / log_prob. The
// distribution families themselves are in runtime/gfn/distributions/ (distribution.h);
// a policy adds what the environment imposes: the exit or back-to-source choice, the range
// of each increment and the Jacobian of mapping the family's support onto it. Box's policies
// (Beta mixtures): runtime/gfn/env/box_policies.h; Line's (Normal): line_policies.h.
//
// Shapes: states float32 [B, d] (the environment's), outputs float32 [B, n_outputs()] (the
// network's, unconstrained), actions ContinuousActions of B rows (a backward policy's have
// is_exit all false). log_prob returns the log-density of the action w.r.t. Lebesgue measure
// on the increment (times the probability of the discrete choice that came with it), -inf for
// an action outside the policy's support.
//
// Temperature T > 0 (torchgfn's estimator.temperature): the policy divides the logits of its
// discrete choices (exit or back to source, mixture components) by T; T = 1 is the policy
// itself. A policy without discrete choices says what T means for it (Line: T - 1 added to
// the Normal's scale, train_line.py's scale_factor). Thread-safety: implementations are immutable;
// sample draws only from `generator`.

#include <ATen/core/Generator.h>
#include <ATen/core/Tensor.h>

#include <cstdint>

#include "runtime/gfn/env/continuous_environment.h"

namespace gfn::core {

class ContinuousPolicy {
 public:
  virtual ~ContinuousPolicy() = default;
  /// Width of the network output this policy reads.
  virtual std::int64_t n_outputs() const = 0;
  /// One action per row (no autograd graph).
  virtual ContinuousActions sample(const at::Tensor& states, const at::Tensor& outputs,
                                   double temperature, at::Generator& generator) const = 0;
  /// float32 [B]: log-density of each row's action, differentiable w.r.t. outputs.
  virtual at::Tensor log_prob(const at::Tensor& states, const at::Tensor& outputs,
                              const ContinuousActions& actions, double temperature) const = 0;
};

}  // namespace gfn::core
