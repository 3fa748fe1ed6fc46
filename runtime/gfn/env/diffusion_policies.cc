#include "runtime/gfn/env/diffusion_policies.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

#include "runtime/gfn/distributions/isotropic_normal_rows.h"
#include "runtime/gfn/distributions/normal.h"
#include "runtime/gfn/distributions/normal_fill.h"
#include "runtime/gfn/env/diffusion.h"
#include "runtime/gfn/fast/loop_clones.h"

namespace gfn::core {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kHalfLog2Pi = 0.91893853320467274178;  // log(2 pi) / 2

}  // namespace

DiffusionPolicy::DiffusionPolicy(const DiffusionSampling& env)
    : d_(env.x_dim()), n_steps_(env.n_steps()), sigma_(env.sigma()) {}

void DiffusionPolicy::check(const at::Tensor& outputs, double temperature, const char* who) const {
  if (!outputs.defined() || outputs.dim() != 2 || outputs.size(1) != d_ ||
      outputs.scalar_type() != at::kFloat) {
    throw std::invalid_argument(std::string(who) + ": outputs must be float32 [B, " +
                                std::to_string(d_) + "] (the drift)");
  }
  if (!(temperature >= 1.0) || !std::isfinite(temperature)) {
    throw std::invalid_argument(std::string(who) + ": temperature " + std::to_string(temperature) +
                                " < 1: diffusion's PF reads T - 1 as its exploration std "
                                "(train.temperature, train.temperature_start >= 1)");
  }
}

at::Tensor DiffusionPolicy::increments_of(const at::Tensor& a) {
  return at::cat({a, at::ones({a.size(0), 1}, a.options())}, 1);
}

double DiffusionForwardPolicy::step_std(double temperature) const {
  const double dt = 1.0 / n_steps_;
  const double e = temperature - 1.0;
  return std::sqrt(sigma_ * sigma_ * dt + e * e);
}

ContinuousActions DiffusionForwardPolicy::sample(const at::Tensor& states,
                                                 const at::Tensor& outputs, double temperature,
                                                 at::Generator& generator) const {
  check(outputs, temperature, "DiffusionForwardPolicy::sample");
  const double dt = 1.0 / n_steps_;
  const at::Tensor loc = (outputs * dt).contiguous();
  const at::Tensor scale = at::full_like(loc, step_std(temperature));
  const at::Tensor is_exit = states.select(1, d_).eq(n_steps_);
  const at::Tensor a = distributions::Normal(loc, scale).sample(generator);
  return {increments_of(a.masked_fill(is_exit.unsqueeze(1), 0.0)), is_exit};
}

at::Tensor DiffusionForwardPolicy::log_prob(const at::Tensor& states, const at::Tensor& outputs,
                                            const ContinuousActions& actions,
                                            double temperature) const {
  check(outputs, temperature, "DiffusionForwardPolicy::log_prob");
  const double dt = 1.0 / n_steps_;
  const double scale = step_std(temperature);
  const at::Tensor at_end = states.select(1, d_).eq(n_steps_);
  const at::Tensor a = actions.increments.narrow(1, 0, d_);
  const at::Tensor move_ok = actions.increments.select(1, d_).eq(1) & a.isfinite().all(1);
  // sum_i log N(a_i; f_i dt, scale^2) = -|a - f dt|^2 / (2 scale^2) - d log(scale sqrt(2 pi)),
  // the row's squared distance reduced first (fewer [B, d] passes than per coordinate). The
  // Normal is evaluated where the action is a finite move only (finite gradients).
  const at::Tensor diff = a.masked_fill(move_ok.logical_not().unsqueeze(1), 0.0) - outputs * dt;
  const at::Tensor lp = diff.square()
                            .sum(1)
                            .mul(-0.5 / (scale * scale))
                            .sub(static_cast<double>(d_) * (std::log(scale) + kHalfLog2Pi));
  const at::Tensor minus_inf = at::full_like(lp, -kInf);
  const at::Tensor move = at::where(at_end.logical_not() & move_ok, lp, minus_inf);
  return at::where(actions.is_exit, at::where(at_end, at::zeros_like(lp), minus_inf), move);
}

at::Tensor DiffusionForwardPolicy::move_log_prob(const at::Tensor& a, const at::Tensor& drift,
                                                 double temperature) const {
  check(drift, temperature, "DiffusionForwardPolicy::move_log_prob");
  const double scale = step_std(temperature);
  // log_prob's formula, -|a - f dt|^2 / (2 scale^2) - d log(scale sqrt(2 pi)), as one node.
  return distributions::isotropic_normal_rows(a, drift, 1.0 / n_steps_, scale);
}

namespace {

bool rows_of(const at::Tensor& t, std::int64_t b, std::int64_t d) {
  return t.defined() && t.scalar_type() == at::kFloat && t.dim() == 2 && t.size(0) == b &&
         t.size(1) == d && t.stride(1) == 1 && t.device().is_cpu();
}

}  // namespace

void DiffusionForwardPolicy::draw_step(const at::Tensor& drift, double temperature,
                                       at::Tensor& noise, const at::Tensor& x, at::Tensor a,
                                       at::Tensor next, at::Generator& generator) const {
  at::NoGradGuard no_grad;
  // sample's at::normal(loc, scale) fills [B, d] with N(0, 1), then scales and shifts it.
  if (!drift.defined()) {
    distributions::normal_fill(noise, generator);
    return;
  }
  check(drift, temperature, "DiffusionForwardPolicy::draw_step");
  const std::int64_t b = drift.size(0);
  if (!drift.is_contiguous() || !noise.is_contiguous() || !rows_of(noise, b, d_) ||
      !rows_of(x, b, d_) || !rows_of(a, b, d_) || !rows_of(next, b, d_)) {
    throw std::invalid_argument(
        "DiffusionForwardPolicy::draw_step: need float32 CPU drift and noise [B, d] "
        "contiguous and x, a, next [B, d] with unit column stride");
  }
  draw_step(drift.data_ptr<float>(), temperature, noise, x.data_ptr<float>(), x.stride(0),
            a.data_ptr<float>(), a.stride(0), next.data_ptr<float>(), next.stride(0), generator);
}

void DiffusionForwardPolicy::draw_step(const float* drift, double temperature, at::Tensor& noise,
                                       const float* x, std::int64_t x_stride, float* a,
                                       std::int64_t a_stride, float* next, std::int64_t next_stride,
                                       at::Generator& generator) const {
  if (noise.dim() != 2 || noise.size(1) != d_ || !noise.is_contiguous() ||
      noise.scalar_type() != at::kFloat) {
    throw std::invalid_argument("DiffusionForwardPolicy::draw_step: need noise float32 [B, d]");
  }
  if (!(temperature >= 1.0) || !std::isfinite(temperature)) {
    throw std::invalid_argument("DiffusionForwardPolicy::draw_step: temperature < 1");
  }
  at::NoGradGuard no_grad;
  distributions::normal_fill(noise, generator);
  const float scale = static_cast<float>(step_std(temperature));
  const float dt = static_cast<float>(1.0 / n_steps_);
  const float* eps = noise.data_ptr<float>();
  const std::int64_t b = noise.size(0);
  for (std::int64_t r = 0; r < b; ++r) {
    for (std::int64_t c = 0; c < d_; ++c) {
      const float move = eps[r * d_ + c] * scale + drift[r * d_ + c] * dt;
      a[r * a_stride + c] = move;
      next[r * next_stride + c] = x[r * x_stride + c] + move;
    }
  }
}

namespace {

/// sum_j (a[j] - x[j] inv_t)^2 over d values: 16 partial sums (a vector's lanes), then added up.
GFN_WIDEST_LOOPS float bridge_square_sum(const float* x, const float* a, std::int64_t d,
                                         float inv_t) {
  constexpr int kLanes = 16;
  float part[kLanes] = {};
  std::int64_t j = 0;
  for (; j + kLanes <= d; j += kLanes) {
    for (int k = 0; k < kLanes; ++k) {
      const float e = a[j + k] - x[j + k] * inv_t;
      part[k] += e * e;
    }
  }
  for (; j < d; ++j) {
    const float e = a[j] - x[j] * inv_t;
    part[j % kLanes] += e * e;
  }
  float sum = 0.0f;
  for (const float v : part) sum += v;
  return sum;
}

}  // namespace

at::Tensor DiffusionBackwardPolicy::step_major_log_prob(const at::Tensor& x,
                                                        const at::Tensor& a) const {
  const std::int64_t rows = x.size(0);
  if (x.dim() != 2 || x.size(1) != d_ || a.dim() != 2 || a.sizes() != x.sizes() ||
      rows % n_steps_ != 0 || x.scalar_type() != at::kFloat || a.scalar_type() != at::kFloat ||
      !x.device().is_cpu() || !a.device().is_cpu() ||
      (d_ > 1 && (x.stride(1) != 1 || a.stride(1) != 1))) {
    throw std::invalid_argument(
        "DiffusionBackwardPolicy::step_major_log_prob: need float32 CPU x and a [T B, " +
        std::to_string(d_) + "] with unit column stride");
  }
  const std::int64_t b = rows / n_steps_;
  const double dt = 1.0 / n_steps_;
  // Per step t = 1..T, row by row: -|a - x / t|^2 / (2 v) - d / 2 log(2 pi v), the variance
  // v = sigma^2 dt (t - 1) / t; 0 at t = 1 (the forced step back to s0).
  at::Tensor lp = at::empty({rows}, at::kFloat);
  float* out = lp.data_ptr<float>();
  const float* xs = x.data_ptr<float>();
  const float* as = a.data_ptr<float>();
  for (std::int64_t step = 0; step < n_steps_; ++step) {
    float* o = out + step * b;
    if (step == 0) {
      std::fill(o, o + b, 0.0f);
      continue;
    }
    const double t = static_cast<double>(step + 1);
    const double var = sigma_ * sigma_ * dt * (t - 1.0) / t;
    const float scale = static_cast<float>(-0.5 / var);
    const float constant =
        static_cast<float>(0.5 * static_cast<double>(d_) * (std::log(var) + 2.0 * kHalfLog2Pi));
    const float inv_t = static_cast<float>(1.0 / t);
    for (std::int64_t r = step * b; r < (step + 1) * b; ++r) {
      const float sum = bridge_square_sum(xs + r * x.stride(0), as + r * a.stride(0), d_, inv_t);
      out[r] = sum * scale - constant;
    }
  }
  return lp;
}

std::pair<at::Tensor, at::Tensor> DiffusionBackwardPolicy::bridge(const at::Tensor& states) const {
  const double dt = 1.0 / n_steps_;
  const at::Tensor x = states.narrow(1, 0, d_);
  const at::Tensor t = states.narrow(1, d_, 1);
  const at::Tensor inner = t.ge(2);
  const at::Tensor t_safe = at::where(inner, t, at::full_like(t, 2.0));
  const at::Tensor mean = x / t_safe;
  const at::Tensor std =
      at::where(inner, (sigma_ * sigma_ * dt * (t_safe - 1.0) / t_safe).sqrt(), at::ones_like(t));
  return {mean, std};
}

ContinuousActions DiffusionBackwardPolicy::sample(const at::Tensor& states,
                                                  const at::Tensor& outputs, double temperature,
                                                  at::Generator& generator) const {
  check(outputs, temperature, "DiffusionBackwardPolicy::sample");
  const auto [mean, std] = bridge(states);
  const at::Tensor a =
      distributions::Normal(mean.contiguous(), std.expand_as(mean).contiguous()).sample(generator);
  const at::Tensor x = states.narrow(1, 0, d_);
  const at::Tensor to_origin = states.select(1, d_).eq(1).unsqueeze(1);
  return {increments_of(at::where(to_origin, x, a)), at::zeros({states.size(0)}, at::kBool)};
}

at::Tensor DiffusionBackwardPolicy::log_prob(const at::Tensor& states, const at::Tensor& outputs,
                                             const ContinuousActions& actions,
                                             double temperature) const {
  check(outputs, temperature, "DiffusionBackwardPolicy::log_prob");
  at::NoGradGuard no_grad;  // fixed: no parameters, the outputs are not read
  const double dt = 1.0 / n_steps_;
  const at::Tensor x = states.narrow(1, 0, d_);
  const at::Tensor t = states.select(1, d_);
  const at::Tensor a = actions.increments.narrow(1, 0, d_);
  const at::Tensor ok = actions.increments.select(1, d_).eq(1) & a.isfinite().all(1);
  // The bridge from t >= 2: sum_i log N(a_i; x_i / t, v), v = sigma^2 dt (t - 1) / t, as
  // -|a - x / t|^2 / (2 v) - d / 2 log(2 pi v) (rows with t < 2 get t = 2, unused).
  const at::Tensor t_safe = at::where(t.ge(2), t, at::full_like(t, 2.0));
  const at::Tensor var = (t_safe - 1.0).div(t_safe).mul(sigma_ * sigma_ * dt);
  const at::Tensor diff =
      a.masked_fill(ok.logical_not().unsqueeze(1), 0.0) - x.div(t_safe.unsqueeze(1));
  const at::Tensor lp = diff.square().sum(1).div(var).mul(-0.5).sub(
      var.log().add(2.0 * kHalfLog2Pi).mul(0.5 * static_cast<double>(d_)));
  const at::Tensor minus_inf = at::full_like(lp, -kInf);
  // t = 1: the forced step back to s0 (diffusion.h's tolerance on a = x), checked on those
  // rows only.
  const at::Tensor first_rows = at::nonzero(t.eq(1)).squeeze(1);
  at::Tensor first = at::full_like(lp, -kInf);
  if (first_rows.numel() > 0) {
    const at::Tensor back = ok.index_select(0, first_rows) &
                            DiffusionSampling::returns_to_origin(x.index_select(0, first_rows),
                                                                 a.index_select(0, first_rows));
    first.index_fill_(0, first_rows.masked_select(back), 0.0);
  }
  return at::where(t.gt(1), at::where(ok, lp, minus_inf), first);
}

}  // namespace gfn::core
