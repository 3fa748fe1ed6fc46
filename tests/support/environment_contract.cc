#include "tests/support/environment_contract.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>

#include <optional>
#include <vector>

#include "runtime/gfn/env/row_dynamics.h"
#include "runtime/gfn/validation.h"

namespace gfn::test {

using core::Environment;
using core::StateGraph;
using core::UniqueStates;

at::Tensor random_states(const Environment& env, std::int64_t n, int steps, at::Generator& gen) {
  at::Tensor s = env.initial_states(n);
  for (int t = 0; t < steps; ++t) {
    const at::Tensor m = env.forward_masks(s).narrow(1, 0, env.exit_action());
    const at::Tensor alive = m.any(1);
    if (!alive.any().item<bool>()) break;
    const at::Tensor rows_alive = at::nonzero(alive).squeeze(1);
    const at::Tensor sub = s.index_select(0, rows_alive);
    const at::Tensor a =
        at::multinomial(m.index_select(0, rows_alive).to(at::kFloat), 1, false, gen).squeeze(1);
    s.index_copy_(0, rows_alive, env.step(sub, a));
  }
  return s;
}

namespace {

// The row dynamics (if any) against the batched members on the rows of s: each row's
// forward_mask is its forward_masks row, step of each allowed non-exit action is env.step's
// child, equal keys exactly for equal rows, and unique() lists rows in increasing key order.
void check_row_dynamics(const Environment& env, const at::Tensor& states) {
  const core::RowDynamics* rows = env.row_dynamics();
  if (rows == nullptr) return;
  const at::Tensor s = states.contiguous();
  const at::Tensor masks = env.forward_masks(s);
  const std::int64_t n = s.size(0), d = env.state_dim(), k = env.n_actions();
  std::vector<std::int64_t> keys;
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t* row = s.data_ptr<std::int64_t>() + i * d;
    std::vector<char> mask(static_cast<std::size_t>(k));
    rows->forward_mask(row, reinterpret_cast<bool*>(mask.data()));
    keys.push_back(rows->key(row));
    for (std::int64_t a = 0; a < k; ++a) {
      EXPECT_EQ(mask[a] != 0, masks[i][a].item<bool>()) << "row " << i << " action " << a;
      if (a == env.exit_action() || mask[a] == 0) continue;
      std::vector<std::int64_t> child(row, row + d);
      rows->step(child.data(), a);
      const at::Tensor batched = env.step(s[i].view({1, d}), at::full({1}, a, at::kLong));
      EXPECT_TRUE(at::equal(at::tensor(child, at::kLong), batched[0]))
          << "row " << i << " action " << a;
    }
  }
  for (std::int64_t i = 0; i < n; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      EXPECT_EQ(keys[i] == keys[j], at::equal(s[i], s[j])) << "rows " << i << ", " << j;
    }
  }
  const UniqueStates u = env.unique(s);
  for (std::int64_t r = 1; r < u.states.size(0); ++r) {
    const at::Tensor a = u.states[r - 1].contiguous(), b = u.states[r].contiguous();
    EXPECT_LT(rows->key(a.data_ptr<std::int64_t>()), rows->key(b.data_ptr<std::int64_t>()));
  }
}

}  // namespace

void check_generic(const Environment& env) {
  SCOPED_TRACE(env.name());
  at::Generator gen = at::detail::createCPUGenerator(7);
  const at::Tensor s0 = env.initial_states(3);
  ASSERT_EQ(s0.sizes(), (std::vector<int64_t>{3, env.state_dim()}));
  EXPECT_FALSE(env.backward_masks(s0).any().item<bool>()) << "s0 has no parent";
  EXPECT_TRUE(env.is_initial(s0).all().item<bool>());
  EXPECT_EQ(env.forward_masks(s0).size(1), env.n_actions());
  EXPECT_EQ(env.backward_masks(s0).size(1), env.n_backward_actions());
  for (int steps = 1; steps <= 4; ++steps) {
    const at::Tensor s = random_states(env, 16, steps, gen);
    check_row_dynamics(env, s);
    const at::Tensor fm = env.forward_masks(s).narrow(1, 0, env.exit_action());
    // Every allowed forward action a: backward action a is allowed in the child and
    // leads back to the parent.
    const at::Tensor pairs = at::nonzero(fm);
    if (pairs.size(0) == 0) continue;
    const at::Tensor parent = s.index_select(0, pairs.select(1, 0));
    const at::Tensor a = pairs.select(1, 1).contiguous();
    const at::Tensor child = env.step(parent, a);
    EXPECT_TRUE(env.backward_masks(child).gather(1, a.view({-1, 1})).all().item<bool>());
    EXPECT_TRUE(at::equal(env.backward_step(child, a), parent));
    // and every allowed backward action of a state leads to a parent whose forward
    // action returns to it.
    const at::Tensor bpairs = at::nonzero(env.backward_masks(s));
    if (bpairs.size(0) == 0) continue;
    const at::Tensor c = s.index_select(0, bpairs.select(1, 0));
    const at::Tensor b = bpairs.select(1, 1).contiguous();
    const at::Tensor p = env.backward_step(c, b);
    EXPECT_TRUE(env.forward_masks(p).gather(1, b.view({-1, 1})).all().item<bool>());
    EXPECT_TRUE(at::equal(env.step(p, b), c));
    // unique(): gathering back reproduces the batch.
    const UniqueStates u = env.unique(s);
    EXPECT_TRUE(at::equal(u.states.index_select(0, u.inverse), s));
    EXPECT_EQ(u.states.size(0), std::get<0>(at::unique_dim(s, 0)).size(0));
  }
  // Exit is not a transition, and masked actions are refused.
  EXPECT_THROW(env.step(s0, at::full({3}, env.exit_action(), at::kLong)), std::invalid_argument);
  EXPECT_THROW(env.backward_step(s0, at::zeros({3}, at::kLong)), std::invalid_argument);
  EXPECT_THROW(env.step(s0, at::zeros({2}, at::kLong)), std::invalid_argument);
  EXPECT_THROW(env.check_states(at::zeros({2, env.state_dim() + 1}, at::kLong), "test"),
               std::invalid_argument);
  // The capabilities: the description names the environment; a test set, if there is one,
  // holds valid terminating states and is the same for the same seed.
  EXPECT_EQ(env.describe().name, env.name());
  if (const std::optional<at::Tensor> test = env.test_set(2, 0)) {
    env.check_states(*test, "test_set");
    EXPECT_GT(test->size(0), 0);
    EXPECT_TRUE(env.can_terminate(*test).all().item<bool>());
    EXPECT_TRUE(at::equal(*test, *env.test_set(2, 0)));
  }
}

void check_enumeration(const Environment& env, double expected_uniform_term) {
  SCOPED_TRACE(env.name());
  ASSERT_TRUE(env.enumerable());
  const at::Tensor& all = env.all_states();
  EXPECT_EQ(all.size(0), env.n_states());
  EXPECT_TRUE(at::equal(env.state_indices(all), at::arange(env.n_states(), at::kLong)));
  EXPECT_TRUE(at::equal(all[0].view({1, -1}), env.initial_states(1)));
  const at::Tensor& term = env.terminating_states();
  EXPECT_EQ(term.size(0), env.n_terminating_states());
  EXPECT_TRUE(at::equal(env.terminating_state_indices(term),
                        at::arange(env.n_terminating_states(), at::kLong)));
  EXPECT_TRUE(env.can_terminate(term).all().item<bool>());
  // Terminating states are exactly the states that can exit.
  EXPECT_EQ(env.can_terminate(all).sum().item<int64_t>(), env.n_terminating_states());
  EXPECT_NEAR(env.true_distribution().sum().item<double>(), 1.0, 1e-9);
  const double log_z = env.log_reward(term).to(at::kDouble).logsumexp(0).item<double>();
  EXPECT_NEAR(env.log_partition(), log_z, 1e-6);
  // The graph: every edge goes forward in index order (state_graph() checks it).
  const StateGraph& g = env.state_graph();
  EXPECT_EQ(static_cast<int64_t>(g.edge_begin.size()), env.n_states() + 1);
  EXPECT_EQ(g.edge_begin.back(),
            env.forward_masks(all).narrow(1, 0, env.exit_action()).sum().item<int64_t>());
  // Uniform PF over the allowed actions.
  const at::Tensor m = env.forward_masks(all).to(at::kDouble);
  const at::Tensor pf = m / m.sum(1, true);
  const at::Tensor p = core::terminating_distribution(env, pf);
  EXPECT_NEAR(p.sum().item<double>(), 1.0, 1e-9);
  if (expected_uniform_term > 0) {
    EXPECT_NEAR(p.min().item<double>(), expected_uniform_term, 1e-12);
    EXPECT_NEAR(p.max().item<double>(), expected_uniform_term, 1e-12);
  }
}

}  // namespace gfn::test
