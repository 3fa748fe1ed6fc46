#include "runtime/gfn/fast/state_table.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <ATen/core/DistributionsHelper.h>

#include <torch/csrc/autograd/custom_function.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/gfn/categorical.h"
#include "runtime/gfn/env/environment.h"
#include "runtime/gfn/estimators.h"
#include "runtime/gfn/fast/manual_backward.h"
#include "runtime/gfn/fast/plain_loops.h"
#include "runtime/gfn/preprocessors.h"

namespace gfn::core {
namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// table_log_probs' log-probabilities with ONE autograd node (StateTable::manual_backward):
// forward (no autograd) = the masked log-softmax of both tables (same ATen ops, same
// values) and plain loops gathering each transition's entries; backward = scatter-adding
// the N gradients into [S, A] tables in a plain loop and ATen's log-softmax backward on
// the S rows (same values as autograd's). Why by hand: through autograd this is ~10 nodes (masked
// fill, log-softmax, reshape, three index_select with index_add backwards into zeros)
// for ~200 table entries; their dispatch cost more than the arithmetic.
// Inputs: pf_logits [S, A], pb_logits [S, A-1] (variables), the masks (StateSpace),
// rows [N] (state index of each transition), actions [N], pb_actions [N - B], b = B, loops
// (StateSpace::plain_loops).
// Outputs: log_pf [N], log_pf_exit [N], log_pb [N - B].
struct TableLogProbsNode : public torch::autograd::Function<TableLogProbsNode> {
  static torch::autograd::variable_list forward(
      torch::autograd::AutogradContext* ctx, const at::Tensor& pf_logits,
      const at::Tensor& pb_logits, const at::Tensor& forward_masked, const at::Tensor& pb_masked,
      const at::Tensor& rows, const at::Tensor& actions, const at::Tensor& pb_actions,
      std::int64_t b, bool loops) {
    // masked_fill_copy: masked_fill's values in one loop (plain_loops.h).
    const at::Tensor lpf =
        masked_fill_copy(pf_logits, forward_masked, kNegInf, loops).log_softmax(1);
    const at::Tensor lpb = masked_fill_copy(pb_logits, pb_masked, kNegInf, loops).log_softmax(1);
    const std::int64_t n = rows.size(0), a = lpf.size(1), a_b = lpb.size(1);
    at::Tensor log_pf = at::empty({n}, at::kFloat), exit = at::empty({n}, at::kFloat);
    at::Tensor log_pb = at::empty({n - b}, at::kFloat);
    const float* f = lpf.data_ptr<float>();
    const float* g = lpb.data_ptr<float>();
    const std::int64_t* r = rows.data_ptr<std::int64_t>();
    const std::int64_t* act = actions.data_ptr<std::int64_t>();
    const std::int64_t* pb_act = pb_actions.data_ptr<std::int64_t>();
    float* out_pf = log_pf.data_ptr<float>();
    float* out_exit = exit.data_ptr<float>();
    float* out_pb = log_pb.data_ptr<float>();
    for (std::int64_t j = 0; j < n; ++j) {
      out_pf[j] = f[r[j] * a + act[j]];
      out_exit[j] = f[r[j] * a + a - 1];
      if (j >= b) out_pb[j - b] = g[r[j] * a_b + pb_act[j - b]];
    }
    ctx->saved_data["lpf"] = lpf;
    ctx->saved_data["lpb"] = lpb;
    ctx->saved_data["rows"] = rows;
    ctx->saved_data["actions"] = actions;
    ctx->saved_data["pb_actions"] = pb_actions;
    ctx->saved_data["b"] = b;
    return {log_pf, exit, log_pb};
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grad_out) {
    const at::Tensor lpf = ctx->saved_data["lpf"].toTensor();
    const at::Tensor lpb = ctx->saved_data["lpb"].toTensor();
    const at::Tensor rows = ctx->saved_data["rows"].toTensor();
    const at::Tensor actions = ctx->saved_data["actions"].toTensor();
    const at::Tensor pb_actions = ctx->saved_data["pb_actions"].toTensor();
    const std::int64_t b = ctx->saved_data["b"].toInt();
    const std::int64_t n = rows.size(0);
    const std::int64_t* r = rows.data_ptr<std::int64_t>();
    // Scatter-add in transition order into [S, A] tables (index_select's backward,
    // index_add into zeros, has the same order), the exit entries into their own table
    // added afterwards (as autograd sums the two uses of the PF table), then ATen's own
    // log-softmax backward: bit-identical to the autograd path's gradients.
    auto scatter = [&](std::int64_t s, std::int64_t a, const at::Tensor& g_entry,
                       const std::int64_t* act, std::int64_t first, bool last_column) {
      at::Tensor grad = at::zeros({s, a}, at::kFloat);
      float* gd = grad.data_ptr<float>();
      const at::Tensor ge = g_entry.contiguous();
      const float* e = ge.data_ptr<float>();
      for (std::int64_t j = first; j < n; ++j) {
        gd[r[j] * a + (last_column ? a - 1 : act[j - first])] += e[j - first];
      }
      return grad;
    };
    auto table_grad = [&](const at::Tensor& log_sm, const at::Tensor& g_entry,
                          const std::int64_t* act, const at::Tensor& g_last, std::int64_t first) {
      const std::int64_t s = log_sm.size(0), a = log_sm.size(1);
      at::Tensor grad;
      if (g_entry.defined()) grad = scatter(s, a, g_entry, act, first, false);
      if (g_last.defined()) {
        const at::Tensor last = scatter(s, a, g_last, nullptr, 0, true);
        grad = grad.defined() ? grad.add_(last) : last;
      }
      // Masked entries: output -inf (probability 0) and never gathered, so 0 here.
      return at::_log_softmax_backward_data(grad, log_sm, 1, at::kFloat);
    };
    torch::autograd::variable_list grads(9);
    if (ctx->needs_input_grad(0) && (grad_out[0].defined() || grad_out[1].defined())) {
      grads[0] = table_grad(lpf, grad_out[0], actions.data_ptr<std::int64_t>(), grad_out[1], 0);
    }
    if (ctx->needs_input_grad(1) && grad_out[2].defined()) {
      grads[1] = table_grad(lpb, grad_out[2], pb_actions.data_ptr<std::int64_t>(), at::Tensor(), b);
    }
    return grads;
  }
};

// table_trajectory_balance's loss with ONE autograd node (StateTable::manual_backward and
// engine.fused_tb): trajectory balance (Malkin et al. 2022; losses.h "tb") from
// the two logit tables and logZ. Forward (no autograd): the masked log-softmax of both
// tables (same ATen ops as TableLogProbsNode), then plain loops: per-trajectory sums of the
// gathered log PF / log PB in transition order (index_add's order), residual
// ((logZ + sum log PF) - log R(x)) - sum log PB, loss = mean of squares (ATen's mean: same
// reduction as trajectory_balance). Backward: d residual_b = (g / B) * (2 residual_b)
// (autograd's mean and pow backward), dlogZ = sum_b d residual_b (ATen's sum, as autograd's
// sum_to), each transition scatters +d residual (PF) or -d residual (PB) of its trajectory
// into an [S, A] table in transition order, then ATen's log-softmax backward: the same
// values as trajectory_balance(table_log_probs(...)) through TableLogProbsNode.
// Replaces ~20 ATen ops and ~8 autograd nodes per iteration.
// With loops (StateSpace::plain_loops), the mean is a plain loop accumulated in double
// (equal to ATen's mean up to its last bit; the loss value only, gradients unchanged). The
// log-softmax, its backward and dlogZ's sum stay ATen's on purpose: the residuals and PB's
// two-column log-softmax gradients cancel, so libm's exp or another summation order moved
// gradients by ~3e-6 relative (tests/runtime/gfn/fast/state_table_test.cc).
// Inputs: pf_logits [S, A], pb_logits [S, A-1], log_z [] (variables), the masks
// (StateSpace), rows [N], actions [N], pb_actions [N - B], traj_index [N] (int64),
// log_rewards float32 [B], b = B, loops. Output: loss float32 [].
struct TableTrajectoryBalanceNode : public torch::autograd::Function<TableTrajectoryBalanceNode> {
  static torch::autograd::variable_list forward(
      torch::autograd::AutogradContext* ctx, const at::Tensor& pf_logits,
      const at::Tensor& pb_logits, const at::Tensor& log_z, const at::Tensor& forward_masked,
      const at::Tensor& pb_masked, const at::Tensor& rows, const at::Tensor& actions,
      const at::Tensor& pb_actions, const at::Tensor& traj_index, const at::Tensor& log_rewards,
      std::int64_t b, bool loops) {
    // masked_fill_copy: masked_fill's values in one loop (plain_loops.h).
    const at::Tensor lpf =
        masked_fill_copy(pf_logits, forward_masked, kNegInf, loops).log_softmax(1);
    const at::Tensor lpb = masked_fill_copy(pb_logits, pb_masked, kNegInf, loops).log_softmax(1);
    const std::int64_t n = rows.size(0), a = lpf.size(1), a_b = lpb.size(1);
    const float* f = lpf.data_ptr<float>();
    const float* g = lpb.data_ptr<float>();
    const std::int64_t* r = rows.data_ptr<std::int64_t>();
    const std::int64_t* act = actions.data_ptr<std::int64_t>();
    const std::int64_t* pb_act = pb_actions.data_ptr<std::int64_t>();
    const std::int64_t* t = traj_index.data_ptr<std::int64_t>();
    const float* lr = log_rewards.data_ptr<float>();
    std::vector<float> sum_pf(static_cast<std::size_t>(b), 0.0f), sum_pb(sum_pf);
    for (std::int64_t j = 0; j < n; ++j) sum_pf[t[j]] += f[r[j] * a + act[j]];
    for (std::int64_t j = b; j < n; ++j) sum_pb[t[j]] += g[r[j] * a_b + pb_act[j - b]];
    const float z = *log_z.data_ptr<float>();  // float32 [] (checked by the caller)
    at::Tensor residual = at::empty({b}, at::kFloat), squares = at::empty({b}, at::kFloat);
    float* res = residual.data_ptr<float>();
    float* sq = squares.data_ptr<float>();
    for (std::int64_t i = 0; i < b; ++i) {
      res[i] = ((z + sum_pf[i]) - lr[i]) - sum_pb[i];
      sq[i] = res[i] * res[i];
    }
    ctx->saved_data["lpf"] = lpf;
    ctx->saved_data["lpb"] = lpb;
    ctx->saved_data["rows"] = rows;
    ctx->saved_data["actions"] = actions;
    ctx->saved_data["pb_actions"] = pb_actions;
    ctx->saved_data["traj_index"] = traj_index;
    ctx->saved_data["residual"] = residual;
    ctx->saved_data["log_z_sizes"] = log_z.sizes().vec();
    ctx->saved_data["b"] = b;
    ctx->saved_data["loops"] = loops;
    if (!loops) return {squares.mean()};
    double total = 0;
    for (std::int64_t i = 0; i < b; ++i) total += sq[i];
    at::Tensor loss = at::empty({}, at::kFloat);
    *loss.data_ptr<float>() = static_cast<float>(total / static_cast<double>(b));
    return {loss};
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grad_out) {
    const at::Tensor lpf = ctx->saved_data["lpf"].toTensor();
    const at::Tensor lpb = ctx->saved_data["lpb"].toTensor();
    const at::Tensor rows = ctx->saved_data["rows"].toTensor();
    const at::Tensor actions = ctx->saved_data["actions"].toTensor();
    const at::Tensor pb_actions = ctx->saved_data["pb_actions"].toTensor();
    const at::Tensor traj_index = ctx->saved_data["traj_index"].toTensor();
    const at::Tensor residual = ctx->saved_data["residual"].toTensor();
    const std::int64_t b = ctx->saved_data["b"].toInt();
    const bool loops = ctx->saved_data["loops"].toBool();
    const std::int64_t n = rows.size(0);
    const float gm = *grad_out[0].contiguous().data_ptr<float>() / static_cast<float>(b);
    at::Tensor d_res = at::empty({b}, at::kFloat);
    float* d = d_res.data_ptr<float>();
    const float* res = residual.data_ptr<float>();
    for (std::int64_t i = 0; i < b; ++i) d[i] = gm * (2.0f * res[i]);
    const std::int64_t* r = rows.data_ptr<std::int64_t>();
    const std::int64_t* t = traj_index.data_ptr<std::int64_t>();
    auto table_grad = [&](const at::Tensor& log_sm, const std::int64_t* act, std::int64_t first,
                          float sign) {
      const std::int64_t s = log_sm.size(0), a = log_sm.size(1);
      at::Tensor grad = zeros_float(s, a, loops);  // at::zeros' values, one dispatch less
      float* gd = grad.data_ptr<float>();
      for (std::int64_t j = first; j < n; ++j) gd[r[j] * a + act[j - first]] += sign * d[t[j]];
      // Masked entries: output -inf (probability 0) and never gathered, so 0 here.
      return at::_log_softmax_backward_data(grad, log_sm, 1, at::kFloat);
    };
    torch::autograd::variable_list grads(12);
    if (ctx->needs_input_grad(0)) {
      grads[0] = table_grad(lpf, actions.data_ptr<std::int64_t>(), 0, 1.0f);
    }
    if (ctx->needs_input_grad(1)) {
      grads[1] = table_grad(lpb, pb_actions.data_ptr<std::int64_t>(), b, -1.0f);
    }
    if (ctx->needs_input_grad(2)) {
      grads[2] = d_res.sum().reshape(ctx->saved_data["log_z_sizes"].toIntVector());
    }
    return grads;
  }
};

}  // namespace

bool state_table_enabled(const Environment& env, StateTableMode mode) {
  if (mode == StateTableMode::kOff) return false;
  return env.enumerable() && env.n_states() <= kStateTableMaxStates;
}

StateSpace::StateSpace(const Environment& e, const Preprocessor& preprocessor, bool loops)
    : env(e), plain_loops(loops) {
  at::NoGradGuard no_grad;
  const at::Tensor& all = env.all_states();  // throws std::domain_error if not enumerable
  n_states = all.size(0);
  n_actions = env.n_actions();
  inputs = preprocessor(all);
  forward_masks = env.forward_masks(all);
  forward_masked = forward_masks.logical_not();
  const at::Tensor backward_masks = env.backward_masks(all);
  const at::Tensor has_parent = backward_masks.any(1);
  // Rows without a parent: nothing masked (finite, never gathered).
  pb_masked = backward_masks.logical_not().logical_and_(has_parent.unsqueeze(1));
  const at::Tensor can_exit = at::nonzero(forward_masks.select(1, n_actions - 1)).squeeze(1);
  log_rewards = at::full({n_states}, std::numeric_limits<float>::quiet_NaN(), at::kFloat);
  log_rewards.index_copy_(0, can_exit, env.log_reward(all.index_select(0, can_exit)));
  s0 = env.state_indices(env.initial_states(1)).item<std::int64_t>();
  states = all.contiguous();
  // A linear state index (StateSpace::state_indices): the weight of dimension k is the index
  // step from s0 to s0 + e_k (when that is a state); kept only if it holds on every state.
  if (states.scalar_type() == at::kLong && states.dim() == 2 && n_states > 0) {
    const std::int64_t d = states.size(1);
    const std::int64_t* st = states.data_ptr<std::int64_t>();
    const std::int64_t* base = st + s0 * d;
    std::vector<std::int64_t> w(static_cast<std::size_t>(d), 0);
    bool linear = true;
    for (std::int64_t k = 0; k < d && linear; ++k) {
      std::int64_t found = -1;
      for (std::int64_t r = 0; r < n_states && found < 0; ++r) {
        bool match = true;
        for (std::int64_t j = 0; j < d && match; ++j) match = st[r * d + j] == base[j] + (j == k);
        if (match) found = r;
      }
      linear = found >= 0;
      w[static_cast<std::size_t>(k)] = found - s0;
    }
    std::int64_t offset = s0;
    for (std::int64_t k = 0; k < d; ++k) offset -= base[k] * w[static_cast<std::size_t>(k)];
    for (std::int64_t r = 0; r < n_states && linear; ++r) {
      std::int64_t idx = offset;
      for (std::int64_t k = 0; k < d; ++k) idx += st[r * d + k] * w[static_cast<std::size_t>(k)];
      linear = idx == r;
    }
    if (linear) {
      index_weights_ = std::move(w);
      index_offset_ = offset;
    }
  }
  const StateGraph& g = env.state_graph();
  child.assign(static_cast<std::size_t>(n_states * n_actions), -1);
  for (std::int64_t s = 0; s < n_states; ++s) {
    for (std::int64_t e = g.edge_begin[s]; e < g.edge_begin[s + 1]; ++e) {
      child[static_cast<std::size_t>(s * n_actions + g.edge_action[e])] = g.edge_child[e];
    }
  }
}

at::Tensor StateSpace::state_indices(const at::Tensor& x) const {
  if (index_weights_.empty() || !plain_loops || !x.defined() || x.scalar_type() != at::kLong ||
      x.dim() != 2 || x.size(1) != states.size(1) || !x.device().is_cpu()) {
    return env.state_indices(x);
  }
  const at::Tensor xc = x.contiguous();
  const std::int64_t n = xc.size(0), d = xc.size(1);
  const std::int64_t* xs = xc.data_ptr<std::int64_t>();
  const std::int64_t* st = states.data_ptr<std::int64_t>();
  at::Tensor out = at::empty({n}, at::kLong);
  std::int64_t* o = out.data_ptr<std::int64_t>();
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t* s = xs + i * d;
    std::int64_t r = index_offset_;
    for (std::int64_t k = 0; k < d; ++k) r += s[k] * index_weights_[static_cast<std::size_t>(k)];
    // The state must be row r of the table (also rejects states outside the environment).
    if (r < 0 || r >= n_states || std::memcmp(st + r * d, s, d * sizeof(std::int64_t)) != 0) {
      return env.state_indices(x);
    }
    o[i] = r;
  }
  return out;
}

at::Tensor StateSpace::gather_states(const std::vector<std::int64_t>& rows) const {
  const std::int64_t d = states.size(1), n = static_cast<std::int64_t>(rows.size());
  at::Tensor out = at::empty({n, d}, at::kLong);
  std::int64_t* o = out.data_ptr<std::int64_t>();
  const std::int64_t* st = states.data_ptr<std::int64_t>();
  for (std::int64_t i = 0; i < n; ++i) {
    std::memcpy(o + i * d, st + rows[static_cast<std::size_t>(i)] * d, d * sizeof(std::int64_t));
  }
  return out;
}

StateTable evaluate_state_table(GFlowNetModel& model, const StateSpace& space,
                                const SamplerOptions& options, bool manual_backward) {
  const PolicyOutputs out =
      manual_backward ? forward_manual_backward(model, space.inputs, /*write_leaf_grads=*/true,
                                                MlpKernels{space.plain_loops, space.bf16_gemms})
                      : model.forward(space.inputs, 0);
  StateTable table;
  table.manual_backward = manual_backward;
  table.outputs.pf_logits = out.pf_logits;
  table.outputs.pb_logits = out.pb_logits;
  table.outputs.log_flow = out.log_flow;
  at::NoGradGuard no_grad;
  // On-policy: action_probabilities' ops with the inverted masks of the StateSpace (one
  // logical_not less per iteration), same values; the masked fill as one loop
  // (masked_fill_copy, plain_loops.h: detach + masked_fill's values).
  table.probs =
      options.temperature == 1.0 && !(options.epsilon > 0.0)
          ? masked_fill_copy(out.pf_logits, space.forward_masked, kNegInf, space.plain_loops)
                .softmax(1)
          : action_probabilities(out.pf_logits.detach(), space.forward_masks, options).contiguous();
  return table;
}

StateEvaluator table_evaluator(const StateTable& table, const StateSpace& space) {
  return [&table, &space](const at::Tensor& states, bool with_pb) {
    // index_select's backward scatters each row's gradient back to its table row, so
    // gradients equal those of evaluating the rows themselves.
    const at::Tensor rows = space.state_indices(states);
    StateOutputs s;
    s.pf_logits = table.outputs.pf_logits.index_select(0, rows);
    if (with_pb) s.pb_logits = table.outputs.pb_logits.index_select(0, rows);
    if (table.outputs.log_flow.defined()) s.log_flow = table.outputs.log_flow.index_select(0, rows);
    return s;
  };
}

PolicyFunction table_backward_policy(const StateTable& table, const StateSpace& space) {
  return [&table, &space](const at::Tensor& states) {
    return table.outputs.pb_logits.detach().index_select(0, space.state_indices(states));
  };
}

PolicyFunction table_forward_policy(const StateTable& table, const StateSpace& space) {
  return [&table, &space](const at::Tensor& states) {
    return table.outputs.pf_logits.detach().index_select(0, space.state_indices(states));
  };
}

TransitionLogProbs table_log_probs(const StateTable& table, const StateSpace& space,
                                   const Trajectories& trajs) {
  const std::int64_t b = trajs.n_trajectories, n = trajs.n_transitions();
  const std::int64_t n_actions = space.n_actions, n_back = n_actions - 1;
  if (!trajs.actions.defined() || n < b || !trajs.pb_actions.defined() ||
      trajs.pb_actions.size(0) != n - b) {
    throw std::invalid_argument("table_log_probs: trajectories without recorded transitions");
  }
  const at::Tensor rows = space.state_indices(trajs.states);  // [N]
  TransitionLogProbs lp;
  if (table.manual_backward) {
    if (rows.scalar_type() != at::kLong || trajs.actions.scalar_type() != at::kLong ||
        trajs.pb_actions.scalar_type() != at::kLong) {
      throw std::invalid_argument("table_log_probs: state indices and actions must be int64");
    }
    const at::Tensor actions = trajs.actions.contiguous(),
                     pb_actions = trajs.pb_actions.contiguous();
    const auto out = TableLogProbsNode::apply(
        table.outputs.pf_logits, table.outputs.pb_logits, space.forward_masked, space.pb_masked,
        rows.contiguous(), actions, pb_actions, b, space.plain_loops);
    lp.log_pf = out[0];
    lp.log_pf_exit = out[1];
    lp.log_pb = out[2];
    if (table.outputs.log_flow.defined()) {
      lp.log_flow = table.outputs.log_flow.index_select(0, rows);
    }
    return lp;
  }
  // Log-softmax per table row, then one gather per transition at row * width + action
  // (masks inverted once, in StateSpace).
  const at::Tensor log_pf_table =
      table.outputs.pf_logits.masked_fill(space.forward_masked, kNegInf).log_softmax(1);
  // s0 has no backward action: an all-masked row would be NaN (and NaN gradients), so
  // pb_masked leaves it unmasked; it is never gathered (every child of a transition has
  // a parent), so its gradient is exactly 0.
  const at::Tensor log_pb_table =
      table.outputs.pb_logits.masked_fill(space.pb_masked, kNegInf).log_softmax(1);
  lp.log_pf = log_pf_table.reshape({-1}).index_select(0, rows * n_actions + trajs.actions);
  lp.log_pf_exit = log_pf_table.select(1, n_actions - 1).index_select(0, rows);
  lp.log_pb = log_pb_table.reshape({-1}).index_select(
      0, rows.narrow(0, b, n - b) * n_back + trajs.pb_actions);
  if (table.outputs.log_flow.defined()) lp.log_flow = table.outputs.log_flow.index_select(0, rows);
  return lp;
}

at::Tensor table_trajectory_balance(const StateTable& table, const StateSpace& space,
                                    const Trajectories& trajs, const at::Tensor& log_z,
                                    bool fused) {
  if (!(fused && table.manual_backward)) {
    return trajectory_balance(trajs, table_log_probs(table, space, trajs), log_z);
  }
  const std::int64_t b = trajs.n_trajectories, n = trajs.n_transitions();
  if (b < 1 || !trajs.actions.defined() || n < b || !trajs.pb_actions.defined() ||
      trajs.pb_actions.size(0) != n - b || !trajs.traj_index.defined() ||
      trajs.traj_index.dim() != 1 || trajs.traj_index.size(0) != n ||
      !trajs.log_rewards.defined() || trajs.log_rewards.dim() != 1 ||
      trajs.log_rewards.size(0) != b) {
    throw std::invalid_argument(
        "table_trajectory_balance: need B >= 1 trajectories with recorded transitions, "
        "traj_index [N] and log_rewards [B]");
  }
  if (!log_z.defined() || log_z.numel() != 1 || log_z.scalar_type() != at::kFloat) {
    throw std::invalid_argument("table_trajectory_balance: log_z must be a float32 scalar");
  }
  const at::Tensor rows = space.state_indices(trajs.states);  // [N]
  if (rows.scalar_type() != at::kLong || trajs.actions.scalar_type() != at::kLong ||
      trajs.pb_actions.scalar_type() != at::kLong || trajs.traj_index.scalar_type() != at::kLong) {
    throw std::invalid_argument(
        "table_trajectory_balance: state indices, actions and traj_index must be int64");
  }
  if (trajs.log_rewards.scalar_type() != at::kFloat) {
    throw std::invalid_argument("table_trajectory_balance: log_rewards must be float32");
  }
  return TableTrajectoryBalanceNode::apply(
      table.outputs.pf_logits, table.outputs.pb_logits, log_z, space.forward_masked,
      space.pb_masked, rows.contiguous(), trajs.actions.contiguous(), trajs.pb_actions.contiguous(),
      trajs.traj_index.contiguous(), trajs.log_rewards.contiguous(), b, space.plain_loops)[0];
}

Trajectories sample_trajectories_from_table(const StateSpace& space, const at::Tensor& probs,
                                            std::int64_t n, const SamplerOptions& options,
                                            at::Generator& generator) {
  if (n < 0) {
    throw std::invalid_argument("sample_trajectories_from_table: n must be >= 0, got " +
                                std::to_string(n));
  }
  const std::int64_t n_actions = space.n_actions, exit = n_actions - 1;
  if (!probs.defined() || probs.dim() != 2 || probs.size(0) != space.n_states ||
      probs.size(1) != n_actions || probs.scalar_type() != at::kFloat) {
    throw std::invalid_argument("sample_trajectories_from_table: probs must be float32 [" +
                                std::to_string(space.n_states) + ", " + std::to_string(n_actions) +
                                "]");
  }
  at::NoGradGuard no_grad;
  const at::Tensor p_contig = probs.contiguous();
  const float* p = p_contig.data_ptr<float>();

  // The running trajectories, in increasing trajectory order (as sample_trajectories):
  // trajectory id, state index, and the action that led into the state.
  std::vector<std::int64_t> ids(n), index(n, space.s0), led(n, -1);
  for (std::int64_t i = 0; i < n; ++i) ids[i] = i;
  std::vector<std::int64_t> lengths(n, 0), terminal(n, space.s0);
  std::vector<std::int64_t> rec_rows, rec_actions, rec_ids, rec_pb;
  // The next step's running trajectories; swapped with ids/index/led after each step, so
  // both sets of buffers keep their capacity (no allocation per step).
  std::vector<std::int64_t> next_ids, next_index, next_led;
  next_ids.reserve(n), next_index.reserve(n), next_led.reserve(n);
  const bool record = options.record_transitions;
  ExponentialDraws draws(generator);

  while (!ids.empty()) {
    const auto m = static_cast<std::int64_t>(ids.size());
    // The draws of at::multinomial(probs_of_these_rows, 1): q ~ Exp(1) of shape [m, A],
    // action = argmax_a p[a] / q[a] (first maximum, like at::argmax).
    const float* qd = draws.next(m * n_actions);
    next_ids.clear(), next_index.clear(), next_led.clear();
    for (std::int64_t i = 0; i < m; ++i) {
      const std::int64_t action =
          race_winner(p + index[i] * n_actions, qd + i * n_actions, n_actions);
      const std::int64_t id = ids[i];
      ++lengths[id];
      if (record) {
        rec_rows.push_back(index[i]);
        rec_actions.push_back(action);
        rec_ids.push_back(id);
        if (led[i] >= 0) rec_pb.push_back(led[i]);
      }
      if (action == exit) {
        terminal[id] = index[i];
        continue;
      }
      const std::int64_t next =
          space.child[static_cast<std::size_t>(index[i] * n_actions + action)];
      if (next < 0) {
        throw std::logic_error("sample_trajectories_from_table: probs select a masked action " +
                               std::to_string(action) + " in state " + std::to_string(index[i]));
      }
      next_ids.push_back(id);
      next_index.push_back(next);
      next_led.push_back(action);
    }
    ids.swap(next_ids), index.swap(next_index), led.swap(next_led);
  }

  Trajectories out;
  out.n_trajectories = n;
  out.lengths = long_tensor(lengths);
  // Rows of the state table gathered by plain loops (same values as index_select; ~4 ATen
  // ops less per batch), unless !space.plain_loops or the table is not int64.
  if (space.plain_loops && space.states.scalar_type() == at::kLong) {
    out.terminating_states = space.gather_states(terminal);
    if (record) out.states = space.gather_states(rec_rows);
    // The table of log_reward (StateSpace): same values, without log_reward's checks.
    out.log_rewards = at::empty({n}, at::kFloat);
    const at::Tensor lr_table = space.log_rewards.contiguous();
    const float* lr = lr_table.data_ptr<float>();
    float* olr = out.log_rewards.data_ptr<float>();
    for (std::int64_t i = 0; i < n; ++i) olr[i] = lr[terminal[static_cast<std::size_t>(i)]];
  } else {
    const at::Tensor& all = space.env.all_states();
    const at::Tensor terminal_rows = long_tensor(terminal);
    out.terminating_states = all.index_select(0, terminal_rows);
    if (record) out.states = all.index_select(0, long_tensor(rec_rows));
    out.log_rewards = space.log_rewards.index_select(0, terminal_rows);
  }
  if (record) {
    out.actions = long_tensor(rec_actions);
    out.traj_index = long_tensor(rec_ids);
    out.pb_actions = long_tensor(rec_pb);
  }
  return out;
}

}  // namespace gfn::core
