#include "runtime/gfn/continuous/sampler.h"

#include <ATen/ATen.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/gfn/continuous/estimators.h"
#include "runtime/gfn/continuous/policy.h"
#include "runtime/gfn/env/continuous_environment.h"

namespace gfn::core {

ContinuousTrajectories sample_continuous_trajectories(const ContinuousGFlowNet& gfn, std::int64_t n,
                                                      const ContinuousSamplerOptions& options,
                                                      at::Generator& generator) {
  if (n < 0 || !(options.temperature > 0) || options.max_length < 1) {
    throw std::invalid_argument(
        "sample_continuous_trajectories: need n >= 0, temperature > 0 and max_length >= 1");
  }
  at::NoGradGuard no_grad;
  const ContinuousEnvironment& env = gfn.env;
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
  return out;
}

TransitionLogProbs continuous_log_probs(const ContinuousGFlowNet& gfn,
                                        const ContinuousTrajectories& trajs, double temperature) {
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
  gfn.env.check_states(trajs.states, "continuous_log_probs");
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
