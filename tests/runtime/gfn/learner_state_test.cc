// Learner::save_state / load_state (runtime/gfn/learner_state.cc), FlatAdamW::load_state
// and VisitedTerminatingStates::restore: a Learner restored from a checkpoint continues
// bit-identically (docs/checkpoints.md "Checkpoint and resume").

#include <gtest/gtest.h>
#include <torch/serialize/archive.h>
#include <torch/torch.h>

#include <sstream>
#include <string>
#include <vector>

#include "runtime/buffer/table.h"
#include "runtime/gfn/env/env_options.h"
#include "runtime/gfn/env/environment.h"
#include "runtime/gfn/estimators.h"
#include "runtime/gfn/learner.h"
#include "runtime/gfn/visited_states.h"

namespace gfn::core {
namespace {

struct LearnerSetup {
  core::EnvOptions env;
  core::ModelOptions model;
  core::TrainOptions train;
  core::EngineOptions engine;
  buffer::ReplayOptions replay;  ///< none unless a test sets it
  LearnerSetup() {
    env.get<core::HyperGridOptions>().ndim = 2;
    env.get<core::HyperGridOptions>().height = 6;
    model.hidden_dim = 16;
    model.n_hidden = 2;
    train.lr = 1e-3;
    train.lr_logz = 0.1;
    train.epsilon = 0.1;  // the sampling generator draws for exploration too
  }
  std::unique_ptr<Learner> make() const {
    return std::make_unique<Learner>(env, model, train, 7, replay, engine);
  }
};

std::string save(const Learner& learner) {
  torch::serialize::OutputArchive archive;
  learner.save_state(archive);
  std::ostringstream out;
  archive.save_to(out);
  return out.str();
}

void load(Learner& learner, const std::string& bytes) {
  torch::serialize::InputArchive archive;
  std::istringstream in(bytes);
  archive.load_from(in);
  learner.load_state(archive);
}

void expect_same_parameters(Learner& a, Learner& b) {
  const auto pa = a.model().named_parameters();
  const auto pb = b.model().named_parameters();
  ASSERT_EQ(pa.size(), pb.size());
  for (std::size_t i = 0; i < pa.size(); ++i) {
    EXPECT_TRUE(torch::equal(pa[i].value(), pb[i].value())) << pa[i].key();
  }
}

/// N iterations in one go vs N/2, save, load into a fresh Learner, N/2 more.
void check_resume_is_exact(const LearnerSetup& s) {
  auto straight = s.make();
  IterationResult straight_last;
  for (int i = 0; i < 8; ++i) straight_last = straight->train_iteration(32);

  auto first = s.make();
  for (int i = 0; i < 4; ++i) first->train_iteration(32);
  const std::string bytes = save(*first);
  first.reset();  // nothing survives but the bytes
  // Another Learner drew from LibTorch's default generator in between: restored too.
  torch::manual_seed(12345);
  auto resumed = s.make();
  load(*resumed, bytes);
  EXPECT_EQ(resumed->counts().iterations, 4);
  IterationResult resumed_last;
  for (int i = 0; i < 4; ++i) resumed_last = resumed->train_iteration(32);

  expect_same_parameters(*straight, *resumed);
  EXPECT_EQ(straight->model().log_z().item<double>(), resumed->model().log_z().item<double>());
  EXPECT_EQ(straight->counts().iterations, resumed->counts().iterations);
  ASSERT_NE(straight->mode_tracker(), nullptr);
  EXPECT_EQ(straight->mode_tracker()->found(), resumed->mode_tracker()->found());
  EXPECT_TRUE(torch::equal(straight_last.batch.states, resumed_last.batch.states))
      << "the sampling generator continues where it was";
}

TEST(LearnerState, ResumeIsBitIdenticalWithTheFlatOptimizer) {
  check_resume_is_exact(LearnerSetup{});
}

TEST(LearnerState, ResumeIsBitIdenticalWithTorchAdamW) {
  LearnerSetup s;
  s.engine.optimizer = core::OptimizerKind::kTorch;
  check_resume_is_exact(s);
}

TEST(LearnerState, ResumeIsBitIdenticalOnTheGenericPath) {
  LearnerSetup s;
  s.engine.state_table = core::StateTableMode::kOff;  // the generic path, reusing log-probs
  check_resume_is_exact(s);
}

TEST(LearnerState, ValidationAfterResumeMatches) {
  LearnerSetup s;
  core::ValidationOptions v;
  v.n_samples = 2000;
  auto straight = s.make();
  for (int i = 0; i < 4; ++i) straight->train_iteration(32);
  auto resumed = s.make();
  load(*resumed, save(*straight));
  const auto a = straight->validate(v);
  const auto b = resumed->validate(v);
  EXPECT_EQ(a.l1_exact, b.l1_exact);
  EXPECT_EQ(a.l1_sampled, b.l1_sampled) << "the validation generator is restored";
}

TEST(LearnerState, RefusesTheStateOfAnotherModel) {
  LearnerSetup s;
  auto learner = s.make();
  learner->train_iteration(16);
  const auto bytes = save(*learner);
  LearnerSetup wider = s;
  wider.model.hidden_dim = 24;
  auto other = wider.make();
  try {
    load(*other, bytes);
    FAIL() << "a state of another shape was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("shape"), std::string::npos) << e.what();
  }
}

// The local replay buffer (replay.kind) is saved with the Learner: its items, its
// samplers' order and its generator (runtime/buffer/table_state.h). Capacity 40 < 2 batches
// of 32, so the iterations after the resume evict; half of each batch is replayed.
TEST(LearnerState, ResumeIsBitIdenticalWithALocalReplayBuffer) {
  for (const auto kind : {buffer::ReplayKind::kUniform, buffer::ReplayKind::kPrioritized,
                          buffer::ReplayKind::kDiverse}) {
    SCOPED_TRACE(config::enum_name(kind));
    LearnerSetup s;
    s.replay.kind = kind;
    s.replay.capacity = 40;
    s.replay.fraction = 0.5;
    s.replay.cutoff = 0.5;
    check_resume_is_exact(s);
    auto straight = s.make();
    for (int i = 0; i < 8; ++i) straight->train_iteration(32);
    auto resumed = s.make();
    for (int i = 0; i < 4; ++i) resumed->train_iteration(32);
    load(*resumed, save(*resumed));  // a round trip in place changes nothing either
    for (int i = 0; i < 4; ++i) resumed->train_iteration(32);
    EXPECT_EQ(straight->batches().counts().replayed, 8 * 16);
    EXPECT_EQ(straight->batches().counts().replayed, resumed->batches().counts().replayed);
    ASSERT_NE(straight->batches().replay_buffer(), nullptr);
    EXPECT_EQ(straight->batches().replay_buffer()->save_state(),
              resumed->batches().replay_buffer()->save_state());
  }
}

TEST(LearnerState, RefusesAStateWithoutTheReplayBufferItNeeds) {
  LearnerSetup s;
  auto plain = s.make();
  plain->train_iteration(16);
  const auto bytes = save(*plain);
  s.replay.kind = buffer::ReplayKind::kUniform;
  auto with_replay = s.make();
  try {
    load(*with_replay, bytes);
    FAIL() << "a state without replay_table was accepted by a Learner with a replay buffer";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("replay_table"), std::string::npos) << e.what();
  }
}

// Remote trajectories queued for the next iteration (buffer.payload full: a trainer's
// checkpoint falls between the fetch and the iteration that trains on them) are saved as
// their action sequences and replayed on load: the resumed Learner trains on the same batch.
TEST(LearnerState, ResumeIsBitIdenticalWithQueuedRemoteTrajectories) {
  LearnerSetup s;
  const auto queue = [](Learner& l) {  // what a manager's SAMPLE would carry (2-D, height 6)
    l.batches().queue_trajectories(
        buffer::PackedTrajectories::from_sequences({{0, 0, 1, 2}, {1, 2}, {0, 1, 0, 1, 1, 2}}));
  };
  auto straight = s.make();
  for (int i = 0; i < 3; ++i) straight->train_iteration(32);
  queue(*straight);
  const std::string bytes = save(*straight);
  for (int i = 0; i < 3; ++i) straight->train_iteration(32);

  torch::manual_seed(99);
  auto resumed = s.make();
  load(*resumed, bytes);
  EXPECT_EQ(resumed->batches().queued_trajectories(), 3);
  for (int i = 0; i < 3; ++i) resumed->train_iteration(32);
  expect_same_parameters(*straight, *resumed);
  EXPECT_EQ(straight->batches().counts().remote_trajectories, 3);
  EXPECT_EQ(resumed->batches().counts().remote_trajectories, 3);
}

TEST(VisitedStatesRestore, RebuildsAnEqualWindow) {
  LearnerSetup s;
  auto learner = s.make();
  VisitedTerminatingStates a(learner->env(), 50);
  for (int i = 0; i < 4; ++i) a.add(learner->train_iteration(32).terminating_states);  // wraps
  VisitedTerminatingStates b(learner->env(), 50);
  b.restore(a.window_indices(), a.total_added());
  EXPECT_EQ(b.size(), a.size());
  EXPECT_EQ(b.total_added(), 128);
  EXPECT_TRUE(torch::equal(a.distribution(), b.distribution()));
  const auto more = learner->train_iteration(32).terminating_states;
  a.add(more);
  b.add(more);  // the oldest leave in the same order
  EXPECT_TRUE(torch::equal(a.window_indices(), b.window_indices()));
  EXPECT_THROW(b.restore(torch::zeros({51}, torch::kLong), 51), std::invalid_argument);
}

}  // namespace
}  // namespace gfn::core
