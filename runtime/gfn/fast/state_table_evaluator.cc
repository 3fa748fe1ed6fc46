#include "runtime/gfn/fast/state_table_evaluator.h"

namespace gfn::core {

StateTableEvaluator::StateTableEvaluator(GFlowNetModel& model, const Preprocessor& preprocessor,
                                         const Environment& env, const EnginePlan& plan)
    : model_(model),
      env_(env),
      space_(env, preprocessor, plan.plain_loops),
      manual_backward_(plan.manual_table_backward),
      fused_tb_(plan.fused_tb) {
  space_.bf16_gemms = plan.precision == Precision::kBf16;
}

void StateTableEvaluator::begin_iteration(const SamplerOptions& options) {
  table_ = evaluate_state_table(model_, space_, options, manual_backward_);
}

Trajectories StateTableEvaluator::sample(std::int64_t n, const SamplerOptions& options,
                                         at::Generator& generator) {
  return sample_trajectories_from_table(space_, table_.probs, n, options, generator);
}

PolicyFunction StateTableEvaluator::backward_policy() {
  return table_backward_policy(table_, space_);
}

PolicyFunction StateTableEvaluator::forward_policy() {
  return table_forward_policy(table_, space_);
}

LossValue StateTableEvaluator::loss(const Loss& loss, const Trajectories& batch,
                                    const at::Tensor& log_z) {
  // TB reads the table through its own kernel (log-softmax on the S table rows instead of
  // the N transition rows, one autograd node when fused); the others go through their own
  // evaluate() with the table as evaluator.
  if (loss.kind() == LossKind::kTB) {
    return {table_trajectory_balance(table_, space_, batch, log_z, fused_tb_), {}};
  }
  return loss.evaluate(env_, batch, table_evaluator(table_, space_), log_z);
}

}  // namespace gfn::core
