#pragma once
// Fast path for small enumerable environments (docs/performance.md "Trainer throughput"): evaluate
// the estimators ONCE per iteration on every state of the environment (a "state
// table"), sample by table lookup, and compute the loss from the same table.
//
// Why: on HyperGrid 2-D h8 a batch of 128 trajectories visits nearly all 64 states, yet
// the generic path (sampler.h + losses.h) runs ~15 policy calls of a few distinct states
// each (unique, masks, softmax, multinomial, nonzero, indexing: ~40 small ATen ops per
// step) and then evaluates PF again for the loss. Here the network runs once on all
// states, differentiable (by default through one hand-written autograd node, see
// evaluate_state_table); sampling costs the exponential draws of each step
// plus a plain C++ loop over the DAG's edges (Environment::state_graph); the loss gathers
// its rows from the table, so the PF forward of sampling is the one the loss
// differentiates (torchgfn keeps the log-probabilities of on-policy sampling for the same
// reason).
//
// Which environments: any Environment that enumerates ALL its states (enumerable():
// all_states() in a topological order, state_indices()), not only its terminating ones,
// with at most kStateTableMaxStates of them (HyperGrid 2-D h8: 64, DiscreteEBM ndim 5:
// 243).
//
// Exactness: the loss always uses the masked log-softmax of the network's logits
// (losses.h), never the sampling distribution, so a table computed with the current
// parameters (and, with NoisyNet layers, the current noise: the Learner redraws it once
// per iteration BEFORE the table's forward) gives the loss and gradients of recomputation
// for any trajectories of the environment: on-policy, off-policy (epsilon, temperature),
// replayed from a buffer or sampled backward from remote states, as long as the
// parameters have not changed since the table was computed
// (tests/runtime/gfn/fast/state_table_test.cc).
// Sampling reproduces sample_trajectories draw for draw: at::multinomial(p, 1) without
// replacement is argmax(p / q) with q ~ Exp(1) drawn by exponential_ on a tensor of p's
// shape (ATen's Distributions.cpp), and that is what the table sampler computes.
// Trajectories are bit-identical given bit-identical probabilities (the logits of a row
// can differ in the last bit when the GEMM runs on a different number of rows).
//
// Not thread-safe with respect to the generator or the model; a StateSpace is immutable
// after construction.

#include <ATen/core/Generator.h>
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

#include "runtime/gfn/engine_options.h"
#include "runtime/gfn/losses.h"
#include "runtime/gfn/sampler.h"
#include "runtime/gfn/trajectories.h"

namespace gfn::core {

class GFlowNetModel;
class Environment;
class Preprocessor;

/// Largest number of states served by the state table: at HyperGrid 2-D h8 (64 states)
/// a batch of 16 already visits ~42 of them, while 4-D h8 (4096) would evaluate 4x the
/// ~965 states a batch of 128 visits.
inline constexpr std::int64_t kStateTableMaxStates = 512;

/// True if mode is auto (engine.state_table, runtime/gfn/engine_options.h) and env is
/// enumerable with at most kStateTableMaxStates states; false for mode off (the generic
/// path, for A/B measurements).
bool state_table_enabled(const Environment& env, StateTableMode mode);

/// The constant part of the state table of an environment, computed once: network
/// inputs, masks and the DAG's transitions of every state, rows in state-index order
/// (Environment::all_states / state_indices). Keeps a reference to env.
struct StateSpace {
  /// Throws std::domain_error if env is not enumerable. plain_loops: engine.plain_loops
  /// (the fast paths of state_indices, sample_trajectories_from_table and the table's
  /// autograd nodes; false: the ATen ops).
  StateSpace(const Environment& env, const Preprocessor& preprocessor, bool plain_loops);

  const Environment& env;
  bool plain_loops = true;  ///< engine.plain_loops for everything computed on this space
  /// engine.precision bf16: the manual backward's MLP GEMMs in bf16 (manual_backward.h
  /// MlpKernels); set by the StateTableEvaluator.
  bool bf16_gemms = false;
  std::int64_t n_states = 0;
  std::int64_t n_actions = 0;  ///< forward actions, exit included
  at::Tensor inputs;           ///< float32 [S, d]: preprocessor(all_states())
  at::Tensor forward_masks;    ///< bool [S, A]
  at::Tensor forward_masked;   ///< bool [S, A]: forward_masks.logical_not()
  /// bool [S, A - 1]: the backward actions to mask out of PB's log-softmax, rows in
  /// state-index order; a state without a parent (s0) has NO entry masked, so its row
  /// stays finite (it is never gathered, so its gradient is 0, not NaN).
  at::Tensor pb_masked;
  /// float32 [S]: Environment::log_reward of every state whose exit action is allowed
  /// (the only states a trajectory can terminate in), NaN for the others. Computed once:
  /// log_reward is a function of the state (a const method of the environment).
  at::Tensor log_rewards;
  std::vector<std::int64_t> child;  ///< [S * A]: state index of step(s, a), -1 if none
  std::int64_t s0 = 0;              ///< state index of s0
  at::Tensor states;                ///< int64 [S, D]: env.all_states(), contiguous

  /// env.state_indices(states) (int64 [N]) for states int64 [N, D] of this environment.
  /// Speed (plain_loops.h, engine.plain_loops): when the state index is a linear function of
  /// the state (HyperGrid: sum_k s_k h^k; DiscreteEBM: sum_k (s_k + 1) 3^k; found and checked
  /// on every state at construction), one loop computes it and checks each result against
  /// the state table (row r must equal the state), instead of the environment's ATen ops;
  /// any state that fails the check, other dtypes or !plain_loops use
  /// env.state_indices (same values; its errors for invalid states).
  at::Tensor state_indices(const at::Tensor& states) const;

  /// Rows of `states` (the table's states) gathered by index: int64 [rows.size(), D], same
  /// values as states.index_select(0, rows). Indices must be in [0, S) (not checked).
  at::Tensor gather_states(const std::vector<std::int64_t>& rows) const;

  /// True if state_indices can use the linear formula (tests).
  bool has_linear_index() const { return !index_weights_.empty(); }

 private:
  std::vector<std::int64_t> index_weights_;  ///< w: index = offset + sum_k s_k w_k; empty if none
  std::int64_t index_offset_ = 0;
};

/// The estimators on every state, rows in state-index order, computed with autograd.
struct StateTable {
  StateOutputs outputs;  ///< pf_logits [S, A], pb_logits [S, A-1], log_flow [S] or undefined
  at::Tensor probs;      ///< float32 [S, A], detached: action_probabilities of pf_logits
  /// evaluate_state_table's manual_backward: table_log_probs then also uses one
  /// hand-written autograd node (TableLogProbsNode in state_table.cc).
  bool manual_backward = false;
};

/// Runs model.forward on space.inputs (PB on all rows) in the model's current mode and
/// noise, and the sampling probabilities for `options`.
///
/// manual_backward (engine.table_backward manual, the default): the forward runs
/// without autograd and the table's outputs come out of ONE autograd node whose backward
/// is the MLPs' backward with 16 GEMM calls at 2-D h8 untied (forward_manual_backward in
/// manual_backward.h, write_leaf_grads on): the loss' backward then writes every plain
/// parameter's gradient in place into its .grad (FlatAdamW's flat buffer), without ~35
/// autograd nodes, their transposes and 13 gradient accumulations (with table_log_probs'
/// node: ~20 % less time per iteration at 2-D h8 batch 128, docs/performance.md "Trainer
/// throughput"). Same table values (bit-identical: same ATen forward ops); gradients equal
/// autograd's up to GEMM summation order (identical in the 2-D h8 quality run). Caveat: hooks
/// registered on parameters do not run for these gradients, and torch::autograd::grad() does not
/// return them (use loss.backward()). false (engine.table_backward autograd): model.forward with
/// autograd (the reference). The hand-written forward and backward use space.plain_loops.
StateTable evaluate_state_table(GFlowNetModel& model, const StateSpace& space,
                                const SamplerOptions& options, bool manual_backward);

/// A StateEvaluator (losses.h) that gathers the rows of `table` by state index: same
/// values as model_evaluator on the same parameters, gradients flow into the table's
/// graph. Keeps references to its arguments.
StateEvaluator table_evaluator(const StateTable& table, const StateSpace& space);

/// The PB logits of the table as a PolicyFunction (sampler.h), detached, for
/// sample_backward_actions. Keeps references to its arguments.
PolicyFunction table_backward_policy(const StateTable& table, const StateSpace& space);
/// The PF logits of the table as a PolicyFunction, detached (local search's re-completions).
PolicyFunction table_forward_policy(const StateTable& table, const StateSpace& space);

/// transition_log_probs (losses.h) of `trajs` read from the table: the masked
/// log-softmax runs on the S table rows (PB with s0's row unmasked: finite, never gathered) and
/// each transition gathers one entry, instead of a log-softmax over all N rows (N = 1044 vs S = 64
/// at 2-D h8, batch 128). Same values as transition_log_probs(env, trajs, model_evaluator(...)) on
/// the same parameters; gradients equal up to summation order. Throws std::invalid_argument like
/// it. With table.manual_backward, log_pf, log_pf_exit and log_pb come out of ONE autograd node
/// (TableLogProbsNode in state_table.cc: loops instead of ~10 autograd nodes), same values and
/// gradients (ATen's log-softmax backward, index_add's summation order).
TransitionLogProbs table_log_probs(const StateTable& table, const StateSpace& space,
                                   const Trajectories& trajs);

/// The trajectory balance loss (losses.h "tb", Malkin et al. 2022; torchgfn TBGFlowNet):
/// mean_tau (logZ + sum log PF - log R(x) - sum log PB)^2 over the B trajectories of
/// `trajs`, read from the table; log_z is the learned float32 [] logZ; returns float32 [],
/// differentiable w.r.t. the table's logits and log_z.
/// With fused (engine.fused_tb, default true) and table.manual_backward, ONE
/// autograd node (TableTrajectoryBalanceNode in state_table.cc: plain loops for the
/// per-trajectory sums, residuals and their gradients, ATen's log-softmax and its backward
/// on the S table rows) instead of table_log_probs' node plus trajectory_balance's ~20 ATen
/// ops and ~8 autograd nodes: same loss up to its last bit (same float operations; the
/// final mean is a loop accumulating in double, ATen's mean without space.plain_loops) and
/// gradients (bit-identical in tests/runtime/gfn/fast/state_table_test.cc up to the 1e-6 checked).
/// Otherwise trajectory_balance(trajs, table_log_probs(table, space, trajs), log_z).
/// Throws std::invalid_argument for trajectories without recorded transitions, malformed
/// traj_index / log_rewards, non-int64 indices or a log_z that is not a float32 scalar.
at::Tensor table_trajectory_balance(const StateTable& table, const StateSpace& space,
                                    const Trajectories& trajs, const at::Tensor& log_z, bool fused);

/// sample_trajectories (sampler.h) with the policy read from probs float32 [S, A] (rows
/// in state-index order, e.g. StateTable::probs): same layout, same random draws (those of
/// one exponential_ of shape [running, A] per step from `generator`, drawn without ATen
/// dispatch when LibTorch has no MKL, see ExponentialDraws in state_table.cc); log_rewards are read
/// from space.log_rewards (same values as env.log_reward of the terminating states). Throws
/// std::invalid_argument for n < 0 or probs of the wrong shape/dtype, std::logic_error if
/// probs select a masked action.
Trajectories sample_trajectories_from_table(const StateSpace& space, const at::Tensor& probs,
                                            std::int64_t n, const SamplerOptions& options,
                                            at::Generator& generator);

}  // namespace gfn::core
