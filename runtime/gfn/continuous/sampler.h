#pragma once
// Forward sampling of ContinuousEnvironment trajectories from s0, batched over trajectories
// (torchgfn's Sampler.sample_trajectories with a continuous policy), and the log-densities
// of their transitions for the losses.
//
// The estimators are a ContinuousModel (estimators.h) read by a forward and a backward
// ContinuousPolicy (policy.h); ContinuousGFlowNet holds references to the four parts.
// Sampling runs under at::NoGradGuard; continuous_log_probs recomputes log PF, log PB and
// log F of every row in ONE forward pass with autograd, as the discrete reference path does
// (losses.h transition_log_probs): exact for on-policy samples and for off-policy ones (a
// temperature != 1 while sampling). Randomness comes only from the given generator: same
// seed, same trajectories. Not thread-safe (the model; the generator).

#include <ATen/core/Generator.h>
#include <ATen/core/Tensor.h>

#include <cstdint>

#include "runtime/gfn/continuous/trajectories.h"
#include "runtime/gfn/losses.h"

namespace gfn::core {

class ContinuousEnvironment;
class ContinuousModel;
class ContinuousPolicy;

/// The parts of a GFlowNet on a continuous environment (references, not owned).
struct ContinuousGFlowNet {
  const ContinuousEnvironment& env;
  ContinuousModel& model;
  const ContinuousPolicy& pf;
  const ContinuousPolicy& pb;
};

struct ContinuousSamplerOptions {
  double temperature = 1.0;        ///< > 0, passed to the forward policy
  std::int64_t max_length = 4096;  ///< actions per trajectory beyond which sampling fails
  /// DiffusionSampling with its own forward policy (runtime/gfn/env/diffusion.h): every
  /// trajectory moves T times, then exits, so the rows of step t are rows [t B, (t + 1) B),
  /// written in place, without the per-step bookkeeping of which rows still run; the exit step
  /// draws its (discarded) Normal from zero outputs instead of a network pass. The same
  /// trajectories as the general loop for the same generator state, and the generator ends in
  /// the same state (tested, tests/runtime/gfn/env/diffusion_test.cc). false: the general loop.
  bool fused_diffusion = true;
  /// With fused_diffusion and a PISGradNet PF without the Langevin input: keep the network's
  /// activations of every move step (ContinuousTrajectories::pf_activations; about
  /// 2 (joint_layers + 1) float32 [T B, 64] buffers) so that continuous_log_probs reuses them
  /// (engine.reuse_logprobs, the learner's default). The same trajectories either way.
  bool save_pf_activations = false;
};

/// Samples n >= 0 complete trajectories from s0 with the forward policy. Per step, one
/// forward pass of PF on the still-running rows, one pf.sample and one env.step_unchecked
/// (options.fused_diffusion: diffusion's fixed-length path, above).
/// Throws std::invalid_argument for n < 0, temperature <= 0, max_length < 1, or
/// std::runtime_error naming max_length when a trajectory does not exit within it.
ContinuousTrajectories sample_continuous_trajectories(const ContinuousGFlowNet& gfn, std::int64_t n,
                                                      const ContinuousSamplerOptions& options,
                                                      at::Generator& generator);

/// Throws std::invalid_argument naming `who` unless `states` are terminating states of `env`:
/// env.check_states passes (float32 [n, d], finite, in the domain) and no row is s0 or a
/// state that cannot exit (the first such row is named). O(n * d); thread-safe.
void check_terminating_states(const ContinuousEnvironment& env, const at::Tensor& states,
                              const char* who);

/// Complete trajectories that end in the given terminating states float32 [n, d], sampled
/// BACKWARD with PB from each state until its parent is s0 and returned as forward
/// trajectories (torchgfn's backward Sampler, then reversed; the remote items of a buffer
/// manager, which stores terminating states only): step 0 is s0, the last action exits from
/// the given state, and row B + k's pb_increments is the backward action PB drew. log_rewards
/// = env.log_reward(states). Per backward step one PB forward pass on the rows not yet at s0,
/// one pb.sample (options.temperature) and one env.backward_step_unchecked. Throws
/// std::invalid_argument for states env.check_states refuses or a row that cannot be a
/// terminating state (s0, or !env.can_exit), and std::runtime_error naming max_length when a
/// row does not reach s0 within it.
ContinuousTrajectories sample_backward_continuous_trajectories(
    const ContinuousGFlowNet& gfn, const at::Tensor& terminating_states,
    const ContinuousSamplerOptions& options, at::Generator& generator);

/// log PF of every row (of its increment, or of exit on exit rows), log PB of every row
/// B + k (of pb_increments[k], back to its parent) and, with a log F network, log F of every
/// row, with autograd, from one forward pass of the model; log_pf_exit stays undefined.
/// `temperature` is passed to both policies (1: the policies themselves).
/// trusted_path (the default) and trajs.trusted (the batch is this process's own forward
/// samples, trajectories.h): the states are not re-checked (env.check_states), and for
/// diffusion's fixed-length batches with its own policies and a PISGradNet PF without the
/// Langevin input the log-densities come from DiffusionForwardPolicy::move_log_prob on the
/// network's step-major pass over the T B move rows (PisNetwork::step_major_forward; the exit
/// rows' log PF is the forced 0) and DiffusionBackwardPolicy::step_major_log_prob, without
/// the per-row validity masks. The same values and gradients as the plain path to float32
/// rounding (tested, tests/runtime/gfn/env/diffusion_test.cc); trusted_path false: the plain
/// path for every batch (all checks, the model's forward on every row). Throws
/// std::invalid_argument for trajectories without rows or with inconsistent shapes, and on the
/// plain path for states env.check_states refuses.
TransitionLogProbs continuous_log_probs(const ContinuousGFlowNet& gfn,
                                        const ContinuousTrajectories& trajs,
                                        double temperature = 1.0, bool trusted_path = true);

}  // namespace gfn::core
