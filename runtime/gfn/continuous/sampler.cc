#include "runtime/gfn/continuous/sampler.h"

#include <ATen/ATen.h>

#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "runtime/gfn/continuous/estimators.h"
#include "runtime/gfn/continuous/policy.h"
#include "runtime/gfn/continuous/trajectory_ops.h"
#include "runtime/gfn/env/continuous_environment.h"
#include "runtime/gfn/env/diffusion.h"
#include "runtime/gfn/env/diffusion_policies.h"

namespace gfn::core {
namespace {

/// The T moves of diffusion's fused sampler with a PISGradNet PF without the Langevin input,
/// written into out.states and out.increments ([(T + 1) n, d + 1], time columns filled
/// first; the exit rows' increments (0, 1), as pf.sample writes them): per step the network in 4
/// GEMMs (PisNetwork::step_drift on the step's time embedding, computed once for the T times;
/// saving the activations, step_drift_saved on raw rows, with no ATen call per step) and
/// DiffusionForwardPolicy::draw_step (the moves into the step's increment rows and x + a into the
/// next step's rows, one pass); the exit step draws what pf.sample would (discarded). The same
/// draws as the general loop (tested).
void sample_pis_moves(const DiffusionSampling& env, const DiffusionForwardPolicy& pf,
                      PisNetwork& pis, std::int64_t n, double temperature, bool save,
                      at::Generator& generator, ContinuousTrajectories& out) {
  const std::int64_t d = env.x_dim();
  const std::int64_t steps = env.n_steps();
  out.states.select(1, d).copy_(at::arange(steps + 1, at::kFloat).repeat_interleave(n));
  out.increments.select(1, d).fill_(1.0);
  out.increments.narrow(0, steps * n, n).narrow(1, 0, d).zero_();  // the exit rows: (0, 1)
  out.states.narrow(0, 0, n).narrow(1, 0, d).zero_();
  const at::Tensor biases =
      pis.step_biases(at::arange(steps, at::kFloat).div(static_cast<double>(steps)).unsqueeze(1))
          .contiguous();
  at::Tensor noise = at::empty({n, d}, at::kFloat);
  std::shared_ptr<PisActivations> saved;
  if (save) {
    saved = std::make_shared<PisActivations>(
        pis.allocate_activations(out.states.narrow(0, 0, steps * n).narrow(1, 0, d), steps, n));
  }
  // Raw rows per step (no tensor view per step): states and increments are [(T + 1) n, d + 1].
  float* states = out.states.data_ptr<float>();
  float* increments = out.increments.data_ptr<float>();
  const float* bias_rows = biases.data_ptr<float>();
  const std::int64_t stride = out.states.stride(0);
  for (std::int64_t t = 0; t < steps; ++t) {
    float* x = states + t * n * stride;
    float* a = increments + t * n * out.increments.stride(0);
    if (saved) {
      const float* drift = pis.step_drift_saved(bias_rows + t * biases.size(1), *saved, t);
      pf.draw_step(drift, temperature, noise, x, stride, a, out.increments.stride(0),
                   x + n * stride, stride, generator);
    } else {
      const at::Tensor rows = out.states.narrow(0, t * n, n).narrow(1, 0, d);
      const at::Tensor drift = pis.step_drift(rows, biases.narrow(0, t, 1)).contiguous();
      pf.draw_step(drift.data_ptr<float>(), temperature, noise, x, stride, a,
                   out.increments.stride(0), x + n * stride, stride, generator);
    }
  }
  pf.draw_step(at::Tensor(), temperature, noise, at::Tensor(), at::Tensor(), at::Tensor(),
               generator);
  out.pf_activations = std::move(saved);
}

/// Diffusion's trajectories (options.fused_diffusion, sampler.h): T moves of all n rows, then
/// the exit at t = T, in the step-major layout the general loop builds, n >= 1.
ContinuousTrajectories sample_diffusion(const ContinuousGFlowNet& gfn, const DiffusionSampling& env,
                                        std::int64_t n, const ContinuousSamplerOptions& options,
                                        at::Generator& generator) {
  const double temperature = options.temperature;
  const std::int64_t dim = env.dim();
  const std::int64_t steps = env.n_steps();
  ContinuousTrajectories out;
  out.n_trajectories = n;
  out.states = at::empty({(steps + 1) * n, dim}, at::kFloat);
  out.increments = at::empty({(steps + 1) * n, dim}, at::kFloat);
  PisNetwork* pis = env.langevin() ? nullptr : gfn.model.pf_pis();
  if (pis) {
    sample_pis_moves(env, dynamic_cast<const DiffusionForwardPolicy&>(gfn.pf), *pis, n, temperature,
                     options.save_pf_activations, generator, out);
  } else {
    out.states.narrow(0, 0, n).copy_(env.initial_states(n));
    for (std::int64_t t = 0; t <= steps; ++t) {
      const at::Tensor states = out.states.narrow(0, t * n, n);
      // At t = T every row exits: the policy's draw (discarded) needs no drift.
      const at::Tensor outputs = t == steps ? at::zeros({n, env.x_dim()}, at::kFloat)
                                            : gfn.model.pf(env.policy_inputs(states));
      const ContinuousActions actions = gfn.pf.sample(states, outputs, temperature, generator);
      out.increments.narrow(0, t * n, n).copy_(actions.increments);
      if (t < steps) {
        out.states.narrow(0, (t + 1) * n, n).copy_(env.step_unchecked(states, actions.increments));
      }
    }
  }
  out.is_exit = at::zeros({(steps + 1) * n}, at::kBool);
  out.is_exit.narrow(0, steps * n, n).fill_(true);
  out.traj_index = at::arange(n, at::kLong).repeat({steps + 1});
  out.pb_increments = out.increments.narrow(0, 0, steps * n);
  out.lengths = at::full({n}, steps + 1, at::kLong);
  out.terminating_states = out.states.narrow(0, steps * n, n).clone();
  out.log_rewards = env.log_reward(out.terminating_states);
  out.trusted = true;
  return out;
}

}  // namespace

ContinuousTrajectories sample_continuous_trajectories(const ContinuousGFlowNet& gfn, std::int64_t n,
                                                      const ContinuousSamplerOptions& options,
                                                      at::Generator& generator) {
  if (n < 0 || !(options.temperature > 0) || options.max_length < 1) {
    throw std::invalid_argument(
        "sample_continuous_trajectories: need n >= 0, temperature > 0 and max_length >= 1");
  }
  at::NoGradGuard no_grad;
  const ContinuousEnvironment& env = gfn.env;
  const auto* diffusion = dynamic_cast<const DiffusionSampling*>(&env);
  if (options.fused_diffusion && diffusion && n > 0 &&
      dynamic_cast<const DiffusionForwardPolicy*>(&gfn.pf) &&
      diffusion->n_steps() < options.max_length) {
    return sample_diffusion(gfn, *diffusion, n, options, generator);
  }
  const std::int64_t d = env.dim();
  std::vector<at::Tensor> states_steps, increment_steps, exit_steps, traj_steps, pb_steps;
  at::Tensor terminating = at::zeros({n, d}, at::kFloat);
  at::Tensor lengths = at::zeros({n}, at::kLong);
  at::Tensor states = env.initial_states(n);
  at::Tensor running = at::arange(n, at::kLong);  // trajectory of each current row
  for (std::int64_t t = 0; running.size(0) > 0; ++t) {
    if (t == options.max_length) {
      throw std::runtime_error(
          "sample_continuous_trajectories: " + std::to_string(running.size(0)) +
          " trajectories of " + env.name() +
          " did not exit within max_length = " + std::to_string(options.max_length) + " actions");
    }
    const at::Tensor outputs = gfn.model.pf(env.policy_inputs(states));
    const ContinuousActions actions =
        gfn.pf.sample(states, outputs, options.temperature, generator);
    states_steps.push_back(states);
    increment_steps.push_back(actions.increments);
    exit_steps.push_back(actions.is_exit);
    traj_steps.push_back(running);
    const at::Tensor exit_rows = at::nonzero(actions.is_exit).squeeze(1);
    const at::Tensor exited = running.index_select(0, exit_rows);
    terminating.index_copy_(0, exited, states.index_select(0, exit_rows));
    lengths.index_fill_(0, exited, t + 1);
    const at::Tensor moving = at::nonzero(actions.is_exit.logical_not()).squeeze(1);
    const at::Tensor moves = actions.increments.index_select(0, moving);
    pb_steps.push_back(moves);
    states = env.step_unchecked(states.index_select(0, moving), moves);
    running = running.index_select(0, moving);
  }
  ContinuousTrajectories out;
  out.n_trajectories = n;
  out.states = n > 0 ? at::cat(states_steps) : at::zeros({0, d}, at::kFloat);
  out.increments = n > 0 ? at::cat(increment_steps) : at::zeros({0, d}, at::kFloat);
  out.is_exit = n > 0 ? at::cat(exit_steps) : at::zeros({0}, at::kBool);
  out.traj_index = n > 0 ? at::cat(traj_steps) : at::zeros({0}, at::kLong);
  out.pb_increments = n > 0 ? at::cat(pb_steps) : at::zeros({0, d}, at::kFloat);
  out.lengths = lengths;
  out.terminating_states = terminating;
  out.log_rewards = env.log_reward(terminating);
  out.trusted = true;
  return out;
}

namespace {

/// What walking back from the terminating states recorded: one row per backward step
/// (child state, the increment PB drew, its trajectory, the backward step number).
struct BackwardWalk {
  at::Tensor child, increment, traj, back_step;
  at::Tensor n_steps;  ///< int64 [n]: backward steps of each trajectory to s0 (>= 1)
};

BackwardWalk walk_back(const ContinuousGFlowNet& gfn, const at::Tensor& terminating,
                       const ContinuousSamplerOptions& options, at::Generator& generator) {
  const ContinuousEnvironment& env = gfn.env;
  const std::int64_t n = terminating.size(0);
  std::vector<at::Tensor> child, increment, traj, back_step;
  BackwardWalk w;
  w.n_steps = at::zeros({n}, at::kLong);
  at::Tensor states = terminating;
  at::Tensor running = at::arange(n, at::kLong);
  for (std::int64_t t = 0; running.size(0) > 0; ++t) {
    if (t == options.max_length) {
      throw std::runtime_error(
          "sample_backward_continuous_trajectories: " + std::to_string(running.size(0)) +
          " states of " + env.name() + " did not reach s0 within max_length = " +
          std::to_string(options.max_length) + " backward actions");
    }
    const at::Tensor outputs = gfn.model.forward(env.policy_inputs(states), 0).pb;
    const ContinuousActions back = gfn.pb.sample(states, outputs, options.temperature, generator);
    child.push_back(states);
    increment.push_back(back.increments);
    traj.push_back(running);
    back_step.push_back(at::full({running.size(0)}, t, at::kLong));
    w.n_steps.index_fill_(0, running, t + 1);
    const at::Tensor parents = env.backward_step_unchecked(states, back.increments);
    const at::Tensor on = at::nonzero(env.is_initial(parents).logical_not()).squeeze(1);
    states = parents.index_select(0, on);
    running = running.index_select(0, on);
  }
  w.child = at::cat(child);
  w.increment = at::cat(increment);
  w.traj = at::cat(traj);
  w.back_step = at::cat(back_step);
  return w;
}

}  // namespace

void check_terminating_states(const ContinuousEnvironment& env, const at::Tensor& states,
                              const char* who) {
  env.check_states(states, who);
  const at::Tensor bad = env.is_initial(states) | env.can_exit(states).logical_not();
  if (bad.any().item<bool>()) {
    const std::int64_t row = at::nonzero(bad)[0][0].item<std::int64_t>();
    throw std::invalid_argument(std::string(who) + ": row " + std::to_string(row) + " " +
                                row_string(states, row) + " is not a terminating state of " +
                                env.name() + " (s0, or a state that cannot exit)");
  }
}

ContinuousTrajectories sample_backward_continuous_trajectories(
    const ContinuousGFlowNet& gfn, const at::Tensor& terminating_states,
    const ContinuousSamplerOptions& options, at::Generator& generator) {
  if (!(options.temperature > 0) || options.max_length < 1) {
    throw std::invalid_argument(
        "sample_backward_continuous_trajectories: need temperature > 0 and max_length >= 1");
  }
  const ContinuousEnvironment& env = gfn.env;
  check_terminating_states(env, terminating_states, "sample_backward_continuous_trajectories");
  const std::int64_t n = terminating_states.size(0);
  const std::int64_t d = env.dim();
  if (n == 0) return sample_continuous_trajectories(gfn, 0, options, generator);
  at::NoGradGuard no_grad;
  const BackwardWalk w = walk_back(gfn, terminating_states, options, generator);
  // record[j, t]: the row of trajectory j's backward step t.
  const std::int64_t k_max = w.n_steps.max().item<std::int64_t>();
  const at::Tensor record = at::full({n, k_max + 1}, -1, at::kLong);
  record.index_put_({w.traj, w.back_step}, at::arange(w.traj.size(0), at::kLong));
  const at::Tensor k = w.n_steps.index_select(0, w.traj);
  // The child of backward step t is forward state k - t; its forward action is the increment
  // of backward step t - 1 (the exit when t == 0); PB's action back from it is its own.
  const at::Tensor leaves = w.back_step.eq(0);
  const at::Tensor next = record.index({w.traj, (w.back_step - 1).clamp_min(0)});
  const at::Tensor forward_inc = at::where(leaves.unsqueeze(1), at::zeros({1, d}, at::kFloat),
                                           w.increment.index_select(0, next));
  // Step 0: s0, whose action is the increment of the last backward step.
  const at::Tensor all = at::arange(n, at::kLong);
  const at::Tensor first = record.index({all, w.n_steps - 1});
  ContinuousTrajectories out = order_step_major(
      at::cat({env.initial_states(n), w.child}),
      at::cat({w.increment.index_select(0, first), forward_inc}),
      at::cat({at::zeros({n}, at::kBool), leaves}),
      at::cat({at::zeros({n, d}, at::kFloat), w.increment}), at::cat({all, w.traj}),
      at::cat({at::zeros({n}, at::kLong), k - w.back_step}), n);
  out.lengths = w.n_steps + 1;
  out.terminating_states = terminating_states;
  out.log_rewards = env.log_reward(terminating_states);
  return out;
}

namespace {

/// continuous_log_probs' trusted path for diffusion (sampler.h): PF's PISGradNet (without the
/// Langevin input) on the T B move rows only, its saved sampling forward when the batch carries
/// it (pf_activations), else step-major (the exit rows' PF is the forced 0,
/// whatever the drift), PF's Normal and PB's bridge without their checks; null when the batch
/// is not such a batch (then the plain path runs).
std::optional<TransitionLogProbs> diffusion_trusted_log_probs(const ContinuousGFlowNet& gfn,
                                                              const ContinuousTrajectories& trajs,
                                                              double temperature) {
  const auto* env = dynamic_cast<const DiffusionSampling*>(&gfn.env);
  const auto* pf = dynamic_cast<const DiffusionForwardPolicy*>(&gfn.pf);
  const auto* pb = dynamic_cast<const DiffusionBackwardPolicy*>(&gfn.pb);
  PisNetwork* pis = gfn.model.pf_pis();
  const std::int64_t b = trajs.n_trajectories;
  if (!trajs.trusted || env == nullptr || pf == nullptr || pb == nullptr || pis == nullptr ||
      env->langevin() || trajs.n_transitions() != (env->n_steps() + 1) * b) {
    return std::nullopt;
  }
  // Every trajectory has T moves then the exit: step t's rows are [t B, (t + 1) B).
  const std::int64_t steps = env->n_steps();
  const std::int64_t d = env->x_dim();
  const std::int64_t moves = steps * b;
  const at::Tensor tau = at::arange(steps, at::kFloat).div(static_cast<double>(steps)).unsqueeze(1);
  const PisActivations* saved = trajs.pf_activations.get();
  const at::Tensor drift =
      saved && saved->steps == steps && saved->rows_per_step == b
          ? pis->saved_forward(*saved, tau)
          : pis->step_major_forward(trajs.states.narrow(0, 0, moves).narrow(1, 0, d), tau);
  TransitionLogProbs lp;
  lp.log_pf = at::cat(
      {pf->move_log_prob(trajs.increments.narrow(0, 0, moves).narrow(1, 0, d), drift, temperature),
       at::zeros({b}, drift.options())});
  lp.log_pb = pb->step_major_log_prob(trajs.states.narrow(0, b, moves).narrow(1, 0, d),
                                      trajs.pb_increments.narrow(1, 0, d));
  if (gfn.model.has_log_flow()) {
    lp.log_flow = gfn.model.log_flow(trajs.states, gfn.env.is_initial(trajs.states));
  }
  return lp;
}

}  // namespace

TransitionLogProbs continuous_log_probs(const ContinuousGFlowNet& gfn,
                                        const ContinuousTrajectories& trajs, double temperature,
                                        bool trusted_path) {
  const std::int64_t b = trajs.n_trajectories;
  const std::int64_t n = trajs.n_transitions();
  const std::int64_t d = gfn.env.dim();
  const bool ok = b >= 1 && n >= b && trajs.increments.defined() &&
                  trajs.increments.sizes() == trajs.states.sizes() && trajs.is_exit.defined() &&
                  trajs.is_exit.size(0) == n && trajs.pb_increments.defined() &&
                  trajs.pb_increments.dim() == 2 && trajs.pb_increments.size(0) == n - b &&
                  trajs.pb_increments.size(1) == d;
  if (!ok) {
    throw std::invalid_argument(
        "continuous_log_probs: need B >= 1 trajectories with states and increments [N, d], "
        "is_exit [N] and pb_increments [N - B, d]");
  }
  if (trusted_path && trajs.trusted) {
    if (auto lp = diffusion_trusted_log_probs(gfn, trajs, temperature)) return *std::move(lp);
  } else {
    gfn.env.check_states(trajs.states, "continuous_log_probs");
  }
  const ContinuousOutputs out = gfn.model.forward(gfn.env.policy_inputs(trajs.states), b);
  TransitionLogProbs lp;
  lp.log_pf = gfn.pf.log_prob(trajs.states, out.pf, trajs.actions(), temperature);
  const at::Tensor children = trajs.states.narrow(0, b, n - b);
  const ContinuousActions back{trajs.pb_increments, at::zeros({n - b}, at::kBool)};
  lp.log_pb = gfn.pb.log_prob(children, out.pb, back, temperature);
  if (gfn.model.has_log_flow()) {
    lp.log_flow = gfn.model.log_flow(trajs.states, gfn.env.is_initial(trajs.states));
  }
  return lp;
}

}  // namespace gfn::core
