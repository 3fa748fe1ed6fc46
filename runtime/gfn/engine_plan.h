#pragma once
// The engine plan: what a trainer's engine runs, resolved ONCE from the engine options
// (engine_options.h, YAML `engine:`), the environment, the loss, the model and the batch
// options, before anything is built. The evaluator factory (fast/make_evaluator.h), the
// optimizer factory (fast/make_optimizer.h), the batch split (fast/batch_split.h) and the
// program's thread set-up (runtime/process/threads.h) consume it; report() is summary.json's
// "engine" section. A combination that cannot run is refused here, with the reason.
//
//   evaluator  state_table    engine.state_table auto and the environment enumerable with
//                             <= kStateTableMaxStates states (fast/state_table.h)
//              saved_outputs  else engine.reuse_logprobs, a loss that reads only the sampled
//                             states (all but fm), and not replay.fraction 1 (every fresh
//                             trajectory replaced: saving would be wasted)
//              reference      else
//   fused_tb        state table, manual table backward, engine.fused_tb and loss tb
//   fused_sampler   saved-outputs evaluator, engine.fused_sampler and an environment with
//                   row dynamics (fast/fused_sampler.h)
//   precision       bf16 only when asked for and the evaluator is not the reference one
//                   (the hand-written MLP is the fast paths')
//   split_batch     T parts: engine.split_batch, train.num_threads T > 1, not the state table;
//                   refused unless loss tb, no noisy layers, no local search, no local replay
//   split_rows      T threads: engine.split_rows, not split_batch, T > 1, saved-outputs evaluator
//   threads         runtime/process/threads.h's rule
//
// Header without LibTorch; plan_engine is pure (tests/runtime/gfn/engine_plan_test.cc tests
// it as a table: combination -> plan). engine_facts (engine_plan.cc) reads the environment,
// the loss and the CPU.

#include <map>
#include <string>

#include "runtime/buffer/options.h"
#include "runtime/config/enum_names.h"
#include "runtime/gfn/engine_options.h"
#include "runtime/gfn/local_search_options.h"
#include "runtime/gfn/loss_kind.h"
#include "runtime/gfn/options.h"
#include "runtime/process/threads.h"

namespace gfn::core {

class Environment;
class Loss;

/// The numerical path of an iteration (evaluator.h).
enum class EvaluatorKind { kReference, kSavedOutputs, kStateTable };
inline constexpr config::EnumName<EvaluatorKind> kEvaluatorKindNames[] = {
    {EvaluatorKind::kReference, "reference"},
    {EvaluatorKind::kSavedOutputs, "saved_outputs"},
    {EvaluatorKind::kStateTable, "state_table"}};
inline constexpr const auto& enum_names(EvaluatorKind) { return kEvaluatorKindNames; }

/// What the plan reads besides the engine options: facts of the run's other options, of its
/// environment and loss, and of the CPU. Plain values, so a plan can be tested without them.
struct EngineFacts {
  int num_threads = 1;                    ///< train.num_threads
  LossKind loss = LossKind::kTB;          ///< train.loss
  bool loss_reads_sampled_states = true;  ///< Loss::reuses_sampled_outputs (all but fm)
  bool noisy_layers = false;              ///< model.n_noisy_layers > 0
  buffer::ReplayKind replay = buffer::ReplayKind::kNone;  ///< replay.kind (local replay buffer)
  double replay_fraction = 0.0;                           ///< replay.fraction
  bool local_search = false;                              ///< local_search.loops > 0
  bool state_table_fits = false;               ///< enumerable, <= kStateTableMaxStates states
  bool row_dynamics = false;                   ///< Environment::row_dynamics() != nullptr
  bool bf16_gemms = true;                      ///< the CPU has bf16 instructions (bf16_gemm.h)
  std::string bf16_isa;                        ///< oneDNN's ISA name, for the refusal
  std::string fused_adam_kernel = "aten_ops";  ///< FlatAdamW's detected fused kernel
};

/// The resolved engine. Every field is final: consumers read it and decide nothing.
struct EnginePlan {
  EvaluatorKind evaluator = EvaluatorKind::kReference;
  bool manual_table_backward = false;      ///< state table: the hand-written backward
  bool fused_tb = false;                   ///< state table: TB as one autograd node
  bool plain_loops = true;                 ///< engine.plain_loops
  bool fused_sampler = false;              ///< saved outputs: the row-dynamics sampler
  Precision precision = Precision::kFp32;  ///< of the hand-written MLP's GEMMs
  OptimizerKind optimizer = OptimizerKind::kFlat;
  bool fused_adam = true;         ///< FlatAdamW may use its fused loop
  std::string adam_kernel;        ///< FlatAdamW::kernel_name of its kernel, or "torch"
  int split_batch_parts = 0;      ///< >= 2: on-policy batches split into parts; 0: not
  int row_split_threads = 1;      ///< > 1: the MLP's rows split over threads
  runtime::ThreadCounts threads;  ///< for runtime::set_thread_counts
  /// summary.json "engine": state_table on | off; table_backward manual | autograd | unused;
  /// fused_tb on | off | unused; optimizer flat | torch; adam_kernel; plain_loops on | off;
  /// reuse_logprobs on | off | "off (replay.fraction 1)" | unused (state table);
  /// fused_sampler on | off | unused | "unused (no row dynamics)"; precision fp32 | bf16 |
  /// "bf16 unused (reference evaluator)"; split_batch "T parts" | off | "unused (state
  /// table)"; split_rows "T threads" | off | "unused (<kind> evaluator)"; evaluator.
  std::map<std::string, std::string> report;
};

/// Resolves the plan (see the top of this file). Throws std::invalid_argument naming the
/// options and the reason for a combination that cannot run: engine.precision bf16 without
/// bf16 instructions; engine.split_batch with train.num_threads > 1 and a loss other than tb,
/// noisy layers, local search or a local replay buffer. Pure, thread-safe.
EnginePlan plan_engine(const EngineOptions& engine, const EngineFacts& facts);

/// The facts of a run: its options, its environment and loss, this CPU (bf16 instructions,
/// FlatAdamW's rounding detection). Cost: FlatAdamW's detection (microseconds).
EngineFacts engine_facts(const EngineOptions& engine, const Environment& env, const Loss& loss,
                         const ModelOptions& model, const TrainOptions& train,
                         const buffer::ReplayOptions& replay,
                         const LocalSearchOptions& local_search);

}  // namespace gfn::core
