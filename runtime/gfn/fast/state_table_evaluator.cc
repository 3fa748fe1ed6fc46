#include "runtime/gfn/fast/state_table_evaluator.h"

#include <optional>

namespace gfn::core {

StateTableEvaluator::StateTableEvaluator(GFlowNetModel& model, const Preprocessor& preprocessor,
                                         const Environment& env, const EngineOptions& engine)
    : model_(model),
      env_(env),
      space_(env, preprocessor, engine.plain_loops),
      manual_backward_(engine.table_backward == TableBackward::kManual),
      fused_tb_(engine.fused_tb) {
  space_.bf16_gemms = engine.precision == Precision::kBf16;
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
  // A loss with a fused kernel reads the table through it (TB: log-softmax on the S table
  // rows instead of the N transition rows, one autograd node by default); the others go
  // through their own evaluate() with the table as evaluator.
  if (std::optional<LossValue> fused = loss.fused_evaluate(*this, batch, log_z)) return *fused;
  return loss.evaluate(env_, batch, table_evaluator(table_, space_), log_z);
}

std::optional<at::Tensor> StateTableEvaluator::trajectory_balance(const Trajectories& trajs,
                                                                  const at::Tensor& log_z) const {
  return table_trajectory_balance(table_, space_, trajs, log_z, fused_tb_);
}

}  // namespace gfn::core
