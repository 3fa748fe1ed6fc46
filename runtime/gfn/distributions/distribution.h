#pragma once
// The seam between a continuous policy and the family of distributions it draws actions from
// (docs/architecture.md "Continuous environments"): a batch of distributions, as
// torch.distributions.Distribution, whose parameters are fixed at construction, with
// sample(generator) and log_prob(value). The Beta mixture of the Box policies is one
// (beta_mixture.h); Gaussian policies are others. The discrete path's categorical draws
// (runtime/gfn/categorical.h) are its discrete counterpart and do not go through it.
//
// Shapes: a distribution has a batch shape [...] and draws one value per batch element
// (scalar events; a policy over d coordinates holds a batch [B, d]). Thread-safety: const
// members may be called concurrently, but not with the same generator (ATen's draws lock
// it, so a shared generator gives an order-dependent stream).

#include <ATen/core/Generator.h>
#include <ATen/core/Tensor.h>

namespace gfn::distributions {

class Distribution {
 public:
  virtual ~Distribution() = default;
  /// One draw per batch element, float32 of the batch shape, from `generator` only (the same
  /// generator state gives the same draws); no autograd graph.
  virtual at::Tensor sample(at::Generator& generator) const = 0;
  /// log-density of `value` (the batch shape, float32) per element, differentiable with
  /// respect to the parameters.
  virtual at::Tensor log_prob(const at::Tensor& value) const = 0;
};

}  // namespace gfn::distributions
