#include "runtime/gfn/continuous/langevin.h"

#include <ATen/ATen.h>

#include <cmath>
#include <stdexcept>
#include <string>

namespace gfn::core {
namespace {

// log q(b | a) without its constant: -|b - a - eta g(a)|^2 / (4 eta), float32 [B].
at::Tensor log_proposal(const at::Tensor& b, const at::Tensor& a, const at::Tensor& grad_a,
                        double eta) {
  return -(b - a - eta * grad_a).pow(2).sum(1) / (4.0 * eta);
}

// Closes the window when it holds options.window steps: its rate becomes state.rate.
void record_step(LangevinState& state, const LangevinOptions& options, std::int64_t proposals,
                 std::int64_t accepted) {
  state.window_proposals += proposals;
  state.window_accepted += accepted;
  if (++state.window_steps < options.window) return;
  if (state.window_proposals > 0) {
    state.rate =
        static_cast<double>(state.window_accepted) / static_cast<double>(state.window_proposals);
  }
  state.window_steps = state.window_proposals = state.window_accepted = 0;
}

}  // namespace

at::Tensor mala_log_acceptance(const at::Tensor& x, const at::Tensor& x_new,
                               const at::Tensor& log_r, const at::Tensor& log_r_new,
                               const at::Tensor& grad, const at::Tensor& grad_new, double eta) {
  return (log_r_new - log_r) + log_proposal(x, x_new, grad_new, eta) -
         log_proposal(x_new, x, grad, eta);
}

double adapt_langevin_step(double eta, double rate, double target) {
  return rate > target ? eta + 0.01 * eta : eta - 0.01 * eta;
}

LangevinResult langevin_search(const LangevinTarget& target, const at::Tensor& x,
                               const LangevinOptions& options, LangevinState& state,
                               at::Generator& generator) {
  if (x.dim() != 2 || x.scalar_type() != at::kFloat) {
    throw std::invalid_argument("langevin_search: need float32 [B, k] points");
  }
  if (options.steps < 1 || options.window < 1) {
    throw std::invalid_argument("langevin_search: need steps >= 1 and window >= 1, got " +
                                std::to_string(options.steps) + " and " +
                                std::to_string(options.window));
  }
  LangevinResult r;
  r.x = x.detach().clone();
  const std::int64_t b = x.size(0);
  if (b == 0) {
    r.log_reward = at::zeros({0}, at::kFloat);
    return r;
  }
  auto [log_r, grad] = target(r.x);
  r.evaluations = b;
  for (int i = 0; i < options.steps; ++i) {
    if (options.adapt) {
      const double rate = state.rate < 0 ? options.target_acceptance : state.rate;
      state.step = adapt_langevin_step(state.step, rate, options.target_acceptance);
    }
    const double eta = state.step;
    const at::Tensor eps = at::randn(r.x.sizes(), generator, at::kFloat);
    const at::Tensor x_new = r.x + eta * grad + std::sqrt(2.0 * eta) * eps;
    auto [log_r_new, grad_new] = target(x_new);
    r.evaluations += b;
    const at::Tensor log_alpha =
        mala_log_acceptance(r.x, x_new, log_r, log_r_new, grad, grad_new, eta);
    const at::Tensor u = at::rand({b}, generator, at::kFloat);
    // NaN log alpha (a non-finite proposal) rejects.
    const at::Tensor accept = u < log_alpha.clamp_max(0.0).exp();
    const std::int64_t n_accepted = accept.sum().item<std::int64_t>();
    const at::Tensor rows = accept.unsqueeze(1);
    r.x = at::where(rows, x_new, r.x);
    log_r = at::where(accept, log_r_new, log_r);
    grad = at::where(rows, grad_new, grad);
    r.proposals += b;
    r.accepted += n_accepted;
    record_step(state, options, b, n_accepted);
  }
  r.log_reward = log_r;
  return r;
}

}  // namespace gfn::core
