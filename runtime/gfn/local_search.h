#pragma once
// Local Search GFlowNets (Kim, Yun, Bengio, Zhang, Bengio, Ahn, Park: "Local Search
// GFlowNets", ICLR 2024; torchgfn's LocalSearchSampler.local_search, gfn/samplers.py): a
// search round takes each search point x (a terminating state), samples a whole trajectory
// tau back to s0 with PB, keeps its first n - K actions (n non-exit actions,
// K = ceil(back_ratio * n), at least 1 when n >= 1), re-completes from that junction state
// with PF (the iteration's epsilon and temperature) to x', and decides which of x and x'
// the next round starts from (local_search_options.h: a deterministic filter, or
// Metropolis-Hastings with the acceptance ratio
//   min(1, R(x') PB(tau | x) PF(tau') / (R(x) PB(tau' | x') PF(tau)))
// computed on-policy). The Learner trains on the trajectories from s0 and every proposal
// tau', accepted or not, as torchgfn's LocalSearchSampler.sample_trajectories returns them.
//
// Shapes: states int64 [M, state_dim], log rewards float32 [M]. Randomness only from the
// given generator: the same generator state gives the same round. Runs under
// at::NoGradGuard. Cost per round: one backward and one forward sampling pass over M rows
// (one policy call per step each), trajectories_from_actions of the M proposals, and for
// Metropolis-Hastings one PF and PB evaluation of every row of tau and tau'.
// Not thread-safe with respect to the generator.

#include <ATen/core/Generator.h>
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

#include "runtime/buffer/packed_trajectories.h"
#include "runtime/gfn/local_search_options.h"
#include "runtime/gfn/sampler.h"
#include "runtime/gfn/trajectories.h"

namespace gfn::core {

class Environment;

/// What one search round produced.
struct LocalSearchRound {
  /// The M proposals tau' (s0 -> junction -> x' -> exit), with recorded transitions and
  /// log rewards: the trajectories the Learner adds to its batch.
  Trajectories proposals;
  at::Tensor accepted;          ///< bool [M]: x' replaces x as the search point
  at::Tensor next_states;       ///< int64 [M, state_dim]: x' where accepted, else x
  at::Tensor next_log_rewards;  ///< float32 [M]
};

/// One round from the search points `states` (valid terminating states) with log rewards
/// `log_rewards`. Throws std::invalid_argument for shapes that disagree, states that cannot
/// terminate, back_ratio outside (0, 1], or what the samplers throw.
LocalSearchRound local_search_round(const Environment& env, const PolicyFunction& pf_policy,
                                    const PolicyFunction& pb_policy, const at::Tensor& states,
                                    const at::Tensor& log_rewards,
                                    const LocalSearchOptions& options,
                                    const SamplerOptions& sampling, at::Generator& generator);

/// Actions a round keeps from each trajectory: n - ceil(back_ratio * n) of its n non-exit
/// actions (lengths include the exit). int64 per trajectory.
std::vector<std::int64_t> kept_actions(const buffer::PackedTrajectories& sequences,
                                       double back_ratio);

/// The state reached after the first keep[i] actions of trajectory i from s0
/// (keep[i] <= its non-exit actions): int64 [B, state_dim].
at::Tensor states_after_prefixes(const Environment& env,
                                 const buffer::PackedTrajectories& sequences,
                                 const std::vector<std::int64_t>& keep);

/// Per-trajectory sums of on-policy log PF (exit included) and log PB of a batch with
/// recorded transitions, from detached logits masked by the environment (log-softmax over
/// the allowed actions): float32 [B] each. Equal to the sums of transition_log_probs
/// (losses.h) for the same model.
struct TrajectoryLogProbs {
  at::Tensor log_pf;
  at::Tensor log_pb;
};
TrajectoryLogProbs trajectory_log_probs(const Environment& env, const PolicyFunction& pf_policy,
                                        const PolicyFunction& pb_policy,
                                        const Trajectories& trajectories);

/// log of the Metropolis-Hastings acceptance ratio, clamped at 0: float32 [M] from the log
/// rewards and trajectory log-probabilities of the backward-sampled tau (to x) and the
/// proposal tau' (to x').
at::Tensor log_acceptance_ratio(const at::Tensor& log_r_x, const TrajectoryLogProbs& tau,
                                const at::Tensor& log_r_x_new, const TrajectoryLogProbs& tau_new);

}  // namespace gfn::core
