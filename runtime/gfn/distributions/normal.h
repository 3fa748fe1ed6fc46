#pragma once
// A Normal (Gaussian) distribution per batch element, torch.distributions.Normal: the
// increments of the Line policies (runtime/gfn/env/line_policies.h, torchgfn's
// tutorials/examples/train_line.py ScaledGaussianWithOptionalExit).
//
// sample(): loc + scale * eps with eps ~ N(0, 1) drawn by at::normal from the generator
// (torch's Normal.sample is at::normal(loc, scale), the same draws for the same generator
// state). log_prob(x) = -(x - loc)^2 / (2 scale^2) - log(scale) - log(2 pi) / 2, torch's
// Normal.log_prob, differentiable w.r.t. loc and scale.
//
// Cost: O(batch) for both. Errors: std::invalid_argument from the constructor for undefined,
// non-float32 or mismatched tensors.

#include <ATen/core/Generator.h>
#include <ATen/core/Tensor.h>

#include "runtime/gfn/distributions/distribution.h"

namespace gfn::distributions {

class Normal final : public Distribution {
 public:
  /// loc and scale: float32 tensors of one shape (the batch shape), scale > 0 (not checked:
  /// a scale <= 0 gives NaN log-densities, as torch without validate_args).
  Normal(at::Tensor loc, at::Tensor scale);

  const at::Tensor& loc() const { return loc_; }
  const at::Tensor& scale() const { return scale_; }

  /// float32 of the batch shape.
  at::Tensor sample(at::Generator& generator) const override;
  /// value float32 of the batch shape -> float32 of the batch shape.
  at::Tensor log_prob(const at::Tensor& value) const override;

 private:
  at::Tensor loc_;
  at::Tensor scale_;
};

}  // namespace gfn::distributions
