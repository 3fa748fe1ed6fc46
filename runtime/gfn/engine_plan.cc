#include "runtime/gfn/engine_plan.h"

#include <stdexcept>
#include <string>

#include "runtime/gfn/env/environment.h"
#include "runtime/gfn/fast/bf16_gemm.h"
#include "runtime/gfn/fast/flat_adam.h"
#include "runtime/gfn/fast/state_table.h"
#include "runtime/gfn/losses.h"

namespace gfn::core {
namespace {

const char* on_off(bool on) { return on ? "on" : "off"; }

void refuse_impossible(const EngineOptions& engine, const EngineFacts& f) {
  if (engine.precision == Precision::kBf16 && !f.bf16_gemms) {
    throw std::invalid_argument(
        "engine.precision: bf16 needs a CPU with bfloat16 instructions (AVX512_BF16 or AMX); "
        "oneDNN finds " +
        f.bf16_isa + " on this one. Use engine.precision: fp32");
  }
  if (!(engine.split_batch && f.num_threads > 1)) return;
  // engine.split_batch splits iterations whose loss is a mean over trajectories and whose
  // batch is fresh trajectories from one sampling pass (fast/batch_split.h).
  const auto refuse = [](const std::string& why) {
    throw std::invalid_argument("engine.split_batch with train.num_threads > 1: " + why +
                                "; use engine.split_batch: false (intra-op threads)");
  };
  if (f.loss != LossKind::kTB) refuse("needs train.loss tb (a mean over trajectories)");
  if (f.noisy_layers) refuse("not with noisy layers (model.n_noisy_layers)");
  if (f.local_search) refuse("not with local search (local_search.loops)");
  if (f.replay != buffer::ReplayKind::kNone) {
    refuse(std::string("not with replay.kind ") + config::enum_name(f.replay));
  }
}

EvaluatorKind choose_evaluator(const EngineOptions& engine, const EngineFacts& f) {
  if (engine.state_table == StateTableMode::kAuto && f.state_table_fits) {
    return EvaluatorKind::kStateTable;
  }
  // The saved outputs are the model's own (PF logits before epsilon or temperature touch
  // them), so exploring iterations reuse them too, and NoisyNet layers do not prevent it
  // (one noise draw per iteration, before sampling, used by the loss as well). With
  // replay.fraction 1 every fresh trajectory is replaced once the buffer is warm.
  const bool replaced = f.replay != buffer::ReplayKind::kNone && f.replay_fraction >= 1.0;
  if (engine.reuse_logprobs && f.loss_reads_sampled_states && !replaced) {
    return EvaluatorKind::kSavedOutputs;
  }
  return EvaluatorKind::kReference;
}

// The thread counts (runtime/process/threads.h): split rows run their GEMMs on the OpenMP
// threads with a one-thread BLAS; split rows asked for with another evaluator give the
// threads to OpenBLAS and one to ATen, since the start-up chose libgomp's spin count for
// split rows and spinning OpenMP threads would take the cores OpenBLAS's threads need
// (reference evaluator, 8-D batch 1024: 44-46 ms per iteration with both at T, 31-33 with
// split_rows false); batch parts take one thread each.
runtime::ThreadCounts thread_counts(const EngineOptions& engine, const EnginePlan& p, int t) {
  if (p.split_batch_parts > 0) return {1, 1};
  if (splits_rows(engine, t)) {
    return p.evaluator == EvaluatorKind::kSavedOutputs ? runtime::ThreadCounts{t, 1}
                                                       : runtime::ThreadCounts{1, t};
  }
  return {t, t};
}

std::string reuse_report(const EngineOptions& engine, const EngineFacts& f,
                         EvaluatorKind evaluator) {
  if (evaluator == EvaluatorKind::kStateTable) return "unused";
  if (evaluator == EvaluatorKind::kSavedOutputs) return "on";
  if (engine.reuse_logprobs && f.loss_reads_sampled_states) return "off (replay.fraction 1)";
  return "off";
}

std::map<std::string, std::string> make_report(const EngineOptions& engine, const EngineFacts& f,
                                               const EnginePlan& p) {
  const bool table = p.evaluator == EvaluatorKind::kStateTable;
  const bool saved = p.evaluator == EvaluatorKind::kSavedOutputs;
  const std::string evaluator = config::enum_name(p.evaluator);
  std::map<std::string, std::string> r;
  r["evaluator"] = evaluator;
  r["state_table"] = on_off(table);
  r["table_backward"] = !table ? "unused" : p.manual_table_backward ? "manual" : "autograd";
  r["fused_tb"] = table ? on_off(p.fused_tb) : "unused";
  r["optimizer"] = config::enum_name(p.optimizer);
  r["adam_kernel"] = p.adam_kernel;
  r["plain_loops"] = on_off(p.plain_loops);
  r["reuse_logprobs"] = reuse_report(engine, f, p.evaluator);
  r["fused_sampler"] = !saved            ? "unused"
                       : !f.row_dynamics ? "unused (no row dynamics)"
                                         : on_off(p.fused_sampler);
  r["precision"] = engine.precision == Precision::kBf16 && p.precision != Precision::kBf16
                       ? "bf16 unused (reference evaluator)"
                       : config::enum_name(p.precision);
  r["split_batch"] = p.split_batch_parts > 0 ? std::to_string(p.split_batch_parts) + " parts"
                     : engine.split_batch && f.num_threads > 1 ? "unused (state table)"
                                                               : "off";
  r["split_rows"] = !splits_rows(engine, f.num_threads) ? "off"
                    : p.row_split_threads > 1 ? std::to_string(p.row_split_threads) + " threads"
                                              : "unused (" + evaluator + " evaluator)";
  return r;
}

}  // namespace

EnginePlan plan_engine(const EngineOptions& engine, const EngineFacts& f) {
  refuse_impossible(engine, f);
  EnginePlan p;
  p.evaluator = choose_evaluator(engine, f);
  const bool table = p.evaluator == EvaluatorKind::kStateTable;
  const bool saved = p.evaluator == EvaluatorKind::kSavedOutputs;
  p.manual_table_backward = table && engine.table_backward == TableBackward::kManual;
  p.fused_tb = p.manual_table_backward && engine.fused_tb && f.loss == LossKind::kTB;
  p.plain_loops = engine.plain_loops;
  p.fused_sampler = saved && f.row_dynamics && engine.fused_sampler;
  p.precision = p.evaluator == EvaluatorKind::kReference ? Precision::kFp32 : engine.precision;
  p.optimizer = engine.optimizer;
  p.fused_adam = engine.fused_adam;
  p.adam_kernel = engine.optimizer == OptimizerKind::kTorch ? "torch"
                  : engine.fused_adam                       ? f.fused_adam_kernel
                                      : FlatAdamW::kernel_name(FlatAdamW::Kernel::kAtenOps);
  if (engine.split_batch && f.num_threads > 1 && !table) p.split_batch_parts = f.num_threads;
  if (splits_rows(engine, f.num_threads) && saved) p.row_split_threads = f.num_threads;
  p.threads = thread_counts(engine, p, f.num_threads);
  p.report = make_report(engine, f, p);
  return p;
}

EngineFacts engine_facts(const EngineOptions& engine, const Environment& env, const Loss& loss,
                         const ModelOptions& model, const TrainOptions& train,
                         const buffer::ReplayOptions& replay,
                         const LocalSearchOptions& local_search) {
  EngineFacts f;
  f.num_threads = train.num_threads;
  f.loss = loss.kind();
  f.loss_reads_sampled_states = loss.reuses_sampled_outputs();
  f.noisy_layers = model.n_noisy_layers > 0;
  f.replay = replay.kind;
  f.replay_fraction = replay.fraction;
  f.local_search = local_search.loops > 0;
  f.state_table_fits = state_table_enabled(env, StateTableMode::kAuto);
  f.row_dynamics = env.row_dynamics() != nullptr;
  if (engine.precision == Precision::kBf16) {  // oneDNN's CPU query only when asked
    f.bf16_gemms = bf16_gemm_supported();
    f.bf16_isa = bf16_gemm_isa();
  }
  if (engine.optimizer == OptimizerKind::kFlat && engine.fused_adam) {
    f.fused_adam_kernel = FlatAdamW::kernel_name(FlatAdamW::detect_kernel({true, true}));
  }
  return f;
}

}  // namespace gfn::core
