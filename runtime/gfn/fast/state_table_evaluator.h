#pragma once
// The Evaluator (runtime/gfn/evaluator.h) of small enumerable environments
// (state_table.h): begin_iteration runs the network once on every state (the loss' forward
// pass, with this iteration's NoisyNet noise); fresh sampling, backward sampling of remote
// states and the loss all read that table, so PF runs once per iteration instead of once
// per sampling step plus once for the loss. Exact for on-policy, off-policy, replayed and
// remote trajectories (the loss never uses the sampling rule). Chosen by make_evaluator
// (make_evaluator.h) when state_table_enabled.
//
// Keeps references to the model and the environment. Not thread-safe.

#include "runtime/gfn/engine_plan.h"
#include "runtime/gfn/evaluator.h"
#include "runtime/gfn/fast/state_table.h"

namespace gfn::core {

class StateTableEvaluator final : public Evaluator {
 public:
  /// plan: manual_table_backward (evaluate_state_table's manual_backward), fused_tb
  /// (table_trajectory_balance), plain_loops (the StateSpace) and precision. Throws
  /// std::domain_error if env is not enumerable.
  StateTableEvaluator(GFlowNetModel& model, const Preprocessor& preprocessor,
                      const Environment& env, const EnginePlan& plan);
  EvaluatorKind kind() const override { return EvaluatorKind::kStateTable; }
  /// evaluate_state_table: the table for this iteration (its probabilities for `options`).
  void begin_iteration(const SamplerOptions& options) override;
  /// sample_trajectories_from_table; throws std::invalid_argument before begin_iteration.
  Trajectories sample(std::int64_t n, const SamplerOptions& options,
                      at::Generator& generator) override;
  PolicyFunction backward_policy() override;
  PolicyFunction forward_policy() override;
  /// Loss tb: table_trajectory_balance (log-softmax on the S table rows instead of the N
  /// transition rows; one autograd node with plan.fused_tb); the other losses:
  /// loss.evaluate with table_evaluator.
  LossValue loss(const Loss& loss, const Trajectories& batch, const at::Tensor& log_z) override;

  const StateSpace& space() const { return space_; }
  const StateTable& table() const { return table_; }

 private:
  GFlowNetModel& model_;
  const Environment& env_;
  StateSpace space_;
  StateTable table_;
  bool manual_backward_;
  bool fused_tb_;
};

}  // namespace gfn::core
