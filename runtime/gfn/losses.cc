#include "runtime/gfn/losses.h"

#include <ATen/ATen.h>

#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "runtime/gfn/env/environment.h"
#include "runtime/gfn/estimators.h"
#include "runtime/gfn/preprocessors.h"

namespace gfn::core {
namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// Log-softmax over the allowed actions (masked entries become -inf).
at::Tensor masked_log_softmax(const at::Tensor& logits, const at::Tensor& masks) {
  return logits.masked_fill(masks.logical_not(), kNegInf).log_softmax(1);
}

at::Tensor gather_rows(const at::Tensor& table, const at::Tensor& actions) {
  return table.gather(1, actions.view({-1, 1})).squeeze(1);
}

void require(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument(what);
}

// Checks the shapes every loss relies on; returns {B, N}.
std::pair<std::int64_t, std::int64_t> check_inputs(const TrajectoryRows& trajs,
                                                   const TransitionLogProbs& lp, const char* who,
                                                   bool need_flow) {
  const std::int64_t b = trajs.n_trajectories;
  const std::int64_t n = trajs.n_rows();
  require(b >= 1 && lp.log_pf.defined() && lp.log_pf.dim() == 1 && lp.log_pf.size(0) == n &&
              lp.log_pb.defined() && lp.log_pb.dim() == 1 && lp.log_pb.size(0) == n - b &&
              trajs.traj_index.defined() && trajs.traj_index.size(0) == n &&
              trajs.log_rewards.defined() && trajs.log_rewards.size(0) == b,
          std::string(who) +
              ": need B >= 1, log_pf [N], log_pb [N - B], traj_index [N] and log_rewards [B]");
  if (need_flow) {
    require(lp.log_flow.defined() && lp.log_flow.dim() == 1 && lp.log_flow.size(0) == n,
            std::string(who) + ": needs log_flow [N] (a model with a logF head)");
  }
  return {b, n};
}

// A zero that keeps the autograd graph (backward() works on an empty batch term).
at::Tensor graph_zero(const at::Tensor& like) { return like.sum() * 0.0; }

}  // namespace

StateEvaluator model_evaluator(GFlowNetModel& model, const Preprocessor& preprocessor,
                               const Environment& env) {
  return [&model, &preprocessor, &env](const at::Tensor& states, bool with_pb) {
    // Speed: the rows of a batch revisit few distinct states (2D h8: ~1000 rows, at most
    // 64 states), so the network runs once per distinct state; index_select's backward
    // sums the rows' gradients, so values and gradients equal the per-row evaluation.
    const UniqueStates u = env.unique(states);
    const std::int64_t n_unique = u.states.size(0);
    const PolicyOutputs out = model.forward(preprocessor(u.states), with_pb ? 0 : n_unique);
    StateOutputs s;
    s.pf_logits = out.pf_logits.index_select(0, u.inverse);
    if (with_pb) s.pb_logits = out.pb_logits.index_select(0, u.inverse);
    if (out.log_flow.defined()) s.log_flow = out.log_flow.index_select(0, u.inverse);
    return s;
  };
}

TransitionLogProbs transition_log_probs(const Environment& env, const Trajectories& trajs,
                                        const StateEvaluator& evaluate) {
  const std::int64_t b = trajs.n_trajectories;
  const std::int64_t n = trajs.n_transitions();
  if (!trajs.actions.defined() || n < b || !trajs.pb_actions.defined() ||
      trajs.pb_actions.size(0) != n - b) {
    throw std::invalid_argument(
        "transition_log_probs: trajectories without recorded transitions (sampled with "
        "record_transitions = false?)");
  }
  const StateOutputs out = evaluate(trajs.states, /*with_pb=*/true);
  require(out.pf_logits.defined() && out.pf_logits.dim() == 2 && out.pf_logits.size(0) == n &&
              out.pf_logits.size(1) == env.n_actions() && out.pb_logits.defined() &&
              out.pb_logits.dim() == 2 && out.pb_logits.size(0) == n &&
              out.pb_logits.size(1) == env.n_backward_actions(),
          "transition_log_probs: the evaluator must return pf_logits [N, n_actions] and "
          "pb_logits [N, n_actions - 1]");
  const at::Tensor children = trajs.states.narrow(0, b, n - b);
  const at::Tensor log_pf_all = masked_log_softmax(out.pf_logits, env.forward_masks(trajs.states));
  TransitionLogProbs lp;
  lp.log_pf = gather_rows(log_pf_all, trajs.actions);
  lp.log_pf_exit = log_pf_all.select(1, env.exit_action());
  lp.log_pb = gather_rows(
      masked_log_softmax(out.pb_logits.narrow(0, b, n - b), env.backward_masks(children)),
      trajs.pb_actions);
  if (out.log_flow.defined()) {
    require(out.log_flow.dim() == 1 && out.log_flow.size(0) == n,
            "transition_log_probs: the evaluator must return log_flow [N]");
    lp.log_flow = out.log_flow;
  }
  return lp;
}

TransitionLogProbs transition_log_probs(GFlowNetModel& model, const Preprocessor& preprocessor,
                                        const Environment& env, const Trajectories& trajs) {
  return transition_log_probs(env, trajs, model_evaluator(model, preprocessor, env));
}

TrajectoryLayout trajectory_layout(const TrajectoryRows& trajs) {
  const std::int64_t b = trajs.n_trajectories;
  const std::int64_t n = trajs.n_rows();
  require(b >= 1 && trajs.lengths.defined() && trajs.lengths.size(0) == b &&
              trajs.traj_index.defined() && trajs.traj_index.size(0) == n &&
              trajs.lengths.sum().item<std::int64_t>() == n,
          "trajectory_layout: need lengths [B] summing to N and traj_index [N]");
  // Rows of one trajectory appear in step order (step-major layout), so a stable sort
  // by trajectory lists each trajectory's rows s_0, s_1, ... consecutively.
  const at::Tensor order = std::get<1>(at::sort(trajs.traj_index, /*stable=*/true, 0, false));
  const at::Tensor offsets = trajs.lengths.cumsum(0) - trajs.lengths;  // first sorted position
  const at::Tensor sorted_traj = trajs.traj_index.index_select(0, order);
  const at::Tensor sorted_steps = at::arange(n, at::kLong) - offsets.index_select(0, sorted_traj);
  TrajectoryLayout layout;
  layout.steps = at::empty({n}, at::kLong).index_copy_(0, order, sorted_steps);
  require(layout.steps.narrow(0, 0, b).eq(0).all().item<bool>() &&
              (n == b || layout.steps.narrow(0, b, n - b).gt(0).all().item<bool>()),
          "trajectory_layout: rows [0, B) must be the s0 rows of trajectories 0..B-1");
  // parent of the row at sorted position p (p not a trajectory start) is at p - 1.
  at::Tensor parent = at::full({n}, -1, at::kLong);
  if (n > 1) {
    const at::Tensor has_parent = sorted_steps.narrow(0, 1, n - 1).gt(0);
    const at::Tensor rows = order.narrow(0, 1, n - 1).masked_select(has_parent);
    const at::Tensor parents = order.narrow(0, 0, n - 1).masked_select(has_parent);
    parent.index_copy_(0, rows, parents);
  }
  layout.parent_rows = parent.narrow(0, b, n - b).contiguous();
  layout.max_length = trajs.lengths.max().item<std::int64_t>();
  return layout;
}

at::Tensor trajectory_balance(const TrajectoryRows& trajs, const TransitionLogProbs& lp,
                              const at::Tensor& log_z) {
  const auto [b, n] = check_inputs(trajs, lp, "trajectory_balance", false);
  require(log_z.defined() && log_z.numel() == 1, "trajectory_balance: log_z must be a scalar");
  const at::Tensor sum_pf =
      at::zeros({b}, lp.log_pf.options()).index_add(0, trajs.traj_index, lp.log_pf);
  const at::Tensor sum_pb = at::zeros({b}, lp.log_pb.options())
                                .index_add(0, trajs.traj_index.narrow(0, b, n - b), lp.log_pb);
  const at::Tensor residual = log_z.reshape({}) + sum_pf - trajs.log_rewards - sum_pb;
  return residual.pow(2).mean();
}

LossValue log_partition_variance(const TrajectoryRows& trajs, const TransitionLogProbs& lp) {
  const auto [b, n] = check_inputs(trajs, lp, "log_partition_variance", false);
  const at::Tensor sum_pf =
      at::zeros({b}, lp.log_pf.options()).index_add(0, trajs.traj_index, lp.log_pf);
  const at::Tensor sum_pb = at::zeros({b}, lp.log_pb.options())
                                .index_add(0, trajs.traj_index.narrow(0, b, n - b), lp.log_pb);
  const at::Tensor z = trajs.log_rewards + sum_pb - sum_pf;  // per-trajectory log Z estimates
  const at::Tensor mean = z.mean();
  return {(z - mean).pow(2).mean(), mean.detach()};
}

LossValue detailed_balance(const TrajectoryRows& trajs, const TransitionLogProbs& lp) {
  const auto [b, n] = check_inputs(trajs, lp, "detailed_balance", true);
  const TrajectoryLayout layout = trajectory_layout(trajs);
  // Non-exit transitions: parent row p -> child row B + k.
  const at::Tensor& p = layout.parent_rows;
  const at::Tensor inner = lp.log_flow.index_select(0, p) + lp.log_pf.index_select(0, p) -
                           lp.log_flow.narrow(0, b, n - b) - lp.log_pb;
  // Exit transitions: log F(x) + log PF(exit | x) - log R(x); the exit row of a
  // trajectory is its last one (step lengths - 1).
  const at::Tensor exit_rows =
      at::nonzero(layout.steps.eq(trajs.lengths.index_select(0, trajs.traj_index) - 1)).squeeze(1);
  require(exit_rows.size(0) == b, "detailed_balance: need exactly one exit action per trajectory");
  const at::Tensor terminal =
      lp.log_flow.index_select(0, exit_rows) + lp.log_pf.index_select(0, exit_rows) -
      trajs.log_rewards.index_select(0, trajs.traj_index.index_select(0, exit_rows));
  return {at::cat({inner, terminal}).pow(2).mean(), lp.log_flow[0].detach()};
}

LossValue modified_detailed_balance(const TrajectoryRows& trajs, const TransitionLogProbs& lp,
                                    const at::Tensor& row_log_rewards) {
  const auto [b, n] = check_inputs(trajs, lp, "modified_detailed_balance", false);
  require(lp.log_pf_exit.defined() && lp.log_pf_exit.size(0) == n && row_log_rewards.defined() &&
              row_log_rewards.dim() == 1 && row_log_rewards.size(0) == n,
          "modified_detailed_balance: need log_pf_exit [N] and row_log_rewards [N]");
  const at::Tensor log_z = (row_log_rewards[0] - lp.log_pf_exit[0]).detach();
  if (n == b) return {graph_zero(lp.log_pf), log_z};  // no non-exit transition
  const at::Tensor p = trajectory_layout(trajs).parent_rows;
  const at::Tensor child_exit = lp.log_pf_exit.narrow(0, b, n - b);
  const at::Tensor scores = row_log_rewards.index_select(0, p) + lp.log_pf.index_select(0, p) +
                            child_exit - row_log_rewards.narrow(0, b, n - b) - lp.log_pb -
                            lp.log_pf_exit.index_select(0, p);
  return {scores.pow(2).mean(), log_z};
}

LossValue sub_trajectory_balance(const TrajectoryRows& trajs, const TransitionLogProbs& lp,
                                 SubTrajectoryWeighting weighting, double lambda) {
  const auto [b, n] = check_inputs(trajs, lp, "sub_trajectory_balance", true);
  require(lambda > 0, "sub_trajectory_balance: lambda must be > 0");
  const TrajectoryLayout layout = trajectory_layout(trajs);
  const std::int64_t len = layout.max_length;
  const auto fopts = lp.log_pf.options();
  // Padded [B, L + 1] tables indexed by step t (zero beyond each trajectory's end).
  const at::Tensor cell = trajs.traj_index * (len + 1) + layout.steps;  // [N]
  auto padded = [&](const at::Tensor& values, const at::Tensor& where) {
    return at::zeros({b * (len + 1)}, fopts).index_add(0, where, values).view({b, len + 1});
  };
  const at::Tensor pf = padded(lp.log_pf, cell);      // log PF(a_t | s_t)
  const at::Tensor flow = padded(lp.log_flow, cell);  // log F(s_t)
  // PB(s_{t-1} | s_t) of child row B + k sits at step t - 1.
  const at::Tensor pb = padded(lp.log_pb, cell.narrow(0, b, n - b) - 1);
  const at::Tensor zero_col = at::zeros({b, 1}, fopts);
  const at::Tensor pf_cum = at::cat({zero_col, pf.narrow(1, 0, len).cumsum(1)}, 1);  // [B, L+1]
  const at::Tensor pb_cum = at::cat({zero_col, pb.narrow(1, 0, len).cumsum(1)}, 1);
  // score(j, k) = start[j] - end[k]; end uses log R(x) at k = n (PB of the exit is 1).
  const at::Tensor steps = at::arange(len + 1, at::kLong).view({1, len + 1});
  const at::Tensor n_b = trajs.lengths.view({b, 1});
  const at::Tensor at_end = steps.eq(n_b);  // [B, L+1]
  const at::Tensor start = flow - pf_cum + pb_cum;
  const at::Tensor end_flow =
      at::where(at_end, trajs.log_rewards.view({b, 1}).expand({b, len + 1}), flow);
  const at::Tensor end = end_flow - pf_cum + pb_cum;
  const at::Tensor scores = start.unsqueeze(2) - end.unsqueeze(1);  // [B, L+1 (j), L+1 (k)]

  // Weights (no gradient): valid iff j < k <= n.
  const at::Tensor j = steps.view({1, len + 1, 1});
  const at::Tensor k = steps.view({1, 1, len + 1});
  const at::Tensor valid = (j < k) & (k <= n_b.view({b, 1, 1}));
  const at::Tensor sub_len = (k - j).to(at::kDouble);  // i = k - j
  const at::Tensor validd = valid.to(at::kDouble);
  auto per_trajectory = [&](const at::Tensor& w) {  // normalise within each trajectory, then 1/B
    return w / w.sum({1, 2}, /*keepdim=*/true) / static_cast<double>(b);
  };
  at::Tensor weights;
  switch (weighting) {
    case SubTrajectoryWeighting::kGeometricWithin:
      weights = per_trajectory(validd * at::pow(lambda, sub_len - 1));
      break;
    case SubTrajectoryWeighting::kGeometric: {
      // Mean per length i, lengths weighted lambda^(i-1) / sum_{i'=1}^{L} lambda^(i'-1).
      const at::Tensor lengths = at::arange(1, len + 1, at::kDouble);
      const at::Tensor length_w = at::pow(lambda, lengths - 1);
      const at::Tensor w_of_len = length_w / length_w.sum();  // [L], index i-1
      const at::Tensor len_idx = (k - j - 1).clamp(0, len - 1).expand({b, len + 1, len + 1});
      const at::Tensor count =
          at::zeros({len}, at::kDouble)
              .index_add(0, len_idx.masked_select(valid),
                         at::ones({valid.sum().item<std::int64_t>()}, at::kDouble));
      weights = validd * (w_of_len / count.clamp_min(1))
                             .index_select(0, len_idx.reshape(-1))
                             .view({b, len + 1, len + 1});
      break;
    }
    case SubTrajectoryWeighting::kEqual:
      weights = validd / validd.sum();
      break;
    case SubTrajectoryWeighting::kEqualWithin:
      weights = per_trajectory(validd);
      break;
    case SubTrajectoryWeighting::kTB:
      weights =
          (valid & j.eq(0) & k.eq(n_b.view({b, 1, 1}))).to(at::kDouble) / static_cast<double>(b);
      break;
    case SubTrajectoryWeighting::kDB: {
      const at::Tensor one = validd * sub_len.eq(1).to(at::kDouble);
      weights = one / one.sum();
      break;
    }
    case SubTrajectoryWeighting::kModifiedDB:
      weights = per_trajectory(validd * sub_len.eq(1).to(at::kDouble));
      break;
  }
  const at::Tensor loss = (weights.to(at::kFloat) * scores.pow(2)).sum();
  return {loss, lp.log_flow[0].detach()};
}

LossValue flow_matching(const Environment& env, const Trajectories& trajs,
                        const StateEvaluator& evaluate, double alpha) {
  const std::int64_t b = trajs.n_trajectories;
  const std::int64_t n = trajs.n_transitions();
  const std::int64_t a = env.n_actions();
  const std::int64_t nb = env.n_backward_actions();
  require(b >= 1 && trajs.states.defined() && n >= b && trajs.terminating_states.defined() &&
              trajs.terminating_states.size(0) == b && trajs.log_rewards.defined() &&
              trajs.log_rewards.size(0) == b,
          "flow_matching: need recorded transitions, terminating_states [B] and log_rewards [B]");
  const std::int64_t m = n - b;
  // Non-initial states s' (rows B..N-1) and, for every allowed backward action j, the
  // parent p_j = backward_step(s', j), which reaches s' by forward action j. Pairs are
  // listed j-major (all parents of action 0, then action 1, ...); one evaluation for all.
  const at::Tensor children = trajs.states.narrow(0, b, m);
  const at::Tensor bmasks = env.backward_masks(children);          // [M, nb]
  const at::Tensor pairs = at::nonzero(bmasks.t());                // [P, 2]: (j, row)
  const at::Tensor pair_action = pairs.select(1, 0).contiguous();  // j
  const at::Tensor pair_row = pairs.select(1, 1).contiguous();     // child row in [0, M)
  const std::int64_t p = pairs.size(0);
  const at::Tensor parents =
      env.backward_step_unchecked(children.index_select(0, pair_row), pair_action);
  const StateOutputs out =
      evaluate(at::cat({children, parents, trajs.terminating_states, env.initial_states(1)}),
               /*with_pb=*/false);
  const at::Tensor& flows = out.pf_logits;  // [M + P + B + 1, n_actions]
  require(
      flows.defined() && flows.dim() == 2 && flows.size(0) == m + p + b + 1 && flows.size(1) == a,
      "flow_matching: the evaluator must return pf_logits [rows, n_actions]");

  at::Tensor fm_term;
  if (m > 0) {
    const at::Tensor outgoing = flows.narrow(0, 0, m)
                                    .masked_fill(env.forward_masks(children).logical_not(), kNegInf)
                                    .logsumexp(1);
    // log F(p_j -> s') at [row, j]; disallowed (row, j) stay -inf.
    const at::Tensor edge = flows.narrow(0, m, p).gather(1, pair_action.view({-1, 1})).squeeze(1);
    const at::Tensor incoming = at::full({m, nb}, kNegInf, flows.options())
                                    .index_put({pair_row, pair_action}, edge)
                                    .logsumexp(1);
    fm_term = (incoming - outgoing).pow(2).mean();
  } else {
    fm_term = graph_zero(flows);
  }
  const at::Tensor terminal_exit = flows.narrow(0, m + p, b).select(1, env.exit_action());
  const at::Tensor rm_term = (terminal_exit - trajs.log_rewards).pow(2).mean();
  const at::Tensor s0 = flows.narrow(0, m + p + b, 1);
  const at::Tensor log_z =
      s0.masked_fill(env.forward_masks(env.initial_states(1)).logical_not(), kNegInf)
          .logsumexp(1)
          .reshape({})
          .detach();
  return {fm_term + alpha * rm_term, log_z};
}

at::Tensor Loss::operator()(GFlowNetModel& model, const Preprocessor& preprocessor,
                            const Environment& env, const Trajectories& trajs) const {
  return evaluate(env, trajs, model_evaluator(model, preprocessor, env), model.log_z()).loss;
}

LossValue TrajectoryBalanceLoss::evaluate(const Environment& env, const Trajectories& trajs,
                                          const StateEvaluator& evaluate,
                                          const at::Tensor& log_z) const {
  return {trajectory_balance(trajs, transition_log_probs(env, trajs, evaluate), log_z), {}};
}

LossValue LogPartitionVarianceLoss::evaluate(const Environment& env, const Trajectories& trajs,
                                             const StateEvaluator& evaluate,
                                             const at::Tensor&) const {
  return log_partition_variance(trajs, transition_log_probs(env, trajs, evaluate));
}

LossValue DetailedBalanceLoss::evaluate(const Environment& env, const Trajectories& trajs,
                                        const StateEvaluator& evaluate, const at::Tensor&) const {
  return detailed_balance(trajs, transition_log_probs(env, trajs, evaluate));
}

LossValue ModifiedDetailedBalanceLoss::evaluate(const Environment& env, const Trajectories& trajs,
                                                const StateEvaluator& evaluate,
                                                const at::Tensor&) const {
  return modified_detailed_balance(trajs, transition_log_probs(env, trajs, evaluate),
                                   env.log_reward(trajs.states));
}

SubTrajectoryBalanceLoss::SubTrajectoryBalanceLoss(SubTrajectoryWeighting weighting, double lambda)
    : weighting_(weighting), lambda_(lambda) {
  if (!(lambda > 0)) {
    throw std::invalid_argument("train.subtb_lambda must be > 0, got " + std::to_string(lambda));
  }
  if (std::string(config::enum_name(weighting)) == "?") {
    throw std::invalid_argument(
        "train.subtb_weighting: " + std::to_string(static_cast<int>(weighting)) +
        " is outside runtime/gfn/loss_kind.h's table");
  }
}

LossValue SubTrajectoryBalanceLoss::evaluate(const Environment& env, const Trajectories& trajs,
                                             const StateEvaluator& evaluate,
                                             const at::Tensor&) const {
  return sub_trajectory_balance(trajs, transition_log_probs(env, trajs, evaluate), weighting_,
                                lambda_);
}

FlowMatchingLoss::FlowMatchingLoss(double alpha) : alpha_(alpha) {
  if (!(alpha >= 0)) {
    throw std::invalid_argument("train.fm_alpha must be >= 0, got " + std::to_string(alpha));
  }
}

LossValue FlowMatchingLoss::evaluate(const Environment& env, const Trajectories& trajs,
                                     const StateEvaluator& evaluate, const at::Tensor&) const {
  return flow_matching(env, trajs, evaluate, alpha_);
}

std::unique_ptr<Loss> make_loss(const TrainOptions& train) {
  if (train.reward_exponent != 1.0 && train.loss == LossKind::kModifiedDB) {
    throw std::invalid_argument(
        "train.reward_exponent: not supported with loss modified_db (it reads the rewards of "
        "every state from the environment); use 1");
  }
  switch (train.loss) {
    case LossKind::kTB:
      return std::make_unique<TrajectoryBalanceLoss>();
    case LossKind::kZVar:
      return std::make_unique<LogPartitionVarianceLoss>();
    case LossKind::kDB:
      return std::make_unique<DetailedBalanceLoss>();
    case LossKind::kModifiedDB:
      return std::make_unique<ModifiedDetailedBalanceLoss>();
    case LossKind::kSubTB:
      return std::make_unique<SubTrajectoryBalanceLoss>(train.subtb_weighting, train.subtb_lambda);
    case LossKind::kFM:
      return std::make_unique<FlowMatchingLoss>(train.fm_alpha);
  }
  throw std::invalid_argument("train.loss: " + std::to_string(static_cast<int>(train.loss)) +
                              " is outside runtime/gfn/loss_kind.h's table");
}

std::unique_ptr<Loss> make_loss(const TrainOptions& train, const Environment& env) {
  if (train.loss == LossKind::kModifiedDB && !env.every_state_terminates()) {
    throw std::invalid_argument(
        "train.loss: \"modified_db\" needs an environment where every state can terminate "
        "(it uses R(s) and PF(exit | s) of intermediate states); env \"" +
        env.name() + "\" allows exit only in some states: use db or subtb");
  }
  return make_loss(train);
}

std::unique_ptr<Loss> make_loss(LossKind kind) {
  TrainOptions train;
  train.loss = kind;
  return make_loss(train);
}

}  // namespace gfn::core
