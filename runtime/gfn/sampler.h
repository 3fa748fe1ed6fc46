#pragma once
// Forward sampling of Environment trajectories from s0, batched over trajectories,
// following torchgfn's Sampler.sample_trajectories (gfn/samplers.py) and the
// epsilon / temperature handling of DiscretePolicyEstimator.to_probability_distribution:
//   p = (1 - epsilon) * softmax(masked_logits / temperature) + epsilon * uniform(allowed),
// i.e. with probability epsilon the action is drawn uniformly among allowed actions.
//
// sample_trajectories runs under at::NoGradGuard: the loss recomputes log PF / log PB in
// one batched pass (losses.h), as off-policy (epsilon > 0, temperature != 1) and replayed
// samples need. The on-policy variant that keeps the sampling forward for the loss
// (torchgfn's save_logprobs) is a fast path: runtime/gfn/fast/saving_sampler.h.
// Randomness comes only from the given generator: same seed, same trajectories.
// Not thread-safe with respect to the generator.

#include <ATen/core/Generator.h>
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "runtime/buffer/packed_trajectories.h"
#include "runtime/gfn/trajectories.h"

namespace gfn::core {

class GFlowNetModel;
class Environment;
class Preprocessor;

/// Unmasked PF logits of a batch of states: int64 [n, state_dim] -> float32 [n, n_actions].
using PolicyFunction = std::function<at::Tensor(const at::Tensor& states)>;

struct SamplerOptions {
  double epsilon = 0.0;      ///< in [0, 1]
  double temperature = 1.0;  ///< > 0; logits are divided by it
  /// false: only terminating_states, lengths and log_rewards are filled (validation).
  bool record_transitions = true;
};

/// Throws std::invalid_argument ("sample_trajectories: ...") for epsilon outside [0, 1] or a
/// temperature <= 0.
void check_sampler_options(const SamplerOptions& options);

/// The policy of a model: PF logits of model(preprocessor(states)), evaluated once per
/// distinct state of the batch (Environment::unique). Keeps references to its arguments.
PolicyFunction model_policy(GFlowNetModel& model, const Preprocessor& preprocessor,
                            const Environment& env);

/// Samples n >= 0 complete trajectories. Throws std::invalid_argument for n < 0,
/// epsilon outside [0, 1], temperature <= 0, or a policy returning the wrong shape.
/// Per step, one batched call each of policy, env.forward_masks and env.step_unchecked.
Trajectories sample_trajectories(const Environment& env, const PolicyFunction& policy,
                                 std::int64_t n, const SamplerOptions& options,
                                 at::Generator& generator);

/// The backward policy of a model: PB logits of model(preprocessor(states)), once per
/// distinct state: int64 [n, state_dim] -> float32 [n, n_actions - 1] (zeros for a
/// uniform PB). Keeps references to its arguments.
PolicyFunction model_backward_policy(GFlowNetModel& model, const Preprocessor& preprocessor,
                                     const Environment& env);

/// Backward sampling (torchgfn Sampler.sample_trajectories with a PB estimator from given
/// states, as in train_hypergrid_backward_sampling.py): from each terminating state x of
/// int64 [n, state_dim], draws backward actions from PB (no epsilon, temperature 1) until
/// s0, in batch (one call of pb_policy, env.backward_masks and env.backward_step_unchecked
/// per step for the still-running rows). Returns the FORWARD action sequence of each
/// trajectory s0 -> ... -> x -> exit (the backward actions reversed, then exit), packed
/// (runtime/buffer/packed_trajectories.h), ready for trajectories_from_actions
/// (trajectory_ops.h). Runs under at::NoGradGuard. Throws
/// std::invalid_argument if states are not valid terminating states
/// (env.check_states, can_terminate), pb_policy returns the wrong shape, or a non-initial
/// state has no allowed backward action.
buffer::PackedTrajectories sample_backward_actions(const Environment& env,
                                                   const PolicyFunction& pb_policy,
                                                   const at::Tensor& states,
                                                   at::Generator& generator);

/// Forward completion (the re-completion of Local Search GFlowNets, local_search.h): from
/// each state of int64 [n, state_dim] (any valid states, s0 included), draws forward actions
/// with `pf_policy` and the epsilon / temperature rule of `options` until exit, in batch
/// (one call of pf_policy, env.forward_masks and env.step_unchecked per step for the
/// still-running rows, as sample_trajectories). Returns the actions taken from each start
/// state, exit last, packed. From s0 it draws exactly what sample_trajectories draws with the
/// same generator state. Runs under at::NoGradGuard. Throws std::invalid_argument for invalid
/// states, options, or a pf_policy returning the wrong shape.
buffer::PackedTrajectories sample_forward_actions(const Environment& env,
                                                  const PolicyFunction& pf_policy,
                                                  const at::Tensor& states,
                                                  const SamplerOptions& options,
                                                  at::Generator& generator);

/// The sampling distribution of sample_actions: float32 [n, A] probabilities (0 on
/// masked actions) from unmasked logits float32 [n, A] and masks bool [n, A], with the
/// epsilon/temperature rule above. Row-wise, so a table of all states gives the same
/// rows as a batch of some of them (used by the state-table sampler, state_table.h).
at::Tensor action_probabilities(const at::Tensor& logits, const at::Tensor& masks,
                                const SamplerOptions& options);

/// One action per row from unmasked logits float32 [n, A] and masks bool [n, A]
/// (each row needs an allowed action), with the epsilon/temperature rule above.
/// Returns int64 [n]: at::multinomial(action_probabilities(...), 1)'s draws with `generator`
/// (sample_categorical, categorical.h: the same draws without multinomial's ATen calls).
at::Tensor sample_actions(const at::Tensor& logits, const at::Tensor& masks,
                          const SamplerOptions& options, at::Generator& generator);

}  // namespace gfn::core
