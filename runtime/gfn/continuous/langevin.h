#pragma once
// Local search in the target space of a continuous target with a gradient
// (local_search.mode langevin): Metropolis-adjusted Langevin (MALA) steps, as Sendera et al.
// 2024, "Improved off-policy training of diffusion samplers" (gfn-diffusion,
// energy_sampling/langevin.py) use to refine replayed samples. One step from x (float32 [B, k]):
//   x' = x + eta grad log R(x) + sqrt(2 eta) eps,  eps ~ N(0, I),
//   log alpha = log R(x') - log R(x) + log q(x | x') - log q(x' | x),
//   log q(b | a) = -|b - a - eta grad log R(a)|^2 / (4 eta)  (the Gaussian's constant cancels),
// and x' replaces x where u < exp(min(log alpha, 0)), u ~ U[0, 1) (a row at a time).
//
// Step-size schedule (gfn-diffusion's --ld_schedule, adjust_ld_step): before every step
// eta *= 1.01 if the current acceptance rate is above the target, else eta *= 0.99; the rate
// is that of the last completed window of 5 steps (all rows), the target itself until one
// completes. LangevinState carries eta, the rate and the open window from search to search
// (gfn-diffusion restarts from ld_step at every search; here the adapted eta is kept, and
// checkpointed with the learner).
//
// The target (LangevinTarget) gives log R and its gradient at points together: one target
// evaluation per row (ContinuousEnvironment::log_reward_and_gradient). Not thread-safe (the
// state and the generator). Cost per step: one target evaluation with its gradient per row and
// O(B k) arithmetic. Errors: std::invalid_argument for x not float32 [B, k] or steps < 1.

#include <ATen/core/Generator.h>
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <functional>
#include <utility>

namespace gfn::core {

/// log R and grad log R at points float32 [B, k]: {float32 [B], float32 [B, k]}.
using LangevinTarget = std::function<std::pair<at::Tensor, at::Tensor>(const at::Tensor&)>;

/// The adapted step size and the acceptance window (checkpointed by the learner).
struct LangevinState {
  double step = 0.01;  ///< eta, > 0
  double rate = -1;    ///< acceptance of the last completed window; < 0: none yet
  std::int64_t window_steps = 0;
  std::int64_t window_proposals = 0;
  std::int64_t window_accepted = 0;
};

struct LangevinOptions {
  int steps = 100;    ///< MALA steps
  bool adapt = true;  ///< the step-size schedule above
  double target_acceptance = 0.574;
  int window = 5;  ///< steps per acceptance window (gfn-diffusion: 5)
};

struct LangevinResult {
  at::Tensor x;                  ///< float32 [B, k]: the states after the last step
  at::Tensor log_reward;         ///< float32 [B]: log R(x)
  std::int64_t proposals = 0;    ///< B * steps
  std::int64_t accepted = 0;     ///< proposals accepted
  std::int64_t evaluations = 0;  ///< target evaluations: B * (steps + 1)
};

/// log alpha (float32 [B]) of the moves x -> x_new with the given log R and gradients at both
/// (all float32; [B] and [B, k]) and step size eta > 0: the formula above.
at::Tensor mala_log_acceptance(const at::Tensor& x, const at::Tensor& x_new,
                               const at::Tensor& log_r, const at::Tensor& log_r_new,
                               const at::Tensor& grad, const at::Tensor& grad_new, double eta);

/// gfn-diffusion's adjust_ld_step: eta * 1.01 if rate > target, else eta * 0.99.
double adapt_langevin_step(double eta, double rate, double target);

/// `options.steps` MALA steps from x float32 [B, k] (B may be 0), drawing eps and u from
/// `generator`; updates `state` (eta with options.adapt, the window).
LangevinResult langevin_search(const LangevinTarget& target, const at::Tensor& x,
                               const LangevinOptions& options, LangevinState& state,
                               at::Generator& generator);

}  // namespace gfn::core
