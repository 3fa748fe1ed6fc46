#include "runtime/gfn/trajectory_ops.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "runtime/gfn/env/environment.h"
#include "runtime/gfn/losses.h"

namespace gfn::core {
namespace {

void require_transitions(const Trajectories& t, const char* who) {
  if (t.n_trajectories > 0 &&
      (!t.actions.defined() || !t.pb_actions.defined() || !t.traj_index.defined())) {
    throw std::invalid_argument(std::string(who) + ": trajectories without recorded transitions");
  }
}

// int64 [N]: the forward action that led into each row (-1 on the s0 rows [0, B)).
at::Tensor incoming_actions(const Trajectories& t) {
  return at::cat({at::full({t.n_trajectories}, -1, at::kLong), t.pb_actions});
}

Trajectories empty_like_batch(std::int64_t state_dim) {
  Trajectories t;
  t.states = at::empty({0, state_dim}, at::kLong);
  t.actions = at::empty({0}, at::kLong);
  t.traj_index = at::empty({0}, at::kLong);
  t.pb_actions = at::empty({0}, at::kLong);
  t.lengths = at::empty({0}, at::kLong);
  t.terminating_states = at::empty({0, state_dim}, at::kLong);
  t.log_rewards = at::empty({0}, at::kFloat);
  return t;
}

}  // namespace

void pack_trajectories(const Trajectories& trajs, buffer::PackedTrajectories& out) {
  require_transitions(trajs, "pack_trajectories");
  const std::int64_t b = trajs.n_trajectories;
  if (b == 0) return;
  const at::Tensor len = trajs.lengths.contiguous().to(at::kLong);
  const at::Tensor act = trajs.actions.contiguous().to(at::kLong);
  const at::Tensor idx = trajs.traj_index.contiguous().to(at::kLong);
  const std::int64_t* lp = len.data_ptr<std::int64_t>();
  const std::size_t base = out.actions.size();
  std::vector<std::size_t> next(static_cast<std::size_t>(b));  // where each one's next action goes
  std::size_t total = 0;
  for (std::int64_t i = 0; i < b; ++i) {
    next[static_cast<std::size_t>(i)] = base + total;
    total += static_cast<std::size_t>(lp[i]);
  }
  if (total != static_cast<std::size_t>(act.numel()) || idx.numel() != act.numel()) {
    throw std::invalid_argument("pack_trajectories: lengths add up to " + std::to_string(total) +
                                " but the batch has " + std::to_string(act.numel()) +
                                " transitions");
  }
  for (std::int64_t i = 0; i < b; ++i) out.lengths.push_back(static_cast<std::int32_t>(lp[i]));
  out.actions.resize(base + total);
  const std::int64_t* ap = act.data_ptr<std::int64_t>();
  const std::int64_t* ip = idx.data_ptr<std::int64_t>();
  // Step-major layout: the rows of one trajectory appear in step order.
  for (std::int64_t row = 0; row < act.numel(); ++row) {
    out.actions[next[static_cast<std::size_t>(ip[row])]++] = ap[row];
  }
}

buffer::PackedTrajectories pack_trajectories(const Trajectories& trajs) {
  buffer::PackedTrajectories out;
  pack_trajectories(trajs, out);
  return out;
}

Trajectories trajectories_from_actions(const Environment& env,
                                       const buffer::PackedTrajectories& sequences,
                                       const at::Tensor& log_rewards) {
  const std::int64_t b = sequences.size();
  const std::int64_t exit = env.exit_action();
  // The layout's own checks (lengths >= 1, actions in range, exit last and only there).
  buffer::check_packed_trajectories(sequences, b, env.n_actions(), /*allow_missing=*/false,
                                    "trajectories_from_actions");
  const std::vector<std::size_t> start = sequences.offsets();
  // Trajectory i's action at step t.
  const auto action = [&](std::int64_t i, std::int64_t t) {
    return sequences.actions[start[static_cast<std::size_t>(i)] + static_cast<std::size_t>(t)];
  };
  if (log_rewards.defined() && (log_rewards.dim() != 1 || log_rewards.size(0) != b)) {
    throw std::invalid_argument("trajectories_from_actions: log_rewards must be [" +
                                std::to_string(b) + "], got " + shape_string(log_rewards));
  }
  if (b == 0) return empty_like_batch(env.state_dim());

  Trajectories out;
  out.n_trajectories = b;
  std::vector<std::int64_t> lengths(sequences.lengths.begin(), sequences.lengths.end());
  out.lengths = at::tensor(lengths, at::kLong);
  out.terminating_states = at::empty({b, env.state_dim()}, at::kLong);

  std::vector<at::Tensor> rec_states, rec_actions, rec_ids, rec_pb;
  std::vector<std::int64_t> active(static_cast<std::size_t>(b));
  for (std::int64_t i = 0; i < b; ++i) active[static_cast<std::size_t>(i)] = i;
  at::Tensor states = env.initial_states(b);
  for (std::int64_t t = 0; !active.empty(); ++t) {
    std::vector<std::int64_t> acts, prev, next_pos, next_ids, done_pos, done_ids;
    for (std::size_t p = 0; p < active.size(); ++p) {
      const std::int64_t a = action(active[p], t);
      acts.push_back(a);
      if (t > 0) prev.push_back(action(active[p], t - 1));
      if (a == exit) {
        done_pos.push_back(static_cast<std::int64_t>(p));
        done_ids.push_back(active[p]);
      } else {
        next_pos.push_back(static_cast<std::int64_t>(p));
        next_ids.push_back(active[p]);
      }
    }
    const at::Tensor ids_t = at::tensor(active, at::kLong);
    const at::Tensor acts_t = at::tensor(acts, at::kLong);
    rec_states.push_back(states);
    rec_actions.push_back(acts_t);
    rec_ids.push_back(ids_t);
    if (t > 0) rec_pb.push_back(at::tensor(prev, at::kLong));
    if (!done_pos.empty()) {
      const at::Tensor finals = states.index_select(0, at::tensor(done_pos, at::kLong));
      const at::Tensor ok = env.can_terminate(finals);
      if (!ok.all().item<bool>()) {
        const auto bad = done_ids[static_cast<std::size_t>(
            at::nonzero(ok.logical_not()).select(1, 0)[0].item<std::int64_t>())];
        throw std::invalid_argument("trajectories_from_actions: trajectory " + std::to_string(bad) +
                                    " exits in a state that cannot terminate");
      }
      out.terminating_states.index_copy_(0, at::tensor(done_ids, at::kLong), finals);
    }
    if (next_pos.empty()) break;
    const at::Tensor sel = at::tensor(next_pos, at::kLong);
    try {
      states = env.step(states.index_select(0, sel), acts_t.index_select(0, sel));
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("trajectories_from_actions: step " + std::to_string(t) + ": " +
                                  e.what());
    }
    active = std::move(next_ids);
  }
  out.states = at::cat(rec_states);
  out.actions = at::cat(rec_actions);
  out.traj_index = at::cat(rec_ids);
  out.pb_actions = rec_pb.empty() ? at::empty({0}, at::kLong) : at::cat(rec_pb);
  out.log_rewards = log_rewards.defined() ? log_rewards.to(at::kFloat).contiguous()
                                          : env.log_reward(out.terminating_states);
  return out;
}

Trajectories take_trajectories(const Trajectories& trajs, std::int64_t k) {
  require_transitions(trajs, "take_trajectories");
  if (k < 0 || k > trajs.n_trajectories) {
    throw std::invalid_argument("take_trajectories: k = " + std::to_string(k) + " not in [0, " +
                                std::to_string(trajs.n_trajectories) + "]");
  }
  if (k == trajs.n_trajectories) return trajs;
  // Rows of trajectories < k keep their order, which stays step-major, and their indices.
  const at::Tensor rows = at::nonzero(trajs.traj_index < k).squeeze(1);
  Trajectories out;
  out.n_trajectories = k;
  out.states = trajs.states.index_select(0, rows);
  out.actions = trajs.actions.index_select(0, rows);
  out.traj_index = trajs.traj_index.index_select(0, rows);
  out.pb_actions = incoming_actions(trajs).index_select(0, rows).narrow(0, k, rows.numel() - k);
  out.lengths = trajs.lengths.narrow(0, 0, k);
  out.terminating_states = trajs.terminating_states.narrow(0, 0, k);
  out.log_rewards = trajs.log_rewards.narrow(0, 0, k);
  // Saved outputs follow their rows (index_select keeps the autograd graph).
  auto rows_of = [&rows](const at::Tensor& t) {
    return t.defined() ? t.index_select(0, rows) : at::Tensor();
  };
  out.saved_pf_logits = rows_of(trajs.saved_pf_logits);
  out.saved_pb_logits = rows_of(trajs.saved_pb_logits);
  out.saved_log_flow = rows_of(trajs.saved_log_flow);
  return out;
}

Trajectories concat_trajectories(const Trajectories& a, const Trajectories& b) {
  require_transitions(a, "concat_trajectories");
  require_transitions(b, "concat_trajectories");
  if (b.n_trajectories == 0) return a;
  if (a.n_trajectories == 0) return b;
  if (a.states.size(1) != b.states.size(1)) {
    throw std::invalid_argument("concat_trajectories: state widths differ: " +
                                shape_string(a.states) + " and " + shape_string(b.states));
  }
  const std::int64_t ba = a.n_trajectories;
  const std::int64_t total = ba + b.n_trajectories;
  const at::Tensor steps = at::cat({trajectory_layout(a).steps, trajectory_layout(b).steps});
  const at::Tensor ids = at::cat({a.traj_index, b.traj_index + ba});
  // Step-major order: by step, then by trajectory (the sampler's order).
  const at::Tensor order = std::get<1>(at::sort(steps * total + ids));
  Trajectories out;
  out.n_trajectories = total;
  out.states = at::cat({a.states, b.states}).index_select(0, order);
  out.actions = at::cat({a.actions, b.actions}).index_select(0, order);
  out.traj_index = ids.index_select(0, order);
  const at::Tensor incoming =
      at::cat({incoming_actions(a), incoming_actions(b)}).index_select(0, order);
  out.pb_actions = incoming.narrow(0, total, incoming.size(0) - total).contiguous();
  out.lengths = at::cat({a.lengths, b.lengths});
  out.terminating_states = at::cat({a.terminating_states, b.terminating_states});
  out.log_rewards = at::cat({a.log_rewards.to(at::kFloat), b.log_rewards.to(at::kFloat)});
  // Saved outputs survive only when both parts have them (else the loss recomputes all).
  auto both = [&order](const at::Tensor& x, const at::Tensor& y) {
    return x.defined() && y.defined() ? at::cat({x, y}).index_select(0, order) : at::Tensor();
  };
  out.saved_pf_logits = both(a.saved_pf_logits, b.saved_pf_logits);
  if (out.saved_pf_logits.defined()) {
    out.saved_pb_logits = both(a.saved_pb_logits, b.saved_pb_logits);
    out.saved_log_flow = both(a.saved_log_flow, b.saved_log_flow);
  }
  return out;
}

}  // namespace gfn::core
