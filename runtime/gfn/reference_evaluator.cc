#include "runtime/gfn/reference_evaluator.h"

namespace gfn::core {

ReferenceEvaluator::ReferenceEvaluator(GFlowNetModel& model, const Preprocessor& preprocessor,
                                       const Environment& env)
    : model_(model), preprocessor_(preprocessor), env_(env) {}

Trajectories ReferenceEvaluator::sample(std::int64_t n, const SamplerOptions& options,
                                        at::Generator& generator) {
  return sample_trajectories(env_, model_policy(model_, preprocessor_, env_), n, options,
                             generator);
}

PolicyFunction ReferenceEvaluator::backward_policy() {
  return model_backward_policy(model_, preprocessor_, env_);
}

PolicyFunction ReferenceEvaluator::forward_policy() {
  return model_policy(model_, preprocessor_, env_);
}

LossValue ReferenceEvaluator::loss(const Loss& loss, const Trajectories& batch,
                                   const at::Tensor& log_z) {
  return loss.evaluate(env_, batch, model_evaluator(model_, preprocessor_, env_), log_z);
}

}  // namespace gfn::core
