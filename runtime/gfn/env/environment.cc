#include "runtime/gfn/env/environment.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <stdexcept>
#include <utility>
#include <vector>

#include "runtime/gfn/env/row_dynamics.h"

namespace gfn::core {
namespace {

// States per chunk when building the state graph (bounds the temporary memory:
// chunk * n_actions child rows).
constexpr std::int64_t kGraphChunk = 1 << 15;

void check_actions(const Environment& env, const at::Tensor& states, const at::Tensor& actions,
                   std::int64_t n_allowed, const char* who) {
  if (!actions.defined() || actions.dim() != 1 || actions.size(0) != states.size(0) ||
      actions.scalar_type() != at::kLong) {
    throw std::invalid_argument(env.name() + "::" + who + ": actions must be int64 [" +
                                std::to_string(states.size(0)) + "]");
  }
  if (actions.numel() == 0) return;
  if (actions.min().item<std::int64_t>() < 0 || actions.max().item<std::int64_t>() >= n_allowed) {
    throw std::invalid_argument(env.name() + "::" + who + ": actions must be in [0, " +
                                std::to_string(n_allowed - 1) +
                                "] (exit is not a transition between states)");
  }
}

}  // namespace

std::string shape_string(const at::Tensor& t) {
  std::string s = "[";
  for (int64_t i = 0; i < t.dim(); ++i) s += (i ? ", " : "") + std::to_string(t.size(i));
  return s + "]";
}

at::Tensor Environment::reward(const at::Tensor& states) const { return log_reward(states).exp(); }

EnvironmentDescription Environment::describe() const { return {name(), options_}; }

void Environment::check_states(const at::Tensor& states, const char* who) const {
  if (!states.defined() || states.dim() != 2 || states.size(1) != state_dim() ||
      states.scalar_type() != at::kLong) {
    throw std::invalid_argument(name() + "::" + who + ": states must be int64 [B, " +
                                std::to_string(state_dim()) + "], got " +
                                (states.defined() ? shape_string(states) : "undefined"));
  }
}

at::Tensor Environment::step(const at::Tensor& states, const at::Tensor& actions) const {
  check_states(states, "step");
  check_actions(*this, states, actions, exit_action(), "step");
  if (actions.numel() == 0) return states.clone();
  const bool allowed =
      forward_masks(states).gather(1, actions.view({-1, 1})).squeeze(1).all().item<bool>();
  if (!allowed) {
    throw std::invalid_argument(name() + "::step: a masked (disallowed) forward action");
  }
  return step_unchecked(states, actions);
}

at::Tensor Environment::backward_step(const at::Tensor& states, const at::Tensor& actions) const {
  check_states(states, "backward_step");
  check_actions(*this, states, actions, n_backward_actions(), "backward_step");
  if (actions.numel() == 0) return states.clone();
  const bool allowed =
      backward_masks(states).gather(1, actions.view({-1, 1})).squeeze(1).all().item<bool>();
  if (!allowed) {
    throw std::invalid_argument(name() + "::backward_step: a masked (disallowed) backward action");
  }
  return backward_step_unchecked(states, actions);
}

at::Tensor Environment::can_terminate(const at::Tensor& states) const {
  return forward_masks(states).select(1, exit_action());
}

at::Tensor Environment::is_initial(const at::Tensor& states) const {
  return states.eq(initial_states(1)).all(1);
}

UniqueStates Environment::unique(const at::Tensor& states) const {
  const RowDynamics* dynamics = row_dynamics();
  if (dynamics == nullptr || states.scalar_type() != at::kLong || states.dim() != 2 ||
      states.size(1) != state_dim()) {
    const auto [values, inverse, counts] =
        at::unique_dim(states, 0, /*sorted=*/true, /*return_inverse=*/true);
    return {values, inverse};
  }
  // One sort of (key, row) pairs: ~5 ATen calls fewer than a 1-D _unique2 of an index.
  const at::Tensor s = states.contiguous();
  const std::int64_t n = s.size(0), d = s.size(1);
  const std::int64_t* rows = s.data_ptr<std::int64_t>();
  at::Tensor inverse = at::empty({n}, at::kLong);
  std::vector<std::pair<std::int64_t, std::int64_t>> keyed;
  std::vector<std::int64_t> first;
  group_rows(*dynamics, rows, n, d, keyed, first, inverse.data_ptr<std::int64_t>());
  at::Tensor distinct = at::empty({static_cast<std::int64_t>(first.size()), d}, at::kLong);
  std::int64_t* out = distinct.data_ptr<std::int64_t>();
  for (std::size_t k = 0; k < first.size(); ++k) {
    std::copy_n(rows + first[k] * d, d, out + static_cast<std::int64_t>(k) * d);
  }
  return {distinct, inverse};
}

void Environment::not_enumerable(const char* what) const {
  throw std::domain_error(name() + "::" + what + ": the state space is not enumerable");
}

std::int64_t Environment::n_states() const { not_enumerable("n_states"); }
const at::Tensor& Environment::all_states() const { not_enumerable("all_states"); }
at::Tensor Environment::state_indices(const at::Tensor&) const { not_enumerable("state_indices"); }
std::int64_t Environment::n_terminating_states() const { not_enumerable("n_terminating_states"); }
const at::Tensor& Environment::terminating_states() const { not_enumerable("terminating_states"); }
at::Tensor Environment::terminating_state_indices(const at::Tensor&) const {
  not_enumerable("terminating_state_indices");
}
const at::Tensor& Environment::true_distribution() const { not_enumerable("true_distribution"); }
double Environment::log_partition() const { not_enumerable("log_partition"); }

at::Tensor Environment::is_mode(const at::Tensor& states) const {
  return at::zeros({states.size(0)}, at::kBool);
}

at::Tensor Environment::mode_hits(const at::Tensor&) const { return at::empty({0}, at::kLong); }

const StateGraph& Environment::state_graph() const {
  std::call_once(graph_once_, [this] {
    if (!enumerable()) not_enumerable("state_graph");
    at::NoGradGuard no_grad;
    const at::Tensor& all = all_states();
    const std::int64_t s = all.size(0);
    auto g = std::make_unique<StateGraph>();
    g->edge_begin.assign(1, 0);
    g->terminal_index.assign(s, -1);
    for (std::int64_t lo = 0; lo < s; lo += kGraphChunk) {
      const std::int64_t len = std::min(kGraphChunk, s - lo);
      const at::Tensor chunk = all.narrow(0, lo, len);
      const at::Tensor masks = forward_masks(chunk);
      // (row, action) pairs of allowed non-exit actions, row-major: sorted by parent
      // then action, which is the CSR order.
      const at::Tensor pairs = at::nonzero(masks.narrow(1, 0, exit_action()));
      const at::Tensor rows = pairs.select(1, 0).contiguous();
      const at::Tensor actions = pairs.select(1, 1).contiguous();
      const at::Tensor children =
          state_indices(step_unchecked(chunk.index_select(0, rows), actions)).contiguous();
      const at::Tensor counts = at::bincount(rows, {}, len).contiguous();
      const auto* c = counts.data_ptr<std::int64_t>();
      for (std::int64_t i = 0; i < len; ++i) g->edge_begin.push_back(g->edge_begin.back() + c[i]);
      const auto* ch = children.data_ptr<std::int64_t>();
      const auto* ac = actions.data_ptr<std::int64_t>();
      g->edge_child.insert(g->edge_child.end(), ch, ch + children.numel());
      g->edge_action.insert(g->edge_action.end(), ac, ac + actions.numel());
      const at::Tensor exits = at::nonzero(masks.select(1, exit_action())).squeeze(1);
      if (exits.numel() > 0) {
        const at::Tensor term =
            terminating_state_indices(chunk.index_select(0, exits)).contiguous();
        const at::Tensor where = exits.contiguous();
        for (std::int64_t k = 0; k < exits.numel(); ++k) {
          g->terminal_index[lo + where.data_ptr<std::int64_t>()[k]] =
              term.data_ptr<std::int64_t>()[k];
        }
      }
    }
    // The DP of validation pushes flow in index order: every child must come after
    // its parent (all_states() is a topological order).
    for (std::int64_t p = 0; p < s; ++p) {
      for (std::int64_t e = g->edge_begin[p]; e < g->edge_begin[p + 1]; ++e) {
        if (g->edge_child[e] <= p || g->edge_child[e] >= s) {
          throw std::logic_error(name() +
                                 "::state_graph: all_states() is not a topological order "
                                 "(a child index is not after its parent)");
        }
      }
    }
    graph_ = std::move(g);
  });
  return *graph_;
}

}  // namespace gfn::core
