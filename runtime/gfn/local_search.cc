#include "runtime/gfn/local_search.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "runtime/gfn/env/environment.h"
#include "runtime/gfn/trajectory_ops.h"

namespace gfn::core {

namespace {

/// Masked log-softmax of logits [n, A] at the chosen columns [n].
at::Tensor chosen_log_probs(const at::Tensor& logits, const at::Tensor& masks,
                            const at::Tensor& chosen) {
  const at::Tensor masked =
      logits.masked_fill(masks.logical_not(), -std::numeric_limits<float>::infinity());
  return masked.log_softmax(1).gather(1, chosen.unsqueeze(1)).squeeze(1);
}

void check_round_inputs(const Environment& env, const at::Tensor& states,
                        const at::Tensor& log_rewards, const LocalSearchOptions& options) {
  env.check_states(states, "local_search_round");
  if (!log_rewards.defined() || log_rewards.dim() != 1 || log_rewards.size(0) != states.size(0)) {
    throw std::invalid_argument("local_search_round: log_rewards must be float32 [" +
                                std::to_string(states.size(0)) + "]");
  }
  if (!(options.back_ratio > 0.0 && options.back_ratio <= 1.0)) {
    throw std::invalid_argument(
        "local_search_round: local_search.back_ratio must be in (0, 1], got " +
        std::to_string(options.back_ratio));
  }
}

/// Trajectory i: the first keep[i] actions of `prefixes`, then all of `suffixes`.
buffer::PackedTrajectories join(const buffer::PackedTrajectories& prefixes,
                                const std::vector<std::int64_t>& keep,
                                const buffer::PackedTrajectories& suffixes) {
  const auto p_off = prefixes.offsets();
  const auto s_off = suffixes.offsets();
  buffer::PackedTrajectories out;
  std::vector<std::int64_t> seq;
  for (std::int64_t i = 0; i < prefixes.size(); ++i) {
    const auto u = static_cast<std::size_t>(i);
    seq.assign(prefixes.actions.begin() + static_cast<std::ptrdiff_t>(p_off[u]),
               prefixes.actions.begin() + static_cast<std::ptrdiff_t>(p_off[u]) + keep[u]);
    seq.insert(seq.end(), suffixes.actions.begin() + static_cast<std::ptrdiff_t>(s_off[u]),
               suffixes.actions.begin() + static_cast<std::ptrdiff_t>(s_off[u + 1]));
    out.append(seq.data(), static_cast<std::int32_t>(seq.size()));
  }
  return out;
}

}  // namespace

std::vector<std::int64_t> kept_actions(const buffer::PackedTrajectories& sequences,
                                       double back_ratio) {
  std::vector<std::int64_t> keep;
  keep.reserve(sequences.lengths.size());
  for (const std::int32_t length : sequences.lengths) {
    const std::int64_t n = std::max<std::int64_t>(length - 1, 0);  // non-exit actions
    auto k = static_cast<std::int64_t>(std::ceil(back_ratio * static_cast<double>(n)));
    if (n >= 1) k = std::clamp<std::int64_t>(k, 1, n);
    keep.push_back(n - std::min(k, n));
  }
  return keep;
}

at::Tensor states_after_prefixes(const Environment& env,
                                 const buffer::PackedTrajectories& sequences,
                                 const std::vector<std::int64_t>& keep) {
  const std::int64_t m = sequences.size();
  if (static_cast<std::int64_t>(keep.size()) != m) {
    throw std::invalid_argument("states_after_prefixes: one kept count per trajectory");
  }
  const auto offsets = sequences.offsets();
  at::Tensor states = env.initial_states(m);
  const std::int64_t steps = keep.empty() ? 0 : *std::max_element(keep.begin(), keep.end());
  for (std::int64_t t = 0; t < steps; ++t) {
    std::vector<std::int64_t> rows, actions;
    for (std::int64_t i = 0; i < m; ++i) {
      const auto u = static_cast<std::size_t>(i);
      if (keep[u] > t) {
        rows.push_back(i);
        actions.push_back(sequences.actions[offsets[u] + static_cast<std::size_t>(t)]);
      }
    }
    const at::Tensor r = at::tensor(rows, at::kLong);
    states.index_copy_(0, r, env.step(states.index_select(0, r), at::tensor(actions, at::kLong)));
  }
  return states;
}

TrajectoryLogProbs trajectory_log_probs(const Environment& env, const PolicyFunction& pf_policy,
                                        const PolicyFunction& pb_policy,
                                        const Trajectories& trajectories) {
  at::NoGradGuard no_grad;
  const std::int64_t b = trajectories.n_trajectories, n = trajectories.n_transitions();
  if (!trajectories.actions.defined() || n < b) {
    throw std::invalid_argument("trajectory_log_probs: trajectories without recorded transitions");
  }
  TrajectoryLogProbs out;
  const at::Tensor pf = chosen_log_probs(
      pf_policy(trajectories.states), env.forward_masks(trajectories.states), trajectories.actions);
  out.log_pf = at::zeros({b}, at::kFloat).index_add_(0, trajectories.traj_index, pf);
  out.log_pb = at::zeros({b}, at::kFloat);
  if (n > b) {
    const at::Tensor children = trajectories.states.narrow(0, b, n - b);
    const at::Tensor pb = chosen_log_probs(pb_policy(children), env.backward_masks(children),
                                           trajectories.pb_actions);
    out.log_pb.index_add_(0, trajectories.traj_index.narrow(0, b, n - b), pb);
  }
  return out;
}

at::Tensor log_acceptance_ratio(const at::Tensor& log_r_x, const TrajectoryLogProbs& tau,
                                const at::Tensor& log_r_x_new, const TrajectoryLogProbs& tau_new) {
  // R(x') PB(tau | x) PF(tau') / (R(x) PB(tau' | x') PF(tau)), as torchgfn's local_search.
  return (log_r_x_new + tau.log_pb + tau_new.log_pf - log_r_x - tau_new.log_pb - tau.log_pf)
      .clamp_max(0.0);
}

LocalSearchRound local_search_round(const Environment& env, const PolicyFunction& pf_policy,
                                    const PolicyFunction& pb_policy, const at::Tensor& states,
                                    const at::Tensor& log_rewards,
                                    const LocalSearchOptions& options,
                                    const SamplerOptions& sampling, at::Generator& generator) {
  check_round_inputs(env, states, log_rewards, options);
  at::NoGradGuard no_grad;
  const buffer::PackedTrajectories back =
      sample_backward_actions(env, pb_policy, states, generator);
  const std::vector<std::int64_t> keep = kept_actions(back, options.back_ratio);
  const at::Tensor junctions = states_after_prefixes(env, back, keep);
  const buffer::PackedTrajectories suffixes =
      sample_forward_actions(env, pf_policy, junctions, sampling, generator);
  LocalSearchRound round;
  round.proposals = trajectories_from_actions(env, join(back, keep, suffixes));
  const at::Tensor& new_log_r = round.proposals.log_rewards;
  const at::Tensor old_log_r = log_rewards.to(at::kFloat);
  if (options.acceptance == LocalSearchAcceptance::kFilter) {
    round.accepted = new_log_r >= old_log_r;
  } else {
    const Trajectories tau = trajectories_from_actions(env, back, old_log_r);
    const at::Tensor log_a = log_acceptance_ratio(
        old_log_r, trajectory_log_probs(env, pf_policy, pb_policy, tau), new_log_r,
        trajectory_log_probs(env, pf_policy, pb_policy, round.proposals));
    round.accepted = at::rand({states.size(0)}, generator, at::kFloat) < log_a.exp();
  }
  round.next_states =
      at::where(round.accepted.unsqueeze(1), round.proposals.terminating_states, states);
  round.next_log_rewards = at::where(round.accepted, new_log_r, old_log_r);
  return round;
}

}  // namespace gfn::core
