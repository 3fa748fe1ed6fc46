#include "runtime/gfn/fast/make_evaluator.h"

#include "runtime/gfn/fast/mlp_kernels.h"
#include "runtime/gfn/fast/saved_outputs_evaluator.h"
#include "runtime/gfn/fast/state_table_evaluator.h"
#include "runtime/gfn/reference_evaluator.h"

namespace gfn::core {

std::unique_ptr<Evaluator> make_evaluator(const EnginePlan& plan, GFlowNetModel& model,
                                          const Preprocessor& preprocessor,
                                          const Environment& env) {
  switch (plan.evaluator) {
    case EvaluatorKind::kStateTable:
      return std::make_unique<StateTableEvaluator>(model, preprocessor, env, plan);
    case EvaluatorKind::kSavedOutputs:
      return std::make_unique<SavedOutputsEvaluator>(model, preprocessor, env, mlp_kernels(plan),
                                                     plan.fused_sampler);
    case EvaluatorKind::kReference:
      break;
  }
  return std::make_unique<ReferenceEvaluator>(model, preprocessor, env);
}

}  // namespace gfn::core
