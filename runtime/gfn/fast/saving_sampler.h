#pragma once
// Fast path (runtime/gfn/fast/): on-policy sampling that keeps the network's forward for
// the loss (torchgfn Sampler.sample_trajectories with save_logprobs /
// save_estimator_outputs). The forward of each step is recorded without autograd and its
// outputs are kept in the Trajectories (saved_* fields, trajectories.h) behind ONE
// autograd node for all steps, so the loss differentiates them instead of running PF
// again (saved_outputs_evaluator.h). The reference is sample_trajectories (sampler.h)
// followed by a recomputation; tests/runtime/gfn/fast/reuse_logprobs_test.cc compares them.
// Randomness comes only from the given generator. Not thread-safe.

#include <ATen/core/Generator.h>
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <functional>

#include "runtime/gfn/fast/forward_recorder.h"
#include "runtime/gfn/fast/mlp_kernels.h"
#include "runtime/gfn/sampler.h"
#include "runtime/gfn/trajectories.h"

namespace gfn::core {

class GFlowNetModel;
class Environment;
class Preprocessor;

/// Estimator outputs of a batch of n states, evaluated once per DISTINCT state (M).
struct SavedPolicyStep {
  at::Tensor pf_logits;  ///< float32 [M, n_actions], unmasked
  at::Tensor pb_logits;  ///< float32 [M, n_actions - 1] or undefined (not computed)
  at::Tensor log_flow;   ///< float32 [M] or undefined (not computed)
  at::Tensor inverse;    ///< int64 [n]: row of each input state among the M
};

/// A policy that records its forward passes for the loss (single use, one batch).
struct SavingPolicy {
  /// int64 [n, state_dim] -> detached outputs on the distinct states; records them.
  /// Called once per sampling step, under at::NoGradGuard.
  std::function<SavedPolicyStep(const at::Tensor& states)> step;
  /// Optional: `step` on states that are already distinct, in increasing
  /// RowDynamics::key order (the fused sampler's calls, fused_sampler.h): outputs for every
  /// row, `inverse` undefined. Without it the fused sampler is not used. `computed`, if set, is
  /// told of each row range of the outputs as soon as it is final, on the thread that computed
  /// it (ForwardRecorder::RowsComputed, forward_recorder.h).
  std::function<SavedPolicyStep(const at::Tensor& distinct_states,
                                const ForwardRecorder::RowsComputed& computed)>
      distinct_step;
  /// After the last step: the outputs of ALL recorded distinct rows, concatenated in step
  /// order (sum of M rows; `inverse` unused), differentiable w.r.t. the model's
  /// parameters. Called once.
  std::function<SavedPolicyStep()> finish;
  /// Threads the forward splits its rows over (MlpKernels::row_parts, row_split.h); the fused
  /// sampler splits its running rows over as many, and the gather of the saved outputs its
  /// backward (gather_rows.h).
  int threads = 1;
  /// Rows recorded so far (ForwardRecorder::rows), e.g. the next batch's capacity hint.
  std::function<std::int64_t()> recorded_rows;
};

/// The saving policy of a model on the distinct states (Environment::unique; distinct_step
/// for the fused sampler), over a
/// ForwardRecorder (forward_recorder.h; kernels: engine.plain_loops, engine.precision): each step
/// runs the forward without autograd and keeps the layer activations; finish() gives all recorded
/// rows one autograd node whose backward is ONE batched MLP backward (not one per step). PF only
/// for an untied model (PB and logF have their own trunks, which the loss runs once on the whole
/// batch, as torchgfn's loss computes PB); PF, PB (unless uniform) and logF (if present) from the
/// same trunk pass for a tied model. capacity_hint: the rows the recorder makes room for at once
/// (ForwardRecorder; the previous batch's recorded_rows() spares regrowing its buffers). Keeps
/// references to its arguments; the model's parameters and noise must not change before finish().
SavingPolicy model_saving_policy(GFlowNetModel& model, const Preprocessor& preprocessor,
                                 const Environment& env, MlpKernels kernels,
                                 std::int64_t capacity_hint = 0);

/// sample_trajectories with the policy's forward passes kept (torchgfn save_logprobs):
/// the result's saved_pf_logits [N, n_actions] (and saved_pb_logits / saved_log_flow when
/// the policy returns them) hold, for every transition row, the outputs of the sampling
/// forward, differentiable w.r.t. the model's parameters (policy.finish()). Same draws
/// and trajectories as sample_trajectories with a policy returning the same PF logits.
/// The saved values are the raw logits, independent of epsilon / temperature; which
/// iterations may reuse them is the caller's choice (Learner: all, exploring too). fused
/// (engine.fused_sampler): sample with sample_trajectories_fused (fused_sampler.h) when the
/// environment has row dynamics and the policy a distinct_step: the same trajectories, draws
/// and saved outputs, fewer ATen calls per step. Throws like sample_trajectories,
/// std::invalid_argument if options.record_transitions is false or the policy returns
/// inconsistent shapes.
Trajectories sample_trajectories_saving_outputs(const Environment& env, const SavingPolicy& policy,
                                                std::int64_t n, const SamplerOptions& options,
                                                at::Generator& generator, bool fused = false);

/// Fills trajs.saved_* by one step of a fresh `policy` on all rows of trajs.states,
/// e.g. for replayed trajectories joining a batch whose fresh part kept its outputs
/// (concat_trajectories keeps saved outputs only when both parts have them). Throws
/// std::invalid_argument if trajs has no recorded transitions or shapes are inconsistent.
void save_outputs(const SavingPolicy& policy, Trajectories& trajs);

}  // namespace gfn::core
