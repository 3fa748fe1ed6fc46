// Full payloads in one process: the trajectories a trainer submits, packed by
// core::pack_trajectories (runtime/buffer/packed_trajectories.h), survive the manager's
// replay table byte-identical, and a
// Learner trains on remote trajectories as given (replayed in the environment, not
// sampled backward) with the loss a from-scratch recomputation gives.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <vector>

#include "roles/trainer/buffer_client.h"
#include "runtime/buffer/table.h"
#include "runtime/gfn/env/env_options.h"
#include "runtime/gfn/env/environment.h"
#include "runtime/gfn/estimators.h"
#include "runtime/gfn/learner.h"
#include "runtime/gfn/preprocessors.h"
#include "runtime/gfn/trajectory_ops.h"

namespace gfn::roles {
namespace {

using core::Trajectories;

core::EnvOptions grid(int ndim, int height) {
  core::EnvOptions e;
  e.get<core::HyperGridOptions>().ndim = ndim;
  e.get<core::HyperGridOptions>().height = height;
  return e;
}

// The oracle of the packer: each trajectory's actions read row by row from the step-major
// batch (the rows of one trajectory come in step order).
std::vector<std::vector<std::int64_t>> sequences_of(const Trajectories& t) {
  std::vector<std::vector<std::int64_t>> out(static_cast<std::size_t>(t.n_trajectories));
  for (std::int64_t row = 0; row < t.actions.size(0); ++row) {
    out[static_cast<std::size_t>(t.traj_index[row].item<std::int64_t>())].push_back(
        t.actions[row].item<std::int64_t>());
  }
  return out;
}

// TB loss from scratch (as tests/runtime/gfn/replay_exploration_test.cc): each trajectory
// walked on its own from s0, one network call per state, masked log-softmax by hand.
double tb_from_scratch(core::GFlowNetModel& m, const core::Preprocessor& pre,
                       const core::Environment& env, const Trajectories& batch) {
  torch::NoGradGuard no_grad;
  const auto seqs = sequences_of(batch);
  const double log_z = m.log_z().item<double>();
  double total = 0;
  for (std::size_t b = 0; b < seqs.size(); ++b) {
    at::Tensor s = env.initial_states(1);
    double lpf = 0, lpb = 0;
    for (const std::int64_t a : seqs[b]) {
      const at::Tensor fm = env.forward_masks(s);
      lpf += m.pf_logits(pre(s))
                 .masked_fill(fm.logical_not(), -INFINITY)
                 .log_softmax(1)[0][a]
                 .item<double>();
      if (a == env.exit_action()) break;
      s = env.step(s, torch::tensor({a}));
      const at::Tensor bm = env.backward_masks(s);
      lpb += m.pb_logits(pre(s))
                 .masked_fill(bm.logical_not(), -INFINITY)
                 .log_softmax(1)[0][a]
                 .item<double>();
    }
    const double res = log_z + lpf - env.log_reward(s)[0].item<double>() - lpb;
    total += res * res;
  }
  return total / static_cast<double>(seqs.size());
}

TEST(RemoteTrajectories, PackedFreshTrajectoriesEqualTheirActionSequences) {
  core::ModelOptions model;
  model.hidden_dim = 32;
  core::Learner learner(grid(3, 5), model, core::TrainOptions{}, 4);
  const auto r = learner.train_iteration(24);
  ASSERT_EQ(r.fresh.n_trajectories, 24);
  // Appended after what is already there.
  auto packed = buffer::PackedTrajectories::from_sequences({{1, 2, 3, 4, 5, 6, 7}});
  core::pack_trajectories(r.fresh, packed);
  ASSERT_EQ(packed.size(), 25);
  const auto expected = sequences_of(r.fresh);
  for (std::int64_t i = 0; i < 24; ++i) EXPECT_EQ(packed.sequence(i + 1), expected[i]) << i;
  // Unpacked, they are the same batch (same layout, same terminating states).
  const auto mine = core::pack_trajectories(r.fresh);
  const auto rebuilt = core::trajectories_from_actions(learner.env(), mine);
  EXPECT_TRUE(torch::equal(rebuilt.terminating_states, r.terminating_states));
  EXPECT_TRUE(torch::equal(rebuilt.actions, r.fresh.actions));
  EXPECT_TRUE(torch::equal(rebuilt.traj_index, r.fresh.traj_index));
  EXPECT_EQ(core::pack_trajectories(rebuilt), mine);
}

TEST(RemoteTrajectories, SubmittedTrajectoriesComeBackIdenticalAndTrainAsGiven) {
  core::ModelOptions model;
  model.hidden_dim = 64;
  core::TrainOptions train;
  train.lr = 0;  // parameters fixed: the loss can be recomputed after the step
  train.lr_logz = 0;
  core::Learner trainer_a(grid(2, 6), model, train, 11);
  core::Learner trainer_b(grid(2, 6), model, train, 12);
  trainer_b.model().log_z().data().fill_(0.75f);

  // Trainer A's fresh batch as a full payload, into a manager-side replay buffer.
  const auto step = trainer_a.train_iteration(40);
  const auto sent = core::pack_trajectories(step.fresh);
  const auto xs = step.terminating_states.contiguous();
  const auto lr = step.log_rewards.contiguous();
  std::vector<std::int64_t> states(xs.data_ptr<std::int64_t>(),
                                   xs.data_ptr<std::int64_t>() + xs.numel());
  std::vector<float> log_rewards(lr.data_ptr<float>(), lr.data_ptr<float>() + lr.numel());
  buffer::ReplayTable manager(buffer::manager_table_options(1000, 3));
  ASSERT_EQ(manager.add(states, log_rewards, 2, sent).retained, 40);

  // A remote sample returns each item with its own trajectory, unchanged.
  const auto sampled = manager.sample(10, buffer::SamplerKind::kPrioritized);
  const buffer::PackedTrajectories& seqs = sampled.trajectories;
  ASSERT_EQ(seqs.size(), 10);
  for (std::int64_t k = 0; k < sampled.size(); ++k) {
    bool found = false;
    for (std::int64_t i = 0; i < sent.size() && !found; ++i) {
      found = seqs.sequence(k) == sent.sequence(i) && sampled.states[2 * k] == states[2 * i] &&
              sampled.states[2 * k + 1] == states[2 * i + 1];
    }
    EXPECT_TRUE(found) << "a sampled trajectory differs from every submitted one";
  }

  // Trainer B trains on them as given, next to fresh ones and backward ones from states.
  trainer_b.batches().queue_trajectories(seqs);
  trainer_b.batches().queue_states(step.terminating_states.narrow(0, 0, 3));
  EXPECT_EQ(trainer_b.batches().queued_trajectories(), 10);
  const auto r = trainer_b.train_iteration(32);
  EXPECT_EQ(r.n_remote, 13);
  EXPECT_EQ(r.n_fresh, 19);
  EXPECT_EQ(trainer_b.batches().counts().remote_trajectories, 10);
  EXPECT_EQ(trainer_b.batches().counts().remote, 13);
  EXPECT_EQ(trainer_b.batches().queued_trajectories(), 0);
  const Trajectories& batch = r.batch;
  ASSERT_EQ(batch.n_trajectories, 32);
  const auto trained = sequences_of(batch);
  for (std::int64_t k = 0; k < seqs.size(); ++k) EXPECT_EQ(trained[19 + k], seqs.sequence(k)) << k;
  const double scratch =
      tb_from_scratch(trainer_b.model(), trainer_b.preprocessor(), trainer_b.env(), batch);
  EXPECT_NEAR(r.loss, scratch, 1e-4 * (1 + std::abs(scratch)));

  // An invalid sequence is refused when queued, naming the trajectory.
  EXPECT_THROW(
      trainer_b.batches().queue_trajectories(buffer::PackedTrajectories::from_sequences({{0, 0}})),
      std::invalid_argument);
  EXPECT_THROW(manager.add({1, 1}, {0.f}, 2, buffer::PackedTrajectories({2}, {0})),
               std::invalid_argument);
}

// buffer.remote_paths: a SAMPLE's items with a trajectory are queued as that trajectory
// (submitted) or as their terminating states, sampled backward with PB (backward); items
// without one are always queued as states.
TEST(RemoteTrajectories, RemotePathsChooseTheTrajectoryOrABackwardOne) {
  core::ModelOptions model;
  model.hidden_dim = 32;
  core::Learner source(grid(2, 6), model, core::TrainOptions{}, 3);
  const auto step = source.train_iteration(6);
  protocol::SampleBatch batch;
  batch.granted = true;
  batch.ndim = 2;
  const auto xs = step.terminating_states.contiguous();
  batch.states.assign(xs.data_ptr<std::int64_t>(), xs.data_ptr<std::int64_t>() + xs.numel());
  batch.log_rewards.assign(6, 0.f);
  auto seqs = core::pack_trajectories(step.fresh);
  // The fourth item came without its trajectory (length 0).
  buffer::PackedTrajectories mixed;
  for (std::int64_t i = 0; i < 6; ++i) {
    const auto seq = seqs.sequence(i);
    if (i == 3) {
      mixed.append(nullptr, 0);
    } else {
      mixed.append(seq.data(), static_cast<std::int32_t>(seq.size()));
    }
  }
  batch.trajectories = mixed;
  core::Learner submitted(grid(2, 6), model, core::TrainOptions{}, 4);
  queue_remote_items(submitted, 2, /*backward=*/false, batch);
  EXPECT_EQ(submitted.batches().queued_trajectories(), 5);
  EXPECT_EQ(submitted.batches().queued_states(), 1);
  core::Learner backward(grid(2, 6), model, core::TrainOptions{}, 4);
  queue_remote_items(backward, 2, /*backward=*/true, batch);
  EXPECT_EQ(backward.batches().queued_trajectories(), 0);
  EXPECT_EQ(backward.batches().queued_states(), 6);
  // Trained on: the backward ones end in the same terminating states.
  const auto trained = backward.train_iteration(6);
  EXPECT_EQ(backward.batches().counts().remote, 6);
  EXPECT_EQ(backward.batches().counts().remote_trajectories, 0);
  const auto key = [](const at::Tensor& x) {
    return std::get<0>(at::sort(x.select(1, 0) * 10 + x.select(1, 1)));
  };
  EXPECT_TRUE(torch::equal(key(trained.batch.terminating_states), key(xs)));
}

}  // namespace
}  // namespace gfn::roles
