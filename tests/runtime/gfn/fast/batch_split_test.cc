// engine.split_batch (runtime/gfn/fast/batch_split.h): a batch split over two threads, one
// model copy each, against one model trained on the same trajectories (the reference), and
// its determinism, checkpoint resume, refusals and engine path.

#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>
#include <torch/serialize/archive.h>
#include <torch/torch.h>

#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "runtime/gfn/env/env_options.h"
#include "runtime/gfn/env/environment.h"
#include "runtime/gfn/env/registry.h"
#include "runtime/gfn/estimators.h"
#include "runtime/gfn/fast/batch_split.h"
#include "runtime/gfn/learner.h"
#include "runtime/gfn/preprocessors.h"
#include "runtime/gfn/sampler.h"
#include "runtime/gfn/trajectory_ops.h"

namespace gfn::core {
namespace {

struct SplitSetup {
  EnvOptions env;
  ModelOptions model;
  TrainOptions train;
  EngineOptions engine;
  buffer::ReplayOptions replay;
  LocalSearchOptions local_search;
  SplitSetup() {
    env.get<HyperGridOptions>().ndim = 4;  // 4,096 states: the generic path, no state table
    env.get<HyperGridOptions>().height = 8;
    model.hidden_dim = 32;
    model.n_hidden = 2;
    train.lr = 1e-2;
    train.lr_logz = 0.1;
    train.num_threads = 2;
    engine.split_batch = true;
  }
  std::unique_ptr<Learner> make() const {
    return std::make_unique<Learner>(env, model, train, 11, replay, engine, local_search);
  }
};

// rtol = atol = 0: element for element equal.
void expect_close_parameters(Learner& a, Learner& b, double rtol, double atol) {
  const auto pa = a.model().named_parameters();
  const auto pb = b.model().named_parameters();
  ASSERT_EQ(pa.size(), pb.size());
  for (std::size_t i = 0; i < pa.size(); ++i) {
    EXPECT_TRUE(torch::allclose(pa[i].value(), pb[i].value(), rtol, atol)) << pa[i].key();
  }
}

void expect_same_parameters(Learner& a, Learner& b) { expect_close_parameters(a, b, 0.0, 0.0); }

// Each split iteration against one unsplit model (same initial parameters) trained on the
// split iteration's trajectories, given as remote trajectories (their outputs recomputed by
// the reference model): the same loss and the same parameters after every optimizer step.
void check_against_one_model(const SplitSetup& split_setup) {
  SplitSetup one_setup = split_setup;
  one_setup.engine.split_batch = false;
  one_setup.train.num_threads = 1;
  auto split = split_setup.make();
  auto one = one_setup.make();
  expect_same_parameters(*split, *one);
  for (int i = 0; i < 4; ++i) {
    const IterationResult r = split->train_iteration(48);
    ASSERT_EQ(r.fresh.n_trajectories, 48);
    // The saved-outputs evaluator reuses the sampling forward (exploring or not).
    EXPECT_EQ(r.reused_logprobs, split_setup.engine.reuse_logprobs);
    one->batches().queue_trajectories(pack_trajectories(r.fresh));
    const IterationResult ref = one->train_iteration(48);
    ASSERT_EQ(ref.n_remote, 48);
    EXPECT_NEAR(r.loss, ref.loss, 1e-4 * (1.0 + std::abs(ref.loss))) << "iteration " << i;
    expect_close_parameters(*split, *one, 1e-5, 1e-6);
    EXPECT_NEAR(split->model().log_z().item<double>(), one->model().log_z().item<double>(), 1e-5);
  }
  EXPECT_EQ(split->counts().split, 4);
  EXPECT_EQ(split->batches().counts().sampled, 4 * 48);
}

TEST(BatchSplit, GradientsEqualOneModelOnTheSameTrajectories) {
  check_against_one_model(SplitSetup{});
}

TEST(BatchSplit, EqualOneModelWithTiedTrunkRewardExponentAndExploration) {
  SplitSetup s;
  s.model.tied = true;
  s.train.reward_exponent = 2.0;
  s.train.epsilon = 0.1;
  s.train.temperature = 0.75;
  check_against_one_model(s);
}

TEST(BatchSplit, EqualOneModelWithTheReferenceEvaluatorAndThreeParts) {
  SplitSetup s;
  s.engine.reuse_logprobs = false;
  s.train.num_threads = 3;
  check_against_one_model(s);
}

TEST(BatchSplit, TheTwoHalvesDifferAndTheRunIsDeterministic) {
  auto a = SplitSetup{}.make();
  auto b = SplitSetup{}.make();
  IterationResult ra;
  for (int i = 0; i < 3; ++i) {
    ra = a->train_iteration(32);
    const IterationResult rb = b->train_iteration(32);
    EXPECT_TRUE(torch::equal(ra.terminating_states, rb.terminating_states));
    EXPECT_EQ(ra.loss, rb.loss);
  }
  expect_same_parameters(*a, *b);
  // The parts draw from different generators: their batches are not copies of each other.
  const Trajectories& batch = ra.batch;
  EXPECT_FALSE(torch::equal(batch.terminating_states.narrow(0, 0, 16),
                            batch.terminating_states.narrow(0, 16, 16)));
}

TEST(BatchSplit, ResumeFromACheckpointIsBitIdentical) {
  const SplitSetup s;
  auto straight = s.make();
  IterationResult straight_last, resumed_last;
  for (int i = 0; i < 6; ++i) straight_last = straight->train_iteration(32);
  auto first = s.make();
  for (int i = 0; i < 3; ++i) first->train_iteration(32);
  torch::serialize::OutputArchive out;
  first->save_state(out);
  std::ostringstream bytes;
  out.save_to(bytes);
  first.reset();
  auto resumed = s.make();
  torch::serialize::InputArchive in;
  std::istringstream is(bytes.str());
  in.load_from(is);
  resumed->load_state(in);
  for (int i = 0; i < 3; ++i) resumed_last = resumed->train_iteration(32);
  expect_same_parameters(*straight, *resumed);
  EXPECT_TRUE(torch::equal(straight_last.batch.states, resumed_last.batch.states));
}

TEST(BatchSplit, RemoteItemsRunUnsplit) {
  auto l = SplitSetup{}.make();
  const IterationResult r = l->train_iteration(32);
  l->batches().queue_trajectories(pack_trajectories(take_trajectories(r.fresh, 8)));
  const IterationResult mixed = l->train_iteration(32);
  EXPECT_EQ(mixed.n_remote, 8);
  EXPECT_EQ(mixed.n_fresh, 24);
  EXPECT_EQ(l->counts().split, 1);
}

TEST(BatchSplit, EnginePathSaysWhatRuns) {
  SplitSetup s;
  EXPECT_EQ(s.make()->plan().report.at("split_batch"), "2 parts");
  s.train.num_threads = 1;
  EXPECT_EQ(s.make()->plan().report.at("split_batch"), "off");
  s.train.num_threads = 2;
  s.engine.split_batch = false;
  EXPECT_EQ(s.make()->plan().report.at("split_batch"), "off");
  SplitSetup table;
  table.env.get<HyperGridOptions>().ndim = 2;  // 64 states: the state table
  EXPECT_EQ(table.make()->plan().report.at("split_batch"), "unused (state table)");
}

void expect_refused(const SplitSetup& s, const std::string& needle) {
  try {
    s.make();
    FAIL() << "expected a refusal naming " << needle;
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("engine.split_batch"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(BatchSplit, RefusesWhatItCannotSplit) {
  SplitSetup db;
  db.train.loss = LossKind::kDB;
  expect_refused(db, "train.loss tb");
  SplitSetup noisy;
  noisy.model.n_noisy_layers = 1;
  expect_refused(noisy, "model.n_noisy_layers");
  SplitSetup ls;
  ls.local_search.loops = 1;
  expect_refused(ls, "local_search.loops");
  SplitSetup replay;
  replay.replay.kind = buffer::ReplayKind::kUniform;
  expect_refused(replay, "replay.kind uniform");
}

}  // namespace
}  // namespace gfn::core

namespace gfn::core {
namespace {

// The split's concatenation against concat_trajectories, the reference: the same tensors for
// two and three sampled parts of different sizes and lengths (one part of one trajectory).
TEST(ConcatSampledParts, EqualsConcatTrajectories) {
  EnvOptions eo;
  eo.get<HyperGridOptions>().ndim = 4;
  eo.get<HyperGridOptions>().height = 6;
  const auto env = make_environment(eo);
  const auto pre = env->make_preprocessor(PreprocessorKind::kKHot);
  torch::manual_seed(2);
  ModelOptions mo;
  mo.hidden_dim = 16;
  GFlowNetModel model(pre->output_dim(), env->n_actions(), mo, false);
  at::Generator g = at::detail::createCPUGenerator(4);
  std::vector<Trajectories> parts;
  for (const std::int64_t n : {40, 1, 25}) {
    parts.push_back(
        sample_trajectories(*env, model_policy(model, *pre, *env), n, SamplerOptions{}, g));
  }
  for (const std::size_t k : {2, 3}) {
    SCOPED_TRACE(std::to_string(k) + " parts");
    const std::vector<Trajectories> some(parts.begin(), parts.begin() + k);
    Trajectories ref = some[0];
    for (std::size_t i = 1; i < k; ++i) ref = concat_trajectories(ref, some[i]);
    const Trajectories fast = concat_sampled_parts(some);
    EXPECT_EQ(fast.n_trajectories, ref.n_trajectories);
    for (const auto& [a, b] : {std::pair{fast.states, ref.states},
                               {fast.actions, ref.actions},
                               {fast.traj_index, ref.traj_index},
                               {fast.pb_actions, ref.pb_actions},
                               {fast.lengths, ref.lengths},
                               {fast.terminating_states, ref.terminating_states},
                               {fast.log_rewards, ref.log_rewards}}) {
      EXPECT_TRUE(torch::equal(a, b));
    }
  }
  Trajectories broken = parts[0];
  broken.lengths = broken.lengths + 1;
  EXPECT_THROW(concat_sampled_parts({parts[1], broken}), std::invalid_argument);
  EXPECT_THROW(concat_sampled_parts({}), std::invalid_argument);
  Trajectories short_pb = parts[2];
  short_pb.pb_actions = short_pb.pb_actions.narrow(0, 0, short_pb.pb_actions.size(0) - 1);
  EXPECT_THROW(concat_sampled_parts({parts[0], short_pb}), std::invalid_argument);
}

}  // namespace
}  // namespace gfn::core
