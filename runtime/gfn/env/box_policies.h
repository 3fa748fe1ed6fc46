#pragma once
// The forward and backward policies of Box (box.h) over Cartesian increments, following
// torchgfn's BoxCartesianDistribution / BoxCartesianPBDistribution and their estimators
// (src/gfn/gym/helpers/box_cartesian_utils.py). Both read a network output of
// n_outputs() = 1 + 3 d K columns: [logit, mixture logits (d K), alpha (d K), beta (d K)],
// each block row-major [d, K]; the Beta mixture (runtime/gfn/distributions/beta_mixture.h)
// has concentrations min + (max - min) sigmoid(raw) and weights log_softmax(logits / T).
// eps below is BoxPolicyOptions::numerical_epsilon (1e-6, torchgfn's numerical_epsilon; not
// the environment's epsilon).
//
// Forward (PF), from state s:
//   exit with probability sigmoid(logit / T), never from s0, always when some s_i >= 1 -
//   delta - eps ("at the boundary": no increment of delta fits); otherwise the increment
//   a_i = m + r_i w_i with r_i ~ the mixture of coordinate i, clamped to [0, 1], where
//   m = 0 and w_i = 1 from s0 (the first step reaches the whole box), and m = delta,
//   w_i = max(1 - s_i - delta, eps) elsewhere; a_i is then clamped to [0, 1 - s_i] (1 from
//   s0). log-density of an increment: log(1 - sigmoid(logit / T)) (not from s0)
//   + sum_i [log mixture_i(clamp(r_i, eps, 1 - eps)) - log w_i] with r_i = (a_i - m) / w_i;
//   of exit: log sigmoid(logit / T); -inf for exit from s0, a move at the boundary or an r_i
//   outside [-eps, 1 + eps].
// Backward (PB), from s != s0: back to source (a = s, the parent is s0), forced (log-prob 0)
//   when some s_i <= delta, else with probability sigmoid(logit / T); otherwise a_i = delta +
//   r_i w_i with w_i = max(s_i - delta, eps), clamped to s_i. An action counts as back to
//   source when every |a_i - s_i| < delta / 2. log-density of a move: log(1 - sigmoid(logit /
//   T)) + sum_i [log mixture_i(clamp(r_i, eps, 1 - eps)) - log w_i] (NaN and infinities of
//   the sum mapped to -1e6 / 1e6 as torchgfn does), -inf for an r_i outside [-eps, 1 + eps].
//
// torchgfn's "uniform" backward policy for this environment (UniformModule with fill value
// 1.0, benchmark scenario tb_box_2d_uniform_pb) is the backward policy of constant raw
// outputs kFixedBackwardOutput: back to source with probability sigmoid(1), equal mixture
// weights and Beta(a, a) increments with a = min + (max - min) sigmoid(1) (73.1 with the
// default range). It is fixed, not uniform in the increment.
//
// Thread-safety: immutable after construction. Errors: the constructors throw
// std::invalid_argument naming the option for n_components < 1, an invalid concentration
// range or a numerical_epsilon outside (0, 0.5); sample / log_prob throw it for outputs of
// the wrong shape.

#include <ATen/core/Generator.h>
#include <ATen/core/Tensor.h>

#include <cstdint>

#include "runtime/gfn/continuous/policy.h"
#include "runtime/gfn/distributions/beta_mixture.h"

namespace gfn::core {

class Box;

struct BoxPolicyOptions {
  int n_components = 5;  ///< K, Beta components per coordinate (the box benchmarks' 5)
  distributions::BetaMixtureRange concentration;  ///< [0.1, 100], the benchmarks' range
  double numerical_epsilon = 1e-6;                ///< eps above, in (0, 0.5)
};

/// Raw output of torchgfn's fixed ("uniform") Box backward policy module.
inline constexpr double kFixedBackwardOutput = 1.0;

/// What both policies share: the Box's delta and dim (copied, not a reference to the Box), the
/// options and the output width.
class BoxPolicy : public ContinuousPolicy {
 public:
  std::int64_t n_outputs() const override { return 1 + 3 * dim_ * options_.n_components; }

 protected:
  BoxPolicy(const Box& box, const BoxPolicyOptions& options);
  std::int64_t dim_;
  double delta_;
  BoxPolicyOptions options_;
};

class BoxForwardPolicy final : public BoxPolicy {
 public:
  BoxForwardPolicy(const Box& box, const BoxPolicyOptions& options) : BoxPolicy(box, options) {}
  ContinuousActions sample(const at::Tensor& states, const at::Tensor& outputs, double temperature,
                           at::Generator& generator) const override;
  at::Tensor log_prob(const at::Tensor& states, const at::Tensor& outputs,
                      const ContinuousActions& actions, double temperature) const override;
};

class BoxBackwardPolicy final : public BoxPolicy {
 public:
  BoxBackwardPolicy(const Box& box, const BoxPolicyOptions& options) : BoxPolicy(box, options) {}
  /// is_exit is all false; a back-to-source row has increments == states.
  ContinuousActions sample(const at::Tensor& states, const at::Tensor& outputs, double temperature,
                           at::Generator& generator) const override;
  /// actions.is_exit is ignored.
  at::Tensor log_prob(const at::Tensor& states, const at::Tensor& outputs,
                      const ContinuousActions& actions, double temperature) const override;
};

}  // namespace gfn::core
