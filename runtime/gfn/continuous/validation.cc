#include "runtime/gfn/continuous/validation.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "runtime/gfn/env/continuous_environment.h"

namespace gfn::core {
namespace {

constexpr std::int64_t kChunk = 256;  // grid points per cdist call

void check_options(const KdeJsdOptions& o) {
  if (!(o.bandwidth > 0) || o.grid_points < 2 || !(o.grid_low < o.grid_high)) {
    throw std::invalid_argument(
        "kde_jensen_shannon: need bandwidth > 0, grid_points >= 2 and grid_low < grid_high");
  }
}

}  // namespace

at::Tensor kde_grid(std::int64_t dim, const KdeJsdOptions& options) {
  check_options(options);
  if (dim < 1) throw std::invalid_argument("kde_grid: dim must be >= 1");
  const at::Tensor axis =
      at::linspace(options.grid_low, options.grid_high, options.grid_points, at::kDouble);
  // Reverse the meshgrid's order so the first coordinate varies fastest.
  std::vector<at::Tensor> axes(static_cast<std::size_t>(dim), axis);
  std::vector<at::Tensor> mesh = at::meshgrid(axes, "ij");
  std::vector<at::Tensor> columns;
  for (std::int64_t j = 0; j < dim; ++j) {
    columns.push_back(mesh[static_cast<std::size_t>(dim - 1 - j)].reshape({-1}));
  }
  return at::stack(columns, 1);
}

at::Tensor kde_log_density(const at::Tensor& samples, const at::Tensor& points, double bandwidth) {
  if (!samples.defined() || !points.defined() || samples.dim() != 2 || points.dim() != 2 ||
      samples.size(0) < 1 || samples.size(1) != points.size(1) || !(bandwidth > 0)) {
    throw std::invalid_argument(
        "kde_log_density: need samples [n >= 1, d], points [G, d] and bandwidth > 0");
  }
  const at::Tensor x = samples.to(at::kDouble).contiguous();
  const at::Tensor p = points.to(at::kDouble).contiguous();
  const std::int64_t g = p.size(0);
  at::Tensor out = at::empty({g}, at::kDouble);
  for (std::int64_t begin = 0; begin < g; begin += kChunk) {
    const std::int64_t m = std::min(kChunk, g - begin);
    // Exact differences (no |a|^2 + |b|^2 - 2ab expansion): compute_mode 2.
    const at::Tensor dist = at::cdist(p.narrow(0, begin, m), x, 2.0, /*compute_mode=*/2);
    out.narrow(0, begin, m).copy_((dist / -bandwidth).logsumexp(1));
  }
  return out;
}

double kde_jensen_shannon(const at::Tensor& samples_a, const at::Tensor& samples_b,
                          const KdeJsdOptions& options) {
  check_options(options);
  if (!samples_a.defined() || !samples_b.defined() || samples_a.dim() != 2 ||
      samples_b.dim() != 2 || samples_a.size(1) != samples_b.size(1) || samples_a.size(0) < 1 ||
      samples_b.size(0) < 1) {
    throw std::invalid_argument(
        "kde_jensen_shannon: need two non-empty sample sets [n_a, d] and [n_b, d]");
  }
  const at::Tensor grid = kde_grid(samples_a.size(1), options);
  at::Tensor log_p = kde_log_density(samples_a, grid, options.bandwidth);
  at::Tensor log_q = kde_log_density(samples_b, grid, options.bandwidth);
  log_p = log_p - log_p.logsumexp(0);
  log_q = log_q - log_q.logsumexp(0);
  const at::Tensor log_m = at::logaddexp(log_p, log_q) - std::log(2.0);
  const at::Tensor kl_p = (log_p.exp() * (log_p - log_m)).sum();
  const at::Tensor kl_q = (log_q.exp() * (log_q - log_m)).sum();
  return ((kl_p + kl_q) / 2.0).item<double>();
}

double wasserstein_1d(const at::Tensor& samples_a, const at::Tensor& samples_b) {
  for (const at::Tensor* s : {&samples_a, &samples_b}) {
    if (!s->defined() || s->dim() != 2 || s->size(1) != 1 || s->size(0) < 1) {
      throw std::invalid_argument("wasserstein_1d: need two non-empty sample sets [n, 1]");
    }
  }
  const at::Tensor a = std::get<0>(samples_a.to(at::kDouble).view({-1}).sort());
  const at::Tensor b = std::get<0>(samples_b.to(at::kDouble).view({-1}).sort());
  const at::Tensor all = std::get<0>(at::cat({a, b}).sort());
  // F_a and F_b just right of every merged point, constant up to the next one.
  const at::Tensor cdf_a = at::searchsorted(a, all, false, /*right=*/true).to(at::kDouble) /
                           static_cast<double>(a.size(0));
  const at::Tensor cdf_b = at::searchsorted(b, all, false, /*right=*/true).to(at::kDouble) /
                           static_cast<double>(b.size(0));
  const std::int64_t n = all.size(0);
  const at::Tensor gaps = all.narrow(0, 1, n - 1) - all.narrow(0, 0, n - 1);
  return ((cdf_a - cdf_b).abs().narrow(0, 0, n - 1) * gaps).sum().item<double>();
}

KdeJsdOptions target_grid(const ContinuousEnvironment& env) {
  KdeJsdOptions o;
  std::tie(o.grid_low, o.grid_high) = env.target_range();
  const at::Tensor one = env.target_coordinates(env.initial_states(1));
  if (one.size(1) == 1) o.grid_points = 1000;
  return o;
}

DensityGrid density_grid(const ContinuousEnvironment& env, const at::Tensor& learned,
                         const at::Tensor& target) {
  return density_grid(env, learned, target, target_grid(env));
}

DensityGrid density_grid(const ContinuousEnvironment& env, const at::Tensor& learned,
                         const at::Tensor& target, const KdeJsdOptions& options) {
  for (const at::Tensor* s : {&learned, &target}) {
    if (!s->defined() || s->dim() != 2 || s->size(0) < 1 || s->size(1) != env.dim()) {
      throw std::invalid_argument("density_grid: need learned and target samples [n >= 1, " +
                                  std::to_string(env.dim()) + "]");
    }
  }
  const at::Tensor learned_x = env.target_coordinates(learned);
  const at::Tensor target_x = env.target_coordinates(target);
  const std::int64_t d = learned_x.size(1);
  const std::int64_t k = std::min<std::int64_t>(d, 2);
  DensityGrid g;
  g.points = kde_grid(k, options);
  const auto normalised = [&](const at::Tensor& samples) {
    const at::Tensor log_p = kde_log_density(samples.narrow(1, 0, k), g.points, options.bandwidth);
    return (log_p - log_p.logsumexp(0)).exp();
  };
  g.learned = normalised(learned_x);
  g.target = normalised(target_x);
  if (d <= 2) {
    const at::Tensor log_r =
        env.log_density(env.target_states(g.points.to(at::kFloat))).to(at::kDouble);
    g.true_density = (log_r - log_r.logsumexp(0)).exp();
  } else {
    g.true_density = at::full({g.points.size(0)}, std::nan(""), at::kDouble);
  }
  return g;
}

}  // namespace gfn::core
