#include "runtime/gfn/targets/funnel_many_well.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace gfn::core {
namespace {

constexpr double kLogSqrt2Pi = 0.91893853320467274;  // log sqrt(2 pi)

// The many-well block's x1 part, log R1(z) = -z^4 + 6 z^2 + 0.5 z.
at::Tensor log_r1(const at::Tensor& z) { return -z.pow(4) + 6.0 * z.pow(2) + 0.5 * z; }

// torchgfn's proposal for x1: 3 equally weighted Normals at -2, 0, 2, scale 1.
at::Tensor log_proposal(const at::Tensor& z) {
  const at::Tensor means = at::tensor({-2.0, 0.0, 2.0}, z.options());
  const at::Tensor per = -0.5 * (z.unsqueeze(-1) - means).pow(2) - kLogSqrt2Pi - std::log(3.0);
  return per.logsumexp(-1);
}

}  // namespace

FunnelTarget::FunnelTarget(std::int64_t dim, double std) : dim_(dim), std_(std) {
  if (dim < 2)
    throw std::invalid_argument("funnel: the dimension must be >= 2, got " + std::to_string(dim));
  if (!(std > 0)) throw std::invalid_argument("funnel: std must be > 0");
}

at::Tensor FunnelTarget::log_reward(const at::Tensor& x) const {
  check_points(x, "FunnelTarget::log_reward");
  const at::Tensor x0 = x.select(1, 0);
  const at::Tensor log_p0 = -0.5 * (x0 / std_).pow(2) - std::log(std_) - kLogSqrt2Pi;
  // x_i | x0 ~ N(0, exp(x0)): log sigma = x0 / 2
  const at::Tensor rest = x.narrow(1, 1, dim_ - 1);
  const at::Tensor log_p_rest =
      -(kLogSqrt2Pi + 0.5 * x.narrow(1, 0, 1) + 0.5 * rest.pow(2) * (-x.narrow(1, 0, 1)).exp())
           .sum(1);
  return log_p0 + log_p_rest;
}

at::Tensor FunnelTarget::sample(std::int64_t n, at::Generator& generator) const {
  if (n < 0) throw std::invalid_argument("FunnelTarget::sample: n must be >= 0");
  at::NoGradGuard no_grad;
  const at::Tensor x0 = std_ * at::randn({n, 1}, generator, at::kFloat);
  const at::Tensor eps = at::randn({n, dim_ - 1}, generator, at::kFloat);
  return at::cat({x0, eps * (0.5 * x0).exp()}, 1);
}

ManyWellTarget::ManyWellTarget(std::int64_t dim) : dim_(dim) {
  if (dim < 2 || dim % 2 != 0) {
    throw std::invalid_argument("many_well: the dimension must be even and >= 2, got " +
                                std::to_string(dim));
  }
  const at::Tensor grid = at::linspace(-6.0, 6.0, 201, at::kDouble);
  envelope_ = 1.2 * (log_r1(grid) - log_proposal(grid)).exp().max().item<double>();
}

at::Tensor ManyWellTarget::log_reward(const at::Tensor& x) const {
  check_points(x, "ManyWellTarget::log_reward");
  const at::Tensor pairs = x.reshape({x.size(0), dim_ / 2, 2});
  const at::Tensor x1 = pairs.select(2, 0);
  const at::Tensor x2 = pairs.select(2, 1);
  return (log_r1(x1) - 0.5 * x2.pow(2)).sum(1);
}

double ManyWellTarget::log_partition() const {
  return static_cast<double>(dim_ / 2) * (std::log(kZx1) + kLogSqrt2Pi);
}

// Rejection sampling, about 10 proposals per wanted sample per round (torchgfn's).
at::Tensor ManyWellTarget::sample_x1(std::int64_t n, at::Generator& generator) const {
  std::vector<at::Tensor> collected;
  std::int64_t remaining = n;
  while (remaining > 0) {
    const std::int64_t m = 10 * remaining;
    const at::Tensor component = at::randint(3, {m}, generator, at::kLong);
    const at::Tensor z =
        (component.to(at::kDouble) - 1.0) * 2.0 + at::randn({m}, generator, at::kDouble);
    const at::Tensor u = at::rand({m}, generator, at::kDouble) * envelope_;
    const at::Tensor accepted = z.masked_select((log_r1(z) - log_proposal(z)).exp().gt(u));
    const std::int64_t take = std::min<std::int64_t>(accepted.numel(), remaining);
    collected.push_back(accepted.narrow(0, 0, take));
    remaining -= take;
  }
  return at::cat(collected).to(at::kFloat);
}

at::Tensor ManyWellTarget::sample(std::int64_t n, at::Generator& generator) const {
  if (n < 0) throw std::invalid_argument("ManyWellTarget::sample: n must be >= 0");
  at::NoGradGuard no_grad;
  at::Tensor x = at::empty({n, dim_}, at::kFloat);
  for (std::int64_t b = 0; b < dim_ / 2; ++b) {
    x.select(1, 2 * b).copy_(sample_x1(n, generator));
    x.select(1, 2 * b + 1).copy_(at::randn({n}, generator, at::kFloat));
  }
  return x;
}

}  // namespace gfn::core
