#pragma once
// A mixture of K Beta distributions on [0, 1] per batch element: the increments of torchgfn's
// Box Cartesian policies (src/gfn/gym/helpers/box_cartesian_utils.py, _BetaMixtureMixin:
// a Categorical over components, then a Beta of the chosen component; log-density
// logsumexp_k(log w_k + log Beta(x; alpha_k, beta_k))).
//
// Draws follow torch.distributions draw for draw with the same generator state:
// Categorical(logits=log_weights).sample() (at::multinomial of the softmax with replacement,
// one draw per element), then Beta(alpha_c, beta_c).sample() (at::_sample_dirichlet of
// [alpha_c, beta_c]) (tests/runtime/gfn/distributions/beta_mixture_test.cc checks it against
// python3-torch). log_prob(x) = logsumexp_k(log_weights_k + (alpha_k - 1) log x +
// (beta_k - 1) log(1 - x) + lgamma(alpha_k + beta_k) - lgamma(alpha_k) - lgamma(beta_k)),
// torch's Beta.log_prob per component; x must be inside (0, 1) for a finite value when a
// concentration is below 1 (the Box policies clamp it to [1e-6, 1 - 1e-6]).
//
// Cost: sample O(batch * K) plus one gamma draw pair per element; log_prob O(batch * K).

#include <ATen/core/Generator.h>
#include <ATen/core/Tensor.h>

#include "runtime/gfn/distributions/distribution.h"

namespace gfn::distributions {

/// How raw network outputs become a mixture's parameters (torchgfn's BoxCartesian
/// estimators): concentrations min + (max - min) * sigmoid(raw), mixture weights
/// log_softmax(logits / temperature).
struct BetaMixtureRange {
  double min_concentration = 0.1;  ///< > 0
  double max_concentration = 100;  ///< >= min_concentration
};

class BetaMixture final : public Distribution {
 public:
  /// log_weights, alpha and beta: float32 [..., K] (K >= 1) of one shape; log_weights
  /// normalised over the last dimension (log_softmax), alpha and beta > 0. The batch shape is
  /// [...]. Throws std::invalid_argument for mismatched shapes, dtypes or K = 0.
  BetaMixture(at::Tensor log_weights, at::Tensor alpha, at::Tensor beta);

  /// The mixture of raw outputs, each float32 [..., K]: the mapping of BetaMixtureRange with
  /// temperature T > 0 (applied to the mixture logits only, as torchgfn does). Throws
  /// std::invalid_argument for a range with min <= 0 or max < min, or T <= 0.
  static BetaMixture from_raw(const at::Tensor& mixture_logits, const at::Tensor& alpha_raw,
                              const at::Tensor& beta_raw, const BetaMixtureRange& range,
                              double temperature = 1.0);

  const at::Tensor& log_weights() const { return log_weights_; }
  const at::Tensor& alpha() const { return alpha_; }
  const at::Tensor& beta() const { return beta_; }

  /// float32 [...] in [0, 1].
  at::Tensor sample(at::Generator& generator) const override;
  /// value float32 [...] -> float32 [...].
  at::Tensor log_prob(const at::Tensor& value) const override;

 private:
  at::Tensor log_weights_;
  at::Tensor alpha_;
  at::Tensor beta_;
};

}  // namespace gfn::distributions
