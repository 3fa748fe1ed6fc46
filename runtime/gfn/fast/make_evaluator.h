#pragma once
// The choice of the Evaluator (runtime/gfn/evaluator.h), made once per Learner from the
// engine options (runtime/gfn/engine_options.h):
//   state_table_enabled(env, engine.state_table)   -> StateTableEvaluator
//   else engine.reuse_logprobs and `reusable`      -> SavedOutputsEvaluator
//   else                                           -> ReferenceEvaluator
// reusable: the Learner's iterations can reuse the sampling forward (a loss with
// Loss::reuses_sampled_outputs; not replay.fraction 1, where every fresh trajectory is
// replaced and saving would be wasted). The saved outputs are the model's logits, before
// the sampler's epsilon or temperature, so exploring iterations reuse them too.
// num_threads: train.num_threads (the rows of the saved-outputs evaluator's MLP split over
// that many threads with engine.split_rows: mlp_kernels, mlp_kernels.h).
// Throws what the evaluators' constructors throw. Keeps references to its arguments.

#include <memory>

#include "runtime/gfn/engine_options.h"
#include "runtime/gfn/evaluator.h"

namespace gfn::core {

class GFlowNetModel;
class Environment;
class Preprocessor;

std::unique_ptr<Evaluator> make_evaluator(GFlowNetModel& model, const Preprocessor& preprocessor,
                                          const Environment& env, const EngineOptions& engine,
                                          bool reusable, int num_threads = 1);

/// The YAML-style name of a kind: "reference" | "saved_outputs" | "state_table".
const char* evaluator_name(EvaluatorKind kind);

}  // namespace gfn::core
