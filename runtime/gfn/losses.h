#pragma once
// GFlowNet training objectives on Environment trajectories, selected by TrainOptions::loss
// (LossKind; the names are written once in loss_kind.h). Every loss follows torchgfn
// (src/gfn/gflownet/*.py), with torchgfn's default "mean" reductions; log-probabilities of all
// transitions of a batch come from ONE evaluation (Trajectories' step-major layout) with masked
// log-softmax, exact for on- and off-policy samples: a StateEvaluator gives the network's outputs
// (model_evaluator: a recomputation; the fast paths of runtime/gfn/fast/ give the same
// values from saved outputs or a state table).
//
// Notation per trajectory tau = (s_0 -> ... -> s_{n-1} -> exit), n = length (actions,
// exit included), x = s_{n-1} its terminating state; PB of the exit action is 1.
//
// "tb"   Trajectory Balance (Malkin et al. 2022; torchgfn TBGFlowNet):
//        mean_tau (logZ + sum log PF - log R(x) - sum log PB)^2, logZ a learned scalar.
// "zvar" Log-partition variance (Zhang et al. 2023, arXiv:2302.05446; torchgfn
//        LogPartitionVarianceGFlowNet): with z_tau = log R(x) + sum log PB - sum log PF
//        (the per-trajectory estimate of log Z), mean_tau (z_tau - mean(z))^2. No
//        learned logZ; the batch mean of z is reported as the logZ estimate.
// "db"   Detailed Balance (Bengio et al. 2021, "GFlowNet Foundations" sec. 3.2;
//        torchgfn DBGFlowNet, forward_looking off): one residual per transition,
//        log F(s) + log PF(s'|s) - log F(s') - log PB(s|s'), where a terminating
//        transition (exit from x) uses log R(x) for log F(s') and PB = 1; mean over all
//        N transitions of the batch. Needs the model's logF head.
// "modified_db" (Deleu et al. 2022, sec. 3.2; torchgfn ModifiedDBGFlowNet): for
//        environments where every state can terminate (make_loss(train, env) refuses
//        it otherwise: Environment::every_state_terminates), F(s) = R(s)/PF(exit|s), so for
//        every non-exit transition s -> s':
//        log R(s) + log PF(s'|s) + log PF(exit|s') - log R(s') - log PB(s|s') - log PF(exit|s);
//        mean over the N - B non-exit transitions (0 if there are none).
// "subtb" Sub-Trajectory Balance (Madan et al. 2023; torchgfn SubTBGFlowNet): for every
//        sub-trajectory s_j..s_k (0 <= j < k <= n) the residual
//        log F(s_j) + sum_{t=j}^{k-1} log PF - [k<n: log F(s_k) | k=n: log R(x)] - sum log PB,
//        weighted by train.subtb_weighting (see SubTrajectoryWeighting) with
//        lambda = train.subtb_lambda. Needs the logF head.
// "fm"   Flow Matching (Bengio et al. 2021; torchgfn FMGFlowNet): the PF network's
//        unmasked outputs are the log edge flows log F(s -> s') (exit included); for
//        every non-initial state s' of the batch (rows B..N-1, duplicates counted)
//        (logsumexp_parents log F(p -> s') - logsumexp_children log F(s' -> .))^2,
//        averaged, plus alpha * mean_tau (log F(x -> exit) - log R(x))^2 (alpha =
//        train.fm_alpha, torchgfn's default 1.0). PF = softmax of the masked flows.
//
// Losses without a learned logZ (all but "tb") return their estimate of log Z (zvar:
// batch mean; db/subtb: log F(s0); modified_db: log R(s0) - log PF(exit|s0); fm:
// log-sum of the edge flows out of s0), which the Learner stores in the model's logZ
// parameter so that validation and logging report it.
//
// Thread-safety: losses are stateless and const; evaluating one uses the model,
// which is not thread-safe.

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "runtime/gfn/loss_kind.h"
#include "runtime/gfn/options.h"
#include "runtime/gfn/trajectories.h"

namespace gfn::core {

class GFlowNetModel;
class Environment;
class Preprocessor;

/// Network outputs for a batch of M states (all float32, unmasked).
struct StateOutputs {
  at::Tensor pf_logits;  ///< [M, n_actions]; for "fm" these are the log edge flows
  at::Tensor pb_logits;  ///< [M, n_actions - 1]; undefined when not requested
  at::Tensor log_flow;   ///< [M] log F(s); undefined without a logF head
};

/// Evaluates the estimators on states int64 [M, state_dim]; with_pb = false may skip PB.
using StateEvaluator = std::function<StateOutputs(const at::Tensor& states, bool with_pb)>;

/// The evaluator of a model: model.forward(preprocessor(unique states)) once per
/// distinct state of the batch (Environment::unique), gathered back per row; values and
/// gradients equal those of a per-row evaluation. Keeps references to its arguments.
StateEvaluator model_evaluator(GFlowNetModel& model, const Preprocessor& preprocessor,
                               const Environment& env);

struct TransitionLogProbs {
  at::Tensor log_pf;       ///< float32 [N]: log PF(action_i | states_i)
  at::Tensor log_pb;       ///< float32 [N - B]: log PB(parent | states_{B+k}) for rows B + k
  at::Tensor log_pf_exit;  ///< float32 [N]: log PF(exit | states_i)
  at::Tensor log_flow;     ///< float32 [N]: log F(states_i); undefined without a logF head
};

/// log-probabilities (and log F) of every transition of `trajs` from one call of
/// `evaluate` on all N rows (with autograd). Throws std::invalid_argument if `trajs`
/// has no recorded transitions or the evaluator returns wrong shapes.
TransitionLogProbs transition_log_probs(const Environment& env, const Trajectories& trajs,
                                        const StateEvaluator& evaluate);
/// Same with model_evaluator(model, preprocessor, env).
TransitionLogProbs transition_log_probs(GFlowNetModel& model, const Preprocessor& preprocessor,
                                        const Environment& env, const Trajectories& trajs);

/// Per-row positions within the trajectories of a batch (step-major layout).
struct TrajectoryLayout {
  at::Tensor steps;             ///< int64 [N]: t of row i (its state is s_t of its trajectory)
  at::Tensor parent_rows;       ///< int64 [N - B]: the row of s_{t-1} for row B + k
  std::int64_t max_length = 0;  ///< max_b lengths[b]
};
/// Throws std::invalid_argument if lengths do not sum to N or traj_index is malformed.
TrajectoryLayout trajectory_layout(const TrajectoryRows& trajs);

/// A loss value and, for losses without a learned logZ, their detached float32 []
/// estimate of log Z (undefined for "tb").
struct LossValue {
  at::Tensor loss;   ///< float32 [], differentiable
  at::Tensor log_z;  ///< float32 [] or undefined
};

// Loss functions on precomputed log-probabilities. They read only the TrajectoryRows of a
// batch (trajectory_rows.h), so the same functions serve discrete Trajectories and
// continuous ones (continuous/trajectories.h, log-densities from continuous/sampler.h). All
// throw std::invalid_argument on shape mismatches or a missing input (e.g. log_flow for
// db/subtb).

/// "tb": mean over B trajectories; log_z is the scalar float32 [] learned logZ.
at::Tensor trajectory_balance(const TrajectoryRows& trajs, const TransitionLogProbs& log_probs,
                              const at::Tensor& log_z);
/// "zvar".
LossValue log_partition_variance(const TrajectoryRows& trajs, const TransitionLogProbs& log_probs);
/// "db" (needs log_probs.log_flow).
LossValue detailed_balance(const TrajectoryRows& trajs, const TransitionLogProbs& log_probs);
/// "modified_db"; row_log_rewards float32 [N] = log R(states_i) of every row.
LossValue modified_detailed_balance(const TrajectoryRows& trajs,
                                    const TransitionLogProbs& log_probs,
                                    const at::Tensor& row_log_rewards);

// SubTrajectoryWeighting (train.subtb_weighting) is declared and documented in loss_kind.h.

/// "subtb" (needs log_flow); lambda > 0.
LossValue sub_trajectory_balance(const TrajectoryRows& trajs, const TransitionLogProbs& log_probs,
                                 SubTrajectoryWeighting weighting, double lambda);

/// "fm": evaluates `evaluate` (pf_logits = log edge flows) once on the non-initial
/// states, their parents (every allowed backward action, Environment::backward_step),
/// the terminating states and s0.
LossValue flow_matching(const Environment& env, const Trajectories& trajs,
                        const StateEvaluator& evaluate, double alpha);

class Loss {
 public:
  virtual ~Loss() = default;
  /// Which loss this is (train.loss).
  virtual LossKind kind() const = 0;
  /// Its train.loss name ("tb", ...: loss_kind.h kLossKindNames).
  std::string name() const { return config::enum_name(kind()); }
  /// True if the loss needs the model's logF head (GFlowNetModel with_log_flow).
  virtual bool needs_log_flow() const { return false; }
  /// True if the loss trains the model's logZ parameter ("tb" only).
  virtual bool trains_log_z() const { return false; }
  /// True if evaluate() calls its evaluator only on trajs.states (transition_log_probs),
  /// so outputs kept while sampling can serve it (saved_outputs_evaluator): all but "fm",
  /// which also evaluates parents of the visited states.
  virtual bool reuses_sampled_outputs() const { return true; }
  /// The loss of a batch from the estimators `evaluate`; log_z is the learned logZ
  /// parameter (float32 [], used by "tb" only).
  virtual LossValue evaluate(const Environment& env, const Trajectories& trajs,
                             const StateEvaluator& evaluate, const at::Tensor& log_z) const = 0;
  /// The scalar loss of a batch under `model` (float32 [], differentiable).
  at::Tensor operator()(GFlowNetModel& model, const Preprocessor& preprocessor,
                        const Environment& env, const Trajectories& trajs) const;
};

class TrajectoryBalanceLoss final : public Loss {
 public:
  LossKind kind() const override { return LossKind::kTB; }
  bool trains_log_z() const override { return true; }
  LossValue evaluate(const Environment& env, const Trajectories& trajs,
                     const StateEvaluator& evaluate, const at::Tensor& log_z) const override;
};

class LogPartitionVarianceLoss final : public Loss {
 public:
  LossKind kind() const override { return LossKind::kZVar; }
  LossValue evaluate(const Environment& env, const Trajectories& trajs,
                     const StateEvaluator& evaluate, const at::Tensor& log_z) const override;
};

class DetailedBalanceLoss final : public Loss {
 public:
  LossKind kind() const override { return LossKind::kDB; }
  bool needs_log_flow() const override { return true; }
  LossValue evaluate(const Environment& env, const Trajectories& trajs,
                     const StateEvaluator& evaluate, const at::Tensor& log_z) const override;
};

class ModifiedDetailedBalanceLoss final : public Loss {
 public:
  LossKind kind() const override { return LossKind::kModifiedDB; }
  LossValue evaluate(const Environment& env, const Trajectories& trajs,
                     const StateEvaluator& evaluate, const at::Tensor& log_z) const override;
};

class SubTrajectoryBalanceLoss final : public Loss {
 public:
  /// Throws std::invalid_argument naming train.subtb_lambda unless lambda > 0, or
  /// train.subtb_weighting for a weighting outside loss_kind.h's table.
  SubTrajectoryBalanceLoss(SubTrajectoryWeighting weighting, double lambda);
  LossKind kind() const override { return LossKind::kSubTB; }
  bool needs_log_flow() const override { return true; }
  LossValue evaluate(const Environment& env, const Trajectories& trajs,
                     const StateEvaluator& evaluate, const at::Tensor& log_z) const override;

 private:
  SubTrajectoryWeighting weighting_;
  double lambda_;
};

class FlowMatchingLoss final : public Loss {
 public:
  /// Throws std::invalid_argument naming train.fm_alpha unless alpha >= 0.
  explicit FlowMatchingLoss(double alpha);
  LossKind kind() const override { return LossKind::kFM; }
  bool reuses_sampled_outputs() const override { return false; }
  LossValue evaluate(const Environment& env, const Trajectories& trajs,
                     const StateEvaluator& evaluate, const at::Tensor& log_z) const override;

 private:
  double alpha_;
};

/// The loss train.loss selects (LossKind, loss_kind.h) with its options (subtb_weighting,
/// subtb_lambda, fm_alpha). Throws std::invalid_argument naming the option for an invalid
/// value (subtb_lambda <= 0, fm_alpha < 0, a kind outside the table) and naming
/// train.reward_exponent for modified_db with reward_exponent != 1 (the loss reads the
/// rewards of every state from the environment).
std::unique_ptr<Loss> make_loss(const TrainOptions& train);
/// make_loss with default options for the other fields.
std::unique_ptr<Loss> make_loss(LossKind kind);
/// make_loss(train), and throws std::invalid_argument naming train.loss when the loss
/// cannot train on `env` ("modified_db" needs every_state_terminates()).
std::unique_ptr<Loss> make_loss(const TrainOptions& train, const Environment& env);

}  // namespace gfn::core
