#include "runtime/gfn/engine_options.h"

#include "runtime/config/fields.h"

namespace gfn::core {

const config::Fields<EngineOptions>& engine_fields() {
  using E = EngineOptions;
  static const auto fields =
      config::Fields<E>()
          .add("state_table", &E::state_table,
               "auto: environments with <= 512 enumerable states evaluate PF / PB / logF once "
               "per iteration on all states (runtime/gfn/fast/state_table.h); off: the generic "
               "path.")
          .add("table_backward", &E::table_backward,
               "State table: the hand-written MLP backward writing into the gradients (manual) "
               "or autograd.")
          .add("fused_tb", &E::fused_tb,
               "State table, manual backward, loss tb: one fused autograd node for the "
               "trajectory balance loss.")
          .add("optimizer", &E::optimizer,
               "AdamW as FlatAdamW (flat, runtime/gfn/fast/flat_adam.h) or "
               "torch::optim::AdamW (torch); the same update.")
          .add("fused_adam", &E::fused_adam,
               "FlatAdamW: a fused loop when it rounds like ATen's kernels on this CPU, else "
               "ATen's ops.")
          .add("plain_loops", &E::plain_loops,
               "Dispatch-free loops for the small ops of the state table's iteration "
               "(runtime/gfn/fast/plain_loops.h), or the ATen ops.")
          .add("reuse_logprobs", &E::reuse_logprobs,
               "Iterations of the generic path (exploring ones too) reuse the sampling forward in "
               "the loss (runtime/gfn/fast/saved_outputs_evaluator.h), or recompute it; on "
               "env.name diffusion (PISGradNet without env.langevin) batches of fresh "
               "trajectories keep the sampling steps' activations for the loss "
               "(runtime/gfn/continuous/learner.h).")
          .add("fused_sampler", &E::fused_sampler,
               "The sampler of the iterations that reuse the sampling forward runs each step's "
               "bookkeeping as loops over the running rows (runtime/gfn/fast/fused_sampler.h; "
               "environments with row dynamics, e.g. hypergrid): the same trajectories, fewer "
               "ATen calls per step; or the reference sampler's batched calls.")
          .add("precision", &E::precision,
               "fp32, or bf16: the fast path's MLP GEMMs (sampling forward reused by the loss, "
               "state table) with bfloat16 operands and float32 accumulation "
               "(runtime/gfn/fast/bf16_gemm.h); parameters, gradients and the optimizer stay "
               "float32. Needs a CPU with AVX512_BF16.")
          .add("split_batch", &E::split_batch,
               "With train.num_threads T > 1: split each on-policy batch into T parts, sampled "
               "and differentiated by T copies of the model on T threads, gradients summed "
               "(runtime/gfn/fast/batch_split.h; loss tb, no noisy layers, local search or "
               "replay.kind); false: T intra-op threads per op.")
          .add("split_rows", &E::split_rows,
               "With train.num_threads T > 1 and split_batch false: split the rows of the "
               "hand-written MLP forward and backward into T ranges on T threads, parameter "
               "gradients summed (runtime/gfn/fast/row_split.h); false: T intra-op and T "
               "BLAS threads per op.")
          .add("blas_kernels", &E::blas_kernels,
               "At start-up, choose OpenBLAS's kernels from the CPU flags (OPENBLAS_CORETYPE, "
               "then a re-exec; a user-set value wins), or let OpenBLAS guess (off).")
          .add("malloc_tune", &E::malloc_tune,
               "At start-up, raise glibc's mmap / trim thresholds "
               "(runtime/process/malloc_tuning.h; skipped when GLIBC_TUNABLES is set).");
  return fields;
}

bool splits_rows(const EngineOptions& engine, int num_threads) {
  return engine.split_rows && !engine.split_batch && num_threads > 1;
}

bool gemms_on_openmp_threads(const EngineOptions& engine, int num_threads) {
  return engine.precision == Precision::kBf16 || splits_rows(engine, num_threads);
}

}  // namespace gfn::core
