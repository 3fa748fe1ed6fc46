#include "runtime/gfn/env/diffusion.h"

#include <ATen/ATen.h>
#include <torch/csrc/autograd/autograd.h>

#include <cmath>
#include <stdexcept>
#include <string>

#include "runtime/gfn/env/diffusion_options.h"

namespace gfn::core {
namespace {

void require(bool ok, const std::string& message) {
  if (!ok) throw std::invalid_argument(message);
}

std::unique_ptr<Target> build_target(const DiffusionEnvOptions& o) {
  require(o.target_dim >= 0, "env.target_dim: must be >= 0");
  try {
    return make_target(o.target, o.target_dim);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string("env.target: ") + e.what());
  }
}

}  // namespace

DiffusionSampling::DiffusionSampling(const DiffusionEnvOptions& options)
    : target_(build_target(options)),
      n_steps_(options.n_steps),
      sigma_(options.sigma),
      langevin_(options.langevin),
      lgv_clip_(options.lgv_clip) {
  require(n_steps_ >= 1, "env.n_steps: must be >= 1");
  require(sigma_ > 0 && std::isfinite(sigma_), "env.sigma: must be > 0 and finite");
  require(lgv_clip_ > 0 && std::isfinite(lgv_clip_), "env.lgv_clip: must be > 0 and finite");
}

at::Tensor DiffusionSampling::initial_states(std::int64_t n) const {
  return at::zeros({n, dim()}, at::kFloat);
}

at::Tensor DiffusionSampling::is_initial(const at::Tensor& states) const {
  return states.select(1, x_dim()).eq(0);
}

at::Tensor DiffusionSampling::can_exit(const at::Tensor& states) const {
  return states.select(1, x_dim()).eq(n_steps_);
}

at::Tensor DiffusionSampling::forward_valid(const at::Tensor& states,
                                            const at::Tensor& increments) const {
  const std::int64_t d = x_dim();
  return states.select(1, d).lt(n_steps_) & increments.select(1, d).eq(1) &
         increments.narrow(1, 0, d).isfinite().all(1);
}

at::Tensor DiffusionSampling::returns_to_origin(const at::Tensor& x, const at::Tensor& a) {
  return (x - a).abs().le((x.abs() + 1.0) * 1e-5).all(1);
}

at::Tensor DiffusionSampling::backward_valid(const at::Tensor& states,
                                             const at::Tensor& increments) const {
  const std::int64_t d = x_dim();
  const at::Tensor t = states.select(1, d);
  const at::Tensor a = increments.narrow(1, 0, d);
  const at::Tensor to_origin = returns_to_origin(states.narrow(1, 0, d), a);
  return t.ge(1) & increments.select(1, d).eq(1) & a.isfinite().all(1) & (t.gt(1) | to_origin);
}

std::string DiffusionSampling::forward_rule() const {
  return "from t < " + std::to_string(n_steps_) +
         " an increment (a, 1) with a finite; exit only at t = " + std::to_string(n_steps_);
}

std::string DiffusionSampling::backward_rule() const {
  return "from t >= 1 an increment (a, 1) with a finite, a = x from t = 1 (the parent is s0)";
}

at::Tensor DiffusionSampling::step_unchecked(const at::Tensor& states,
                                             const at::Tensor& increments) const {
  return states + increments;
}

at::Tensor DiffusionSampling::backward_step_unchecked(const at::Tensor& states,
                                                      const at::Tensor& increments) const {
  at::Tensor parents = states - increments;
  // The parent of t = 1 is s0 exactly (x - x may round away from 0 in float32).
  parents.narrow(1, 0, x_dim()).masked_fill_(parents.select(1, x_dim()).eq(0).unsqueeze(1), 0.0);
  return parents;
}

void DiffusionSampling::check_states(const at::Tensor& states, const char* who) const {
  ContinuousEnvironment::check_states(states, who);
  if (states.numel() == 0) return;
  const at::Tensor t = states.select(1, x_dim());
  const at::Tensor bad = t.ne(t.round()) | t.lt(0) | t.gt(n_steps_);
  if (bad.any().item<bool>()) {
    const std::int64_t row = at::nonzero(bad)[0][0].item<std::int64_t>();
    throw std::invalid_argument(std::string(who) + ": row " + std::to_string(row) + " " +
                                row_string(states, row) +
                                " is not a state of diffusion (the step counter must be an "
                                "integer in [0, " +
                                std::to_string(n_steps_) + "])");
  }
}

at::Tensor DiffusionSampling::log_reward(const at::Tensor& states) const {
  check_states(states, "diffusion::log_reward");
  evaluations_ += states.size(0);
  return target_->log_reward(states.narrow(1, 0, x_dim()).contiguous());
}

at::Tensor DiffusionSampling::policy_inputs(const at::Tensor& states) const {
  const std::int64_t d = x_dim();
  const at::Tensor x = states.narrow(1, 0, d);
  const at::Tensor time = states.narrow(1, d, 1) / static_cast<double>(n_steps_);
  if (!langevin_) return at::cat({x, time}, 1);
  evaluations_ += states.size(0);
  const at::Tensor g = target_->grad_log_reward(x.contiguous())
                           .nan_to_num(0.0, 0.0, 0.0)
                           .clamp(-lgv_clip_, lgv_clip_);
  return at::cat({x, time, g}, 1);
}

at::Tensor DiffusionSampling::log_density(const at::Tensor& states) const {
  check_states(states, "diffusion::log_density");
  evaluations_ += states.size(0);
  return target_->log_reward(states.narrow(1, 0, x_dim()).contiguous()) -
         static_cast<float>(target_->log_partition());
}

at::Tensor DiffusionSampling::sample_target(std::int64_t n, at::Generator& generator) const {
  if (n < 0) throw std::invalid_argument("diffusion::sample_target: n must be >= 0");
  if (!target_->can_sample()) no_target("sample_target");
  return target_states(target_->sample(n, generator));
}

at::Tensor DiffusionSampling::target_coordinates(const at::Tensor& states) const {
  return states.narrow(1, 0, x_dim());
}

at::Tensor DiffusionSampling::target_states(const at::Tensor& coordinates) const {
  const at::Tensor x = coordinates.to(at::kFloat);
  return at::cat({x, at::full({x.size(0), 1}, static_cast<double>(n_steps_), at::kFloat)}, 1);
}

std::pair<at::Tensor, at::Tensor> DiffusionSampling::log_reward_and_gradient(
    const at::Tensor& coordinates) const {
  evaluations_ += coordinates.size(0);
  c10::AutoGradMode enable(true);
  const at::Tensor leaf = coordinates.detach().clone().requires_grad_(true);
  const at::Tensor log_r = target_->log_reward(leaf);
  const at::Tensor grad = torch::autograd::grad({log_r.sum()}, {leaf})[0];
  return {log_r.detach(), grad.detach()};
}

std::pair<double, double> DiffusionSampling::target_range() const {
  return {-target_->plot_border(), target_->plot_border()};
}

}  // namespace gfn::core
