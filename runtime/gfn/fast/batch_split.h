#pragma once
// Data parallelism inside one trainer process (engine.split_batch with train.num_threads
// T > 1; docs/performance.md "Two threads"): an on-policy iteration's batch of B trajectories
// is split into T parts of B / T (the first B mod T parts one more), and each part is
// sampled, evaluated and differentiated by its own copy of the model on its own thread, with
// one intra-op thread each; the parts' gradients are summed into the Learner's model before
// its one optimizer step, as DDP does across ranks (torch.nn.parallel.DistributedDataParallel)
// and as the trainer role's train.average gradients does across agents.
//
// Why: the sampler runs ~40 steps of ~20 small ATen ops and one GEMM of a few hundred rows
// each, which intra-op threads do not split well (1.2x on two threads), while two
// independent halves of the work scale like two processes (~1.9x on this 2-core VM).
//
// The loss: trajectory balance (Malkin et al. 2022) is a mean over the batch's
// trajectories, so part k's loss weighted by n_k / B summed over the parts IS the batch's
// loss, and the summed gradients are the batch's gradients up to float summation order
// (tests/runtime/gfn/fast/batch_split_test.cc checks them against one model on the same
// trajectories). Other losses are refused by the engine plan (their normalisers are not the
// trajectory count).
//
// Draws: part k samples from a generator seeded with the k-th 64-bit draw of the Learner's
// sampling generator in this iteration, so a run is deterministic for a seed and T (the
// same with the parts run one after the other), and a checkpoint needs only the Learner's
// generator. The draws differ from the unsplit iteration's (T = 1 is never split).
//
// Parts 1..T-1 own an environment, preprocessor, loss, model and evaluator each (built
// like the Learner's); their parameters are copied from the Learner's model at the start
// of every split iteration (O(parameters)). Part 0 is the Learner's own model and
// evaluator, run on the calling thread; parts 1.. on a c10::ThreadPool of parts - 1
// persistent threads (LibTorch's; started by the constructor, joined by the destructor).
//
// Thread-safety: one thread calls run(); run() uses T threads. Errors: a part's exception
// is rethrown by run() after every part finished.

#include <ATen/core/Generator.h>
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "runtime/gfn/engine_plan.h"
#include "runtime/gfn/env/env_options.h"
#include "runtime/gfn/options.h"
#include "runtime/gfn/sampler.h"
#include "runtime/gfn/trajectories.h"

namespace c10 {
class ThreadPool;
}

namespace gfn::core {

class Evaluator;
class GFlowNetModel;
class Loss;

/// What one model, its evaluator and the loss are to a part.
struct SplitPartRefs {
  GFlowNetModel* model = nullptr;
  Evaluator* evaluator = nullptr;
  const Loss* loss = nullptr;
};

/// One split iteration's outcome.
struct SplitIteration {
  /// The parts' trajectories, concatenated in part order, without saved outputs.
  Trajectories batch;
  /// The batch's loss, float32 [], detached: sum over parts of n_k / B times its loss.
  at::Tensor loss;
  bool reused_logprobs = false;  ///< part 0's loss differentiated its sampling forward
  double sample_s = 0;           ///< wall seconds until every part had sampled (part 0's clock)
  double loss_s = 0;             ///< part 0's loss evaluation
  double backward_s = 0;         ///< part 0's backward, the wait for the others and the summation
};

/// concat_trajectories (trajectory_ops.h) of the parts in order, for parts in the sampler's
/// layout (step-major, each step's rows in increasing trajectory order, as sample_trajectories
/// returns them): the same tensors, by copying each part's step blocks in turn (O(N) memcpy)
/// instead of sorting all rows by (step, trajectory) (~2 ms at 8-D batch 1024). Saved outputs
/// are not kept. Throws std::invalid_argument for no parts, a part without recorded
/// transitions or with fields of inconsistent sizes, or parts whose lengths do not match their
/// rows or whose state widths differ.
/// Pure; tested against concat_trajectories (batch_split_test.cc).
Trajectories concat_sampled_parts(const std::vector<Trajectories>& parts);

class BatchSplit {
 public:
  /// `parts` >= 2 (plan.split_batch_parts); builds parts 1..parts-1 from the Learner's
  /// options, each with the plan's evaluator. Throws std::invalid_argument for parts < 2.
  BatchSplit(int parts, const EnvOptions& env, const ModelOptions& model, const TrainOptions& train,
             const EnginePlan& plan);
  ~BatchSplit();
  BatchSplit(const BatchSplit&) = delete;
  BatchSplit& operator=(const BatchSplit&) = delete;

  int parts() const { return static_cast<int>(replicas_.size()) + 1; }

  /// One iteration on `batch_size` >= parts() fresh trajectories: part 0 on `master`
  /// (whose gradients must be zero or hold what the batch should add to), parts 1.. on the
  /// copies. Each part's loss is computed on its trajectories with log rewards times
  /// `reward_exponent` (train.reward_exponent) and back-propagated; afterwards `master`'s
  /// parameters hold the batch's summed gradients. Draws `parts()` numbers from `generator`.
  /// Blocking; cost ~ the unsplit iteration's sample + loss + backward divided by parts()
  /// on parts() cores.
  SplitIteration run(const SplitPartRefs& master, std::int64_t batch_size,
                     const SamplerOptions& options, at::Generator& generator,
                     double reward_exponent);

 private:
  struct Replica;
  std::vector<std::unique_ptr<Replica>> replicas_;
  std::unique_ptr<c10::ThreadPool> pool_;  ///< parts() - 1 threads (LibTorch's c10 pool)
};

}  // namespace gfn::core
