#include "runtime/gfn/targets/gaussian_mixture.h"

#include <cmath>
#include <memory>
#include <stdexcept>
#include <utility>
#include <vector>

namespace gfn::core {
namespace {

constexpr double kLog2Pi = 1.8378770664093453;  // log(2 pi)

void check_shapes(const at::Tensor& w, const at::Tensor& mu, const at::Tensor& cov) {
  const bool ok = w.defined() && mu.defined() && cov.defined() && w.dim() == 1 && mu.dim() == 2 &&
                  cov.dim() == 3 && mu.size(0) == w.size(0) && cov.size(0) == w.size(0) &&
                  cov.size(1) == mu.size(1) && cov.size(2) == mu.size(1) && w.size(0) >= 1 &&
                  mu.size(1) >= 1;
  if (!ok) {
    throw std::invalid_argument(
        "GaussianMixtureTarget: need weights [K], locations [K, d] and covariances [K, d, d]");
  }
  if (!(w.gt(0).all().item<bool>())) {
    throw std::invalid_argument("GaussianMixtureTarget: the weights must be > 0");
  }
}

}  // namespace

GaussianMixtureTarget::GaussianMixtureTarget(std::string name, const at::Tensor& weights,
                                             const at::Tensor& locations,
                                             const at::Tensor& covariances, double plot_border)
    : name_(std::move(name)), plot_border_(plot_border) {
  check_shapes(weights, locations, covariances);
  const at::Tensor w = weights.to(at::kDouble) / weights.to(at::kDouble).sum();
  const at::Tensor cov = covariances.to(at::kDouble);
  const auto [l, info] = at::linalg_cholesky_ex(cov);
  if (info.ne(0).any().item<bool>()) {
    throw std::invalid_argument("GaussianMixtureTarget '" + name_ +
                                "': a covariance is not positive definite");
  }
  const std::int64_t d = locations.size(1);
  const at::Tensor log_det_l = l.diagonal(0, 1, 2).log().sum(1);  // log |L_k|
  weights_ = w.to(at::kFloat);
  log_weights_ = w.log().to(at::kFloat);
  locations_ = locations.to(at::kFloat).contiguous();
  cholesky_ = l.to(at::kFloat).contiguous();
  inverse_cholesky_ = at::linalg_inv(l).to(at::kFloat).contiguous();
  log_norm_ = (w.log() - 0.5 * static_cast<double>(d) * kLog2Pi - log_det_l).to(at::kFloat);
}

at::Tensor GaussianMixtureTarget::log_reward(const at::Tensor& x) const {
  check_points(x, "GaussianMixtureTarget::log_reward");
  // z[k, b] = L_k^-1 (x_b - mu_k): [K, B, d]
  const at::Tensor diff = x.unsqueeze(0) - locations_.unsqueeze(1);
  const at::Tensor z = at::matmul(diff, inverse_cholesky_.transpose(1, 2));
  const at::Tensor per_component = log_norm_.unsqueeze(1) - 0.5 * z.pow(2).sum(2);  // [K, B]
  return per_component.logsumexp(0);
}

at::Tensor GaussianMixtureTarget::sample(std::int64_t n, at::Generator& generator) const {
  if (n < 0) throw std::invalid_argument("GaussianMixtureTarget::sample: n must be >= 0");
  at::NoGradGuard no_grad;
  if (n == 0) return at::zeros({0, dim()}, at::kFloat);
  const at::Tensor k = at::multinomial(weights_, n, /*replacement=*/true, generator);
  const at::Tensor eps = at::randn({n, dim(), 1}, generator, at::kFloat);
  return locations_.index_select(0, k) + at::matmul(cholesky_.index_select(0, k), eps).squeeze(2);
}

std::unique_ptr<Target> make_gmm2() {
  // torchgfn's SimpleGaussianMixture(num_components=2, dim=2, seed=3): numpy
  // default_rng(3).uniform(-10, 10, (2, 2)), then scipy wishart(df=4, scale=I) twice, then
  // uniform(0.3, 0.7, 2) normalised (tests/runtime/gfn/targets/gmm2_reference.py).
  const at::Tensor locations =
      at::tensor({-8.287016657127513, -5.263789868078006, 6.025489304127937, 1.6432407212873557},
                 at::kDouble)
          .view({2, 2});
  const at::Tensor covariances =
      at::tensor({2.807076938909635, -0.7583837237214943, -0.7583837237214943, 2.0721996549383017,
                  3.950958703007767, 6.605132335695685, 6.605132335695685, 12.819230942233522},
                 at::kDouble)
          .view({2, 2, 2});
  const at::Tensor weights = at::tensor({0.4658074069789519, 0.5341925930210482}, at::kDouble);
  return std::make_unique<GaussianMixtureTarget>("gmm2", weights, locations, covariances, 15.0);
}

std::unique_ptr<Target> make_grid25() {
  std::vector<double> locs;
  for (double a : {-10.0, -5.0, 0.0, 5.0, 10.0}) {
    for (double b : {-10.0, -5.0, 0.0, 5.0, 10.0}) {
      locs.push_back(a);
      locs.push_back(b);
    }
  }
  const at::Tensor covariances = (0.3 * at::eye(2, at::kDouble)).expand({25, 2, 2}).contiguous();
  return std::make_unique<GaussianMixtureTarget>("grid25", at::ones({25}, at::kDouble),
                                                 at::tensor(locs, at::kDouble).view({25, 2}),
                                                 covariances, 15.0);
}

}  // namespace gfn::core
