#include "runtime/gfn/sampler.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/gfn/categorical.h"
#include "runtime/gfn/env/environment.h"
#include "runtime/gfn/estimators.h"
#include "runtime/gfn/preprocessors.h"

namespace gfn::core {

at::Tensor action_probabilities(const at::Tensor& logits, const at::Tensor& masks,
                                const SamplerOptions& options) {
  at::Tensor scaled = options.temperature == 1.0 ? logits : logits / options.temperature;
  at::Tensor probs =
      scaled.masked_fill(masks.logical_not(), -std::numeric_limits<float>::infinity()).softmax(1);
  if (options.epsilon > 0.0) {
    const at::Tensor allowed = masks.to(at::kFloat);
    const at::Tensor uniform = allowed / allowed.sum(1, /*keepdim=*/true);
    probs = probs * (1.0 - options.epsilon) + uniform * options.epsilon;
  }
  return probs;
}

at::Tensor sample_actions(const at::Tensor& logits, const at::Tensor& masks,
                          const SamplerOptions& options, at::Generator& generator) {
  // at::multinomial(p, 1)'s draws (categorical.h), without its ~10 ATen calls of checks.
  return sample_categorical(action_probabilities(logits, masks, options), generator);
}

PolicyFunction model_policy(GFlowNetModel& model, const Preprocessor& preprocessor,
                            const Environment& env) {
  return [&model, &preprocessor, &env](const at::Tensor& states) {
    // Speed: the running trajectories of one step share few distinct states (all lie
    // on the level sum(s) = t), so the network runs once per distinct state.
    const UniqueStates u = env.unique(states);
    return model.pf_logits(preprocessor(u.states)).index_select(0, u.inverse);
  };
}

PolicyFunction model_backward_policy(GFlowNetModel& model, const Preprocessor& preprocessor,
                                     const Environment& env) {
  return [&model, &preprocessor, &env](const at::Tensor& states) {
    const UniqueStates u = env.unique(states);
    return model.pb_logits(preprocessor(u.states)).index_select(0, u.inverse);
  };
}

void check_sampler_options(const SamplerOptions& options) {
  if (!(options.epsilon >= 0.0 && options.epsilon <= 1.0)) {
    throw std::invalid_argument("sample_trajectories: epsilon must be in [0, 1], got " +
                                std::to_string(options.epsilon));
  }
  if (!(options.temperature > 0.0)) {
    throw std::invalid_argument("sample_trajectories: temperature must be > 0, got " +
                                std::to_string(options.temperature));
  }
}

buffer::PackedTrajectories sample_backward_actions(const Environment& env,
                                                   const PolicyFunction& pb_policy,
                                                   const at::Tensor& states,
                                                   at::Generator& generator) {
  env.check_states(states, "sample_backward_actions");
  if (!env.can_terminate(states).all().item<bool>()) {
    throw std::invalid_argument(
        "sample_backward_actions: every state must be a terminating state (exit allowed)");
  }
  at::NoGradGuard no_grad;
  const std::int64_t n = states.size(0);
  const std::int64_t n_back = env.n_backward_actions();
  std::vector<std::vector<std::int64_t>> backward(static_cast<std::size_t>(n));
  const SamplerOptions on_policy;
  at::Tensor ids = at::arange(n, at::kLong);
  at::Tensor current = states;
  // Drop the rows already at s0 (their trajectory is s0 -> exit).
  at::Tensor running = at::nonzero(env.is_initial(current).logical_not()).squeeze(1);
  ids = ids.index_select(0, running);
  current = current.index_select(0, running);
  while (ids.numel() > 0) {
    const at::Tensor masks = env.backward_masks(current);
    if (!masks.any(1).all().item<bool>()) {
      throw std::invalid_argument(
          "sample_backward_actions: a non-initial state has no allowed backward action");
    }
    const at::Tensor logits = pb_policy(current);
    if (logits.dim() != 2 || logits.size(0) != current.size(0) || logits.size(1) != n_back) {
      throw std::invalid_argument("sample_backward_actions: pb_policy must return [" +
                                  std::to_string(current.size(0)) + ", " + std::to_string(n_back) +
                                  "] logits");
    }
    const at::Tensor actions = sample_actions(logits, masks, on_policy, generator).contiguous();
    const at::Tensor ids_c = ids.contiguous();
    const auto* id = ids_c.data_ptr<std::int64_t>();
    const auto* a = actions.data_ptr<std::int64_t>();
    for (std::int64_t i = 0; i < ids_c.numel(); ++i) {
      backward[static_cast<std::size_t>(id[i])].push_back(a[i]);
    }
    current = env.backward_step_unchecked(current, actions);
    running = at::nonzero(env.is_initial(current).logical_not()).squeeze(1);
    ids = ids.index_select(0, running);
    current = current.index_select(0, running);
  }
  const std::int64_t exit = env.exit_action();
  buffer::PackedTrajectories out;
  out.lengths.reserve(backward.size());
  for (auto& seq : backward) {
    std::reverse(seq.begin(), seq.end());
    seq.push_back(exit);
    out.append(seq.data(), static_cast<std::int32_t>(seq.size()));
  }
  return out;
}

buffer::PackedTrajectories sample_forward_actions(const Environment& env,
                                                  const PolicyFunction& pf_policy,
                                                  const at::Tensor& states,
                                                  const SamplerOptions& options,
                                                  at::Generator& generator) {
  env.check_states(states, "sample_forward_actions");
  check_sampler_options(options);
  at::NoGradGuard no_grad;
  const std::int64_t n = states.size(0);
  const std::int64_t exit = env.exit_action();
  std::vector<std::vector<std::int64_t>> forward(static_cast<std::size_t>(n));
  at::Tensor ids = at::arange(n, at::kLong);
  at::Tensor current = states;
  while (ids.numel() > 0) {
    const at::Tensor logits = pf_policy(current);
    if (logits.dim() != 2 || logits.size(0) != current.size(0) || logits.size(1) != exit + 1) {
      throw std::invalid_argument("sample_forward_actions: pf_policy must return [" +
                                  std::to_string(current.size(0)) + ", " +
                                  std::to_string(exit + 1) + "] logits");
    }
    const at::Tensor actions =
        sample_actions(logits, env.forward_masks(current), options, generator).contiguous();
    const at::Tensor ids_c = ids.contiguous();
    const auto* id = ids_c.data_ptr<std::int64_t>();
    const auto* a = actions.data_ptr<std::int64_t>();
    for (std::int64_t i = 0; i < ids_c.numel(); ++i) {
      forward[static_cast<std::size_t>(id[i])].push_back(a[i]);
    }
    const at::Tensor running = at::nonzero(actions != exit).squeeze(1);
    ids = ids.index_select(0, running);
    current =
        env.step_unchecked(current.index_select(0, running), actions.index_select(0, running));
  }
  buffer::PackedTrajectories out;
  out.lengths.reserve(forward.size());
  for (const auto& seq : forward) out.append(seq.data(), static_cast<std::int32_t>(seq.size()));
  return out;
}

namespace {

// The sampler loop shared by both entry points; `policy` returns the per-row PF logits
// used for the draws (called once per step, in step order, on the running rows).
Trajectories sample_impl(const Environment& env, const PolicyFunction& policy, std::int64_t n,
                         const SamplerOptions& options, at::Generator& generator) {
  if (n < 0)
    throw std::invalid_argument("sample_trajectories: n must be >= 0, got " + std::to_string(n));
  check_sampler_options(options);
  at::NoGradGuard no_grad;
  const std::int64_t exit = env.exit_action();

  Trajectories out;
  out.n_trajectories = n;
  out.terminating_states = at::empty({n, env.state_dim()}, at::kLong);
  out.lengths = at::zeros({n}, at::kLong);

  // Only the running trajectories are kept: `states` holds their current states and
  // `ids` their trajectory numbers, so each step's policy call sees just those rows.
  at::Tensor ids = at::arange(n, at::kLong);
  at::Tensor states = env.initial_states(n);
  at::Tensor last_actions;  // action that led into `states` (undefined at step 0)
  std::vector<at::Tensor> rec_states, rec_actions, rec_ids, rec_pb;

  while (ids.numel() > 0) {
    const at::Tensor logits = policy(states);
    if (logits.dim() != 2 || logits.size(0) != states.size(0) || logits.size(1) != exit + 1) {
      throw std::invalid_argument("sample_trajectories: policy must return [" +
                                  std::to_string(states.size(0)) + ", " + std::to_string(exit + 1) +
                                  "] logits");
    }
    const at::Tensor actions =
        sample_actions(logits, env.forward_masks(states), options, generator);
    out.lengths.index_add_(0, ids, at::ones_like(ids));
    if (options.record_transitions) {
      rec_states.push_back(states);
      rec_actions.push_back(actions);
      rec_ids.push_back(ids);
      if (last_actions.defined()) rec_pb.push_back(last_actions);
    }
    const at::Tensor is_exit = actions == exit;
    const at::Tensor done = at::nonzero(is_exit).squeeze(1);
    if (done.numel() > 0) {
      out.terminating_states.index_copy_(0, ids.index_select(0, done),
                                         states.index_select(0, done));
    }
    if (done.numel() == ids.numel()) break;
    const at::Tensor running = at::nonzero(is_exit.logical_not()).squeeze(1);
    ids = ids.index_select(0, running);
    last_actions = actions.index_select(0, running);
    states = env.step_unchecked(states.index_select(0, running), last_actions);
  }

  if (options.record_transitions) {
    out.states = n > 0 ? at::cat(rec_states) : at::empty({0, env.state_dim()}, at::kLong);
    out.actions = n > 0 ? at::cat(rec_actions) : at::empty({0}, at::kLong);
    out.traj_index = n > 0 ? at::cat(rec_ids) : at::empty({0}, at::kLong);
    out.pb_actions = rec_pb.empty() ? at::empty({0}, at::kLong) : at::cat(rec_pb);
  }
  out.log_rewards = env.log_reward(out.terminating_states);
  return out;
}

}  // namespace

Trajectories sample_trajectories(const Environment& env, const PolicyFunction& policy,
                                 std::int64_t n, const SamplerOptions& options,
                                 at::Generator& generator) {
  return sample_impl(env, policy, n, options, generator);
}

}  // namespace gfn::core
