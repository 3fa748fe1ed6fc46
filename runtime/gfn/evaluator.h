#pragma once
// The one seam between the Learner (learner.h) and the numerical paths of an iteration:
// how fresh trajectories are sampled, how the parts of a batch that were not sampled
// fresh (replayed, remote) are prepared, which backward policy samples remote states, and
// how the loss gets log PF / log PB / log F. Three implementations, one chosen once per
// Learner by the engine plan (engine_plan.h; make_evaluator, fast/make_evaluator.h):
//   reference      reference_evaluator.h: sample without autograd (sampler.h), recompute
//                  the outputs for the loss (model_evaluator, losses.h);
//   saved_outputs  runtime/gfn/fast/saved_outputs_evaluator.h: on-policy sampling keeps
//                  its forward and the loss differentiates it (torchgfn's save_logprobs);
//   state_table    runtime/gfn/fast/state_table_evaluator.h: the network runs once per
//                  iteration on every state of a small enumerable environment.
// All three give the same trajectories and the same loss and gradients up to float
// rounding (tests/runtime/gfn/fast/evaluator_equivalence_test.cc).
//
// Not thread-safe: one thread owns an evaluator (and the model it reads).

#include <ATen/core/Generator.h>
#include <ATen/core/Tensor.h>

#include <cstdint>

#include "runtime/gfn/engine_plan.h"  // EvaluatorKind
#include "runtime/gfn/losses.h"
#include "runtime/gfn/sampler.h"
#include "runtime/gfn/trajectories.h"

namespace gfn::core {

class Evaluator {
 public:
  virtual ~Evaluator() = default;
  virtual EvaluatorKind kind() const = 0;
  /// Once per iteration, after the NoisyNet noise draw and before sampling, with the
  /// iteration's sampling options. The state table runs its forward here (the loss' forward
  /// pass); the others do nothing.
  virtual void begin_iteration(const SamplerOptions& options) { (void)options; }
  /// n >= 0 fresh trajectories from PF with `options` (sample_trajectories' contract and
  /// draws from `generator`). The saved-outputs evaluator keeps the sampling forward in the
  /// result's saved_* fields (n > 0).
  virtual Trajectories sample(std::int64_t n, const SamplerOptions& options,
                              at::Generator& generator) = 0;
  /// For a part of the batch (replayed or remote trajectories) that joins fresh trajectories
  /// with saved outputs: gives it its saved outputs too (one model pass). Called only in that
  /// case, so a no-op for the evaluators that never save.
  virtual void attach_outputs(Trajectories& part) { (void)part; }
  /// PB as a PolicyFunction (sampler.h) for sample_backward_actions; detached. Valid until
  /// the next begin_iteration.
  virtual PolicyFunction backward_policy() = 0;
  /// PF as a PolicyFunction (sampler.h) for sample_forward_actions (local search's
  /// re-completions, local_search.h); detached. Valid until the next begin_iteration.
  virtual PolicyFunction forward_policy() = 0;
  /// The loss of `batch` (differentiable w.r.t. the model's parameters); log_z is the learned
  /// logZ parameter (float32 []). Throws what the loss throws.
  virtual LossValue loss(const Loss& loss, const Trajectories& batch, const at::Tensor& log_z) = 0;
};

}  // namespace gfn::core
