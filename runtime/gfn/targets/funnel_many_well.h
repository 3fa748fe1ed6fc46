// Neal's funnel and the many-well target (runtime/gfn/targets/target.h), as torchgfn's
// Funnel and ManyWell define them (gfn/gym/diffusion_sampling.py).
#pragma once

#include <ATen/ATen.h>

#include <cstdint>
#include <string>

#include "runtime/gfn/targets/target.h"

namespace gfn::core {

/// log R(x) = log N(x0; 0, std^2) + sum_{i>=1} log N(x_i; 0, exp(x0)); normalised (log Z 0).
/// d >= 2, std > 0 (std::invalid_argument). Exact samples: x0, then x_i given x0.
class FunnelTarget final : public Target {
 public:
  explicit FunnelTarget(std::int64_t dim = 10, double std = 1.0);
  std::string name() const override { return "funnel"; }
  std::int64_t dim() const override { return dim_; }
  at::Tensor log_reward(const at::Tensor& x) const override;
  double log_partition() const override { return 0.0; }
  bool can_sample() const override { return true; }
  at::Tensor sample(std::int64_t n, at::Generator& generator) const override;
  double plot_border() const override { return 10.0; }

 private:
  std::int64_t dim_;
  double std_;
};

/// d / 2 independent blocks, log R(x1, x2) = -x1^4 + 6 x1^2 + 0.5 x1 - 0.5 x2^2 (not
/// normalised): log Z = d / 2 (log kZx1 + log sqrt(2 pi)). d even and >= 2
/// (std::invalid_argument). Exact samples: x1 by rejection from torchgfn's proposal (3 equal
/// Normals at -2, 0, 2, scale 1; envelope 1.2 x the largest ratio on a grid of [-6, 6]), x2
/// standard normal.
class ManyWellTarget final : public Target {
 public:
  /// ∫ exp(-x^4 + 6 x^2 + 0.5 x) dx, torchgfn's Z_x1 (a test checks it by quadrature).
  static constexpr double kZx1 = 11784.50927;
  explicit ManyWellTarget(std::int64_t dim = 32);
  std::string name() const override { return "many_well"; }
  std::int64_t dim() const override { return dim_; }
  at::Tensor log_reward(const at::Tensor& x) const override;
  double log_partition() const override;
  bool can_sample() const override { return true; }
  at::Tensor sample(std::int64_t n, at::Generator& generator) const override;
  double plot_border() const override { return 3.0; }

 private:
  at::Tensor sample_x1(std::int64_t n, at::Generator& generator) const;
  std::int64_t dim_;
  double envelope_;  // k: exp(log R1(z) - log q(z)) <= k on the proposal's support
};

}  // namespace gfn::core
