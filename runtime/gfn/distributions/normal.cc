#include "runtime/gfn/distributions/normal.h"

#include <ATen/ATen.h>

#include <cmath>
#include <stdexcept>
#include <utility>

namespace gfn::distributions {

Normal::Normal(at::Tensor loc, at::Tensor scale) : loc_(std::move(loc)), scale_(std::move(scale)) {
  const bool ok = loc_.defined() && scale_.defined() && loc_.sizes() == scale_.sizes() &&
                  loc_.scalar_type() == at::kFloat && scale_.scalar_type() == at::kFloat;
  if (!ok) {
    throw std::invalid_argument("Normal: loc and scale must be float32 tensors of one shape");
  }
}

at::Tensor Normal::sample(at::Generator& generator) const {
  at::NoGradGuard no_grad;
  return at::normal(loc_.detach(), scale_.detach(), generator);
}

at::Tensor Normal::log_prob(const at::Tensor& value) const {
  const double half_log_two_pi = 0.5 * std::log(2.0 * M_PI);
  return -(value - loc_).square() / (2.0 * scale_.square()) - scale_.log() - half_log_two_pi;
}

}  // namespace gfn::distributions
