#pragma once
// The Evaluator (runtime/gfn/evaluator.h) the engine plan chose (runtime/gfn/engine_plan.h
// plan.evaluator), built with the plan's switches:
//   state_table    StateTableEvaluator (state_table_evaluator.h): plan.manual_table_backward,
//                  plan.fused_tb, plan.plain_loops, plan.precision;
//   saved_outputs  SavedOutputsEvaluator (saved_outputs_evaluator.h): the hand-written MLP's
//                  kernels (mlp_kernels.h: plan.plain_loops, plan.precision,
//                  plan.row_split_threads) and plan.fused_sampler;
//   reference      ReferenceEvaluator (runtime/gfn/reference_evaluator.h).
// Throws what the evaluators' constructors throw. Keeps references to its arguments.

#include <memory>

#include "runtime/gfn/engine_plan.h"
#include "runtime/gfn/evaluator.h"

namespace gfn::core {

class GFlowNetModel;
class Environment;
class Preprocessor;

std::unique_ptr<Evaluator> make_evaluator(const EnginePlan& plan, GFlowNetModel& model,
                                          const Preprocessor& preprocessor, const Environment& env);

}  // namespace gfn::core
