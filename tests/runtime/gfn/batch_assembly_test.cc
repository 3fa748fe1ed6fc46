// The batch assembly (runtime/gfn/batch_assembly.h): the one computation of an iteration's
// batch size and split over its sources, the assembled batch's make-up and the remote items
// kept as given, the counters, and the checkpoint round trip.
#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>
#include <torch/serialize/archive.h>
#include <torch/torch.h>

#include <sstream>
#include <string>
#include <vector>

#include "runtime/buffer/packed_trajectories.h"
#include "runtime/gfn/batch_assembly.h"
#include "runtime/gfn/env/env_options.h"
#include "runtime/gfn/env/environment.h"
#include "runtime/gfn/env/hypergrid_options.h"
#include "runtime/gfn/env/registry.h"
#include "runtime/gfn/estimators.h"
#include "runtime/gfn/preprocessors.h"
#include "runtime/gfn/reference_evaluator.h"
#include "runtime/gfn/sampler.h"
#include "runtime/gfn/trajectory_ops.h"

namespace gfn::core {
namespace {

// HyperGrid 2-D h4 with its model and the reference evaluator.
struct Grid {
  std::unique_ptr<Environment> env;
  std::unique_ptr<Preprocessor> pre;
  std::unique_ptr<GFlowNetModel> model;
  std::unique_ptr<ReferenceEvaluator> evaluator;
  Grid() {
    EnvOptions o;
    o.get<HyperGridOptions>().ndim = 2;
    o.get<HyperGridOptions>().height = 4;
    env = make_environment(o);
    pre = env->make_preprocessor(o.preprocessor);
    torch::manual_seed(3);
    ModelOptions m;
    m.hidden_dim = 16;
    model = std::make_unique<GFlowNetModel>(pre->output_dim(), env->n_actions(), m);
    evaluator = std::make_unique<ReferenceEvaluator>(*model, *pre, *env);
  }
};

// Two trajectories as forward actions (0, 1: a step along that axis; 2: exit).
buffer::PackedTrajectories two_sequences() {
  return buffer::PackedTrajectories::from_sequences({{0, 2}, {1, 0, 2}});
}

// Five terminating states (every HyperGrid state may terminate).
at::Tensor five_states() {
  return at::tensor({0, 0, 1, 0, 2, 3, 3, 3, 1, 1}, at::kLong).view({5, 2});
}

void expect_shares(const BatchShares& s, std::int64_t total, std::int64_t fresh,
                   std::int64_t trajectories, std::int64_t states, const std::string& what) {
  EXPECT_EQ(s.total, total) << what;
  EXPECT_EQ(s.fresh, fresh) << what;
  EXPECT_EQ(s.remote_trajectories, trajectories) << what;
  EXPECT_EQ(s.remote_states, states) << what;
  EXPECT_EQ(s.fresh + s.remote_trajectories + s.remote_states, s.total) << what;
}

TEST(BatchAssembly, SharesWithoutRemoteItemsAreAllFresh) {
  Grid s;
  BatchAssembly a(*s.env, {}, {}, 1);
  expect_shares(a.shares(32), 32, 32, 0, 0, "32");
  expect_shares(a.shares(32, 8), 32, 32, 0, 0, "32 + up to 8 remote, none queued");
}

TEST(BatchAssembly, SharesTakeRemoteTrajectoriesFirstThenStates) {
  Grid s;
  BatchAssembly a(*s.env, {}, {}, 1);
  a.queue_states(five_states());
  a.queue_trajectories(two_sequences());
  EXPECT_EQ(a.queued_states(), 5);
  EXPECT_EQ(a.queued_trajectories(), 2);
  expect_shares(a.shares(32), 32, 25, 2, 5, "within the share");
  expect_shares(a.shares(32, 4), 36, 29, 2, 5, "4 on top of the share (7 queued)");
  expect_shares(a.shares(32, 100), 39, 32, 2, 5, "every queued item on top");
  expect_shares(a.shares(4), 4, 0, 2, 2, "more queued than the batch");
  expect_shares(a.shares(1), 1, 0, 1, 0, "one");
}

TEST(BatchAssembly, AssembledBatchHoldsFreshThenRemoteTrajectoriesAsGivenThenStates) {
  Grid s;
  BatchAssembly a(*s.env, {}, {}, 1);
  a.queue_trajectories(two_sequences());
  a.queue_states(five_states());
  at::Generator gen = at::detail::createCPUGenerator(7);
  const BatchShares shares = a.shares(10);
  const AssembledBatch b = a.assemble(shares, *s.evaluator, SamplerOptions{}, gen);
  EXPECT_EQ(b.batch.n_trajectories, 10);
  EXPECT_EQ(b.n_fresh, 3);
  EXPECT_EQ(b.n_remote, 7);
  EXPECT_EQ(b.fresh.n_trajectories, 3);
  const auto packed = pack_trajectories(b.batch);
  const auto given = two_sequences();
  EXPECT_EQ(packed.sequence(3), given.sequence(0));
  EXPECT_EQ(packed.sequence(4), given.sequence(1));
  // The backward ones end in the queued states, in order.
  EXPECT_TRUE(torch::equal(b.batch.terminating_states.narrow(0, 5, 5), five_states()));
  EXPECT_EQ(a.queued_states(), 0);
  EXPECT_EQ(a.queued_trajectories(), 0);
  EXPECT_EQ(a.counts().sampled, 3);
  EXPECT_EQ(a.counts().remote, 7);
  EXPECT_EQ(a.counts().remote_trajectories, 2);
}

TEST(BatchAssembly, ItemsBeyondTheBatchAreDropped) {
  Grid s;
  BatchAssembly a(*s.env, {}, {}, 1);
  a.queue_states(five_states());
  at::Generator gen = at::detail::createCPUGenerator(7);
  const AssembledBatch b = a.assemble(a.shares(3), *s.evaluator, SamplerOptions{}, gen);
  EXPECT_EQ(b.n_remote, 3);
  EXPECT_EQ(b.n_fresh, 0);
  EXPECT_EQ(a.queued_states(), 0) << "the unused rest is dropped";
}

TEST(BatchAssembly, CheckpointRoundTripKeepsQueuesCountersAndDraws) {
  Grid s;
  BatchAssembly a(*s.env, {}, {}, 1);
  at::Generator gen = at::detail::createCPUGenerator(7);
  a.assemble(a.shares(4), *s.evaluator, SamplerOptions{}, gen);
  a.queue_trajectories(two_sequences());
  a.queue_states(five_states());
  torch::serialize::OutputArchive out;
  a.save_state(out);
  std::ostringstream bytes;
  out.save_to(bytes);
  BatchAssembly b(*s.env, {}, {}, 1);
  torch::serialize::InputArchive in;
  std::istringstream is(bytes.str());
  in.load_from(is);
  b.load_state(in);
  EXPECT_EQ(b.queued_states(), 5);
  EXPECT_EQ(b.queued_trajectories(), 2);
  EXPECT_EQ(b.counts().sampled, 4);
  at::Generator gen_a = at::detail::createCPUGenerator(9), gen_b = gen_a.clone();
  const auto ba = a.assemble(a.shares(8), *s.evaluator, SamplerOptions{}, gen_a);
  const auto bb = b.assemble(b.shares(8), *s.evaluator, SamplerOptions{}, gen_b);
  EXPECT_TRUE(torch::equal(ba.batch.states, bb.batch.states));
  EXPECT_TRUE(torch::equal(ba.batch.actions, bb.batch.actions));
}

TEST(BatchAssembly, QueueingRefusesStatesOfAnotherShape) {
  Grid s;
  BatchAssembly a(*s.env, {}, {}, 1);
  EXPECT_THROW(a.queue_states(at::zeros({2, 3}, at::kLong)), std::invalid_argument);
  EXPECT_THROW(a.queue_states(five_states(), at::zeros({4}, at::kFloat)), std::invalid_argument);
  EXPECT_EQ(a.queued_states(), 0) << "nothing queued by a refused call";
}

}  // namespace
}  // namespace gfn::core
