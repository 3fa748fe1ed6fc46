#pragma once
// Fast path (runtime/gfn/fast/): the loss of a batch (on-policy or exploring) from the outputs its
// sampling kept (saving_sampler.h) instead of a second forward (model_evaluator,
// losses.h). tests/runtime/gfn/fast/reuse_logprobs_test.cc compares the two.
// Not thread-safe: one thread owns the model.

#include "runtime/gfn/evaluator.h"
#include "runtime/gfn/fast/mlp_kernels.h"
#include "runtime/gfn/losses.h"
#include "runtime/gfn/reference_evaluator.h"
#include "runtime/gfn/trajectories.h"

namespace gfn::core {

class GFlowNetModel;
class Environment;
class Preprocessor;

/// The evaluator of a batch whose PF logits were kept while sampling (trajs.saved_*,
/// sample_trajectories_saving_outputs in saving_sampler.h; torchgfn's loss with
/// recalculate_all_logprobs = False): a call on trajs.states itself (same N rows) returns
/// the saved PF logits, and the saved PB logits / log F when present; what was not saved
/// (PB, and log F if the model has a logF head, of an untied model) is computed by ONE
/// model pass on the distinct states of the batch. Values and gradients equal those of
/// model_evaluator on the same parameters and NoisyNet noise (up to float rounding of
/// GEMMs over a different number of rows). Keeps references to its arguments; throws
/// std::invalid_argument if trajs has no saved outputs, and std::logic_error when called
/// on other states than trajs.states (the losses that reuse only do that:
/// Loss::reuses_sampled_outputs). kernels.bf16: that pass runs the hand-written forward
/// and backward with bf16 GEMMs (pb_and_flow_manual_backward, manual_backward.h); otherwise
/// model.pb_logits / model.log_flow under autograd.
StateEvaluator saved_outputs_evaluator(const Trajectories& trajs, GFlowNetModel& model,
                                       const Preprocessor& preprocessor, const Environment& env,
                                       MlpKernels kernels = MlpKernels{});

/// The Evaluator (evaluator.h) of iterations that reuse the sampling forward:
/// fresh trajectories from sample_trajectories_saving_outputs (saving_sampler.h; n = 0:
/// the reference sampler), replayed and remote parts joining them get their outputs from
/// one model pass (save_outputs), and the loss reads the saved outputs
/// (saved_outputs_evaluator) when the batch has them and the loss reuses them
/// (Loss::reuses_sampled_outputs), else recomputes them like the reference. The saved
/// outputs are the model's logits before epsilon or temperature, so exploring iterations
/// reuse them too. Chosen for losses with Loss::reuses_sampled_outputs (make_evaluator,
/// make_evaluator.h). kernels: engine.plain_loops and engine.precision
/// (ForwardRecorder, forward_recorder.h); fused_sampler: engine.fused_sampler (fused_sampler.h,
/// when the environment has row dynamics). Keeps references to its arguments. Not thread-safe.
class SavedOutputsEvaluator final : public Evaluator {
 public:
  SavedOutputsEvaluator(GFlowNetModel& model, const Preprocessor& preprocessor,
                        const Environment& env, MlpKernels kernels, bool fused_sampler = false);
  EvaluatorKind kind() const override { return EvaluatorKind::kSavedOutputs; }
  Trajectories sample(std::int64_t n, const SamplerOptions& options,
                      at::Generator& generator) override;
  void attach_outputs(Trajectories& part) override;
  PolicyFunction backward_policy() override { return reference_.backward_policy(); }
  PolicyFunction forward_policy() override { return reference_.forward_policy(); }
  LossValue loss(const Loss& loss, const Trajectories& batch, const at::Tensor& log_z) override;

 private:
  GFlowNetModel& model_;
  const Preprocessor& preprocessor_;
  const Environment& env_;
  MlpKernels kernels_;
  bool fused_sampler_;
  std::int64_t recorded_rows_ = 0;  ///< the last batch's: the next recorder's capacity hint
  ReferenceEvaluator reference_;    ///< n = 0 and batches without saved outputs
};

}  // namespace gfn::core
