#include "runtime/gfn/distributions/beta_mixture.h"

#include <ATen/ATen.h>

#include <stdexcept>
#include <string>
#include <utility>

namespace gfn::distributions {

BetaMixture::BetaMixture(at::Tensor log_weights, at::Tensor alpha, at::Tensor beta)
    : log_weights_(std::move(log_weights)), alpha_(std::move(alpha)), beta_(std::move(beta)) {
  const bool ok = log_weights_.defined() && alpha_.defined() && beta_.defined() &&
                  log_weights_.dim() >= 1 && log_weights_.size(-1) >= 1 &&
                  log_weights_.sizes() == alpha_.sizes() && alpha_.sizes() == beta_.sizes() &&
                  log_weights_.scalar_type() == at::kFloat && alpha_.scalar_type() == at::kFloat &&
                  beta_.scalar_type() == at::kFloat;
  if (!ok) {
    throw std::invalid_argument(
        "BetaMixture: log_weights, alpha and beta must be float32 tensors [..., K] of one "
        "shape with K >= 1");
  }
}

BetaMixture BetaMixture::from_raw(const at::Tensor& mixture_logits, const at::Tensor& alpha_raw,
                                  const at::Tensor& beta_raw, const BetaMixtureRange& range,
                                  double temperature) {
  if (!(range.min_concentration > 0) || !(range.max_concentration >= range.min_concentration)) {
    throw std::invalid_argument("BetaMixture::from_raw: need 0 < min_concentration (" +
                                std::to_string(range.min_concentration) +
                                ") <= max_concentration (" +
                                std::to_string(range.max_concentration) + ")");
  }
  if (!(temperature > 0)) {
    throw std::invalid_argument("BetaMixture::from_raw: temperature must be > 0, got " +
                                std::to_string(temperature));
  }
  const double span = range.max_concentration - range.min_concentration;
  return BetaMixture((mixture_logits / temperature).log_softmax(-1),
                     alpha_raw.sigmoid() * span + range.min_concentration,
                     beta_raw.sigmoid() * span + range.min_concentration);
}

at::Tensor BetaMixture::sample(at::Generator& generator) const {
  at::NoGradGuard no_grad;
  const std::int64_t k = log_weights_.size(-1);
  // Categorical(logits=log_weights): logits normalised again, probabilities by softmax.
  const at::Tensor logits = log_weights_ - log_weights_.logsumexp(-1, /*keepdim=*/true);
  const at::Tensor probs = logits.softmax(-1).reshape({-1, k});
  const at::Tensor batch_shape_index =
      at::multinomial(probs, 1, /*replacement=*/true, generator).t().reshape({-1});
  at::IntArrayRef batch = log_weights_.sizes().slice(0, log_weights_.dim() - 1);
  const at::Tensor component = batch_shape_index.reshape(batch).unsqueeze(-1);
  const at::Tensor a = alpha_.gather(-1, component).squeeze(-1);
  const at::Tensor b = beta_.gather(-1, component).squeeze(-1);
  // Beta(a, b).sample(): the first coordinate of Dirichlet([a, b]).
  return at::_sample_dirichlet(at::stack({a, b}, -1), generator).select(-1, 0);
}

at::Tensor BetaMixture::log_prob(const at::Tensor& value) const {
  const at::Tensor x = value.unsqueeze(-1);
  const at::Tensor per_component = (x.log() * (alpha_ - 1.0) + (1.0 - x).log() * (beta_ - 1.0)) +
                                   at::lgamma(alpha_ + beta_) -
                                   (at::lgamma(alpha_) + at::lgamma(beta_));
  return (log_weights_ + per_component).logsumexp(-1);
}

}  // namespace gfn::distributions
