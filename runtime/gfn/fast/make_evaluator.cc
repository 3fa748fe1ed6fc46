#include "runtime/gfn/fast/make_evaluator.h"

#include "runtime/gfn/fast/mlp_kernels.h"
#include "runtime/gfn/fast/saved_outputs_evaluator.h"
#include "runtime/gfn/fast/state_table_evaluator.h"
#include "runtime/gfn/reference_evaluator.h"

namespace gfn::core {

std::unique_ptr<Evaluator> make_evaluator(GFlowNetModel& model, const Preprocessor& preprocessor,
                                          const Environment& env, const EngineOptions& engine,
                                          bool reusable, int num_threads) {
  if (state_table_enabled(env, engine.state_table)) {
    return std::make_unique<StateTableEvaluator>(model, preprocessor, env, engine);
  }
  if (engine.reuse_logprobs && reusable) {
    return std::make_unique<SavedOutputsEvaluator>(
        model, preprocessor, env, mlp_kernels(engine, num_threads), engine.fused_sampler);
  }
  return std::make_unique<ReferenceEvaluator>(model, preprocessor, env);
}

const char* evaluator_name(EvaluatorKind kind) {
  switch (kind) {
    case EvaluatorKind::kStateTable:
      return "state_table";
    case EvaluatorKind::kSavedOutputs:
      return "saved_outputs";
    case EvaluatorKind::kReference:
      break;
  }
  return "reference";
}

}  // namespace gfn::core
