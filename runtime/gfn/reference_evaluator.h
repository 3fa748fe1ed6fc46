#pragma once
// The reference implementation of the Evaluator seam (evaluator.h): fresh trajectories
// from sample_trajectories with the model's policy (no autograd, sampler.h), remote states
// sampled backward with the model's PB, and the loss from a recomputation of the outputs
// on the batch (model_evaluator, losses.h), as torchgfn does with
// recalculate_all_logprobs. The fast paths (runtime/gfn/fast/) are checked against it.
//
// Keeps references to the model, preprocessor and environment. Not thread-safe.

#include "runtime/gfn/evaluator.h"

namespace gfn::core {

class GFlowNetModel;
class Environment;
class Preprocessor;

class ReferenceEvaluator final : public Evaluator {
 public:
  ReferenceEvaluator(GFlowNetModel& model, const Preprocessor& preprocessor,
                     const Environment& env);
  EvaluatorKind kind() const override { return EvaluatorKind::kReference; }
  Trajectories sample(std::int64_t n, const SamplerOptions& options,
                      at::Generator& generator) override;
  PolicyFunction backward_policy() override;
  PolicyFunction forward_policy() override;
  LossValue loss(const Loss& loss, const Trajectories& batch, const at::Tensor& log_z) override;

 private:
  GFlowNetModel& model_;
  const Preprocessor& preprocessor_;
  const Environment& env_;
};

}  // namespace gfn::core
