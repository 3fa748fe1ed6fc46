// A mixture of full-covariance Gaussians on R^d as a target (runtime/gfn/targets/target.h):
// torchgfn's MixtureSameFamily(Categorical, MultivariateNormal), normalised (log Z 0).
// log R(x) = logsumexp_k [log w_k - d/2 log 2 pi - log |L_k| - |L_k^-1 (x - mu_k)|^2 / 2] with
// L_k the Cholesky factor of covariance k. Cost O(B K d^2) per log_reward.
#pragma once

#include <ATen/ATen.h>

#include <string>

#include "runtime/gfn/targets/target.h"

namespace gfn::core {

class GaussianMixtureTarget final : public Target {
 public:
  /// weights [K] (> 0, normalised here), locations [K, d], covariances [K, d, d] (symmetric
  /// positive definite), all converted to float64 for the set-up; std::invalid_argument on
  /// other shapes or a covariance without a Cholesky factor.
  GaussianMixtureTarget(std::string name, const at::Tensor& weights, const at::Tensor& locations,
                        const at::Tensor& covariances, double plot_border);

  std::string name() const override { return name_; }
  std::int64_t dim() const override { return locations_.size(1); }
  at::Tensor log_reward(const at::Tensor& x) const override;
  double log_partition() const override { return 0.0; }
  bool can_sample() const override { return true; }
  at::Tensor sample(std::int64_t n, at::Generator& generator) const override;
  double plot_border() const override { return plot_border_; }

 private:
  std::string name_;
  at::Tensor log_weights_;       // float32 [K]
  at::Tensor weights_;           // float32 [K]
  at::Tensor locations_;         // float32 [K, d]
  at::Tensor cholesky_;          // float32 [K, d, d], lower
  at::Tensor inverse_cholesky_;  // float32 [K, d, d]
  at::Tensor log_norm_;          // float32 [K]: log w_k - d/2 log 2 pi - log |L_k|
  double plot_border_;
};

/// torchgfn's SimpleGaussianMixture with its defaults (2 components, 2-D, seed 3).
std::unique_ptr<Target> make_gmm2();
/// torchgfn's Grid25GaussianMixture (scale sqrt(0.3)).
std::unique_ptr<Target> make_grid25();

}  // namespace gfn::core
