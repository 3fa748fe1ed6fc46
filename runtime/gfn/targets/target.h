// Unnormalised target densities on R^d for amortised samplers of continuous densities
// (diffusion samplers; Zhang & Chen 2022, Sendera et al. 2024), as torchgfn defines them
// (gfn/gym/diffusion_sampling.py: BaseTarget and its subclasses): the log reward, its
// gradient (the Langevin input of a diffusion sampler's drift), the ground-truth log Z and,
// where the target can be sampled exactly, samples (for the EUBO and sample distances).
//
// The built-in targets (make_target):
//   gmm2        torchgfn's SimpleGaussianMixture with its defaults: 2 components in 2-D,
//               locations, Wishart covariances and weights drawn by numpy/scipy with seed 3
//               (the constants are in gaussian_mixture.cc; a test regenerates them); log Z 0.
//   grid25      torchgfn's Grid25GaussianMixture: 25 equal components on the 5 x 5 grid
//               {-10, -5, 0, 5, 10}^2, covariance 0.3 I; 2-D only; log Z 0.
//   funnel      Neal's funnel (torchgfn's Funnel, std 1): x0 ~ N(0, 1), x_i | x0 ~
//               N(0, exp(x0)) for i >= 1; default d = 10; log Z 0.
//   hard_funnel the same with x0 ~ N(0, 3^2): gfn-diffusion's HardFunnel (energies/
//               hard_funnel.py), the "Funnel" of Sendera et al. 2024's tables; d = 10.
//   many_well   torchgfn's ManyWell: d / 2 independent double wells, each block
//               log R(x1, x2) = -x1^4 + 6 x1^2 + 0.5 x1 - 0.5 x2^2; default d = 32, d even;
//               log Z = d / 2 (log 11784.50927 + log sqrt(2 pi)).
// A plugin adds one with register_target (docs/environments.md "Targets").
//
// Shapes and dtypes: points are float32 [B, d]; log rewards float32 [B]. log_reward is built
// from differentiable ATen operators (autograd flows to x). Thread-safety: a Target is
// immutable after construction; its const members may be called from several threads (each
// with its own generator). The registry is not thread-safe: register before any lookup.
#pragma once

#include <ATen/ATen.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace gfn::core {

class Target {
 public:
  virtual ~Target() = default;
  virtual std::string name() const = 0;
  virtual std::int64_t dim() const = 0;
  /// log R(x): float32 [B, d] -> float32 [B]. std::invalid_argument on another shape.
  virtual at::Tensor log_reward(const at::Tensor& x) const = 0;
  /// ∇_x log R(x), float32 [B, d], by autograd through log_reward (no graph is kept).
  virtual at::Tensor grad_log_reward(const at::Tensor& x) const;
  /// log Z = log ∫ R(x) dx (torchgfn's gt_logz).
  virtual double log_partition() const = 0;
  /// Whether sample() draws exact samples of R / Z.
  virtual bool can_sample() const { return false; }
  /// n exact samples of R / Z, float32 [n, d], drawn with `generator`; std::logic_error when
  /// can_sample() is false. Cost O(n d) (many_well: rejection, about 10 proposals per x1).
  virtual at::Tensor sample(std::int64_t n, at::Generator& generator) const;
  /// Half-width of the square in which plots draw the target (torchgfn's plot_border).
  virtual double plot_border() const = 0;

 protected:
  /// Throws std::invalid_argument unless x is float32 [B, dim()].
  void check_points(const at::Tensor& x, const char* who) const;
};

/// Builds a target of dimension `dim` (0: the target's default). `dim` must suit it (grid25
/// and gmm2: 2; many_well: even; funnel: >= 2). std::invalid_argument naming the registered
/// targets for an unknown name, or the rule for a bad dimension.
using TargetFactory = std::function<std::unique_ptr<Target>(std::int64_t dim)>;
std::unique_ptr<Target> make_target(const std::string& name, std::int64_t dim = 0);
/// Adds (or replaces) a target under `name` (a plugin's, before the run builds its target).
void register_target(const std::string& name, TargetFactory factory);
/// The registered names, sorted.
std::vector<std::string> target_names();

}  // namespace gfn::core
