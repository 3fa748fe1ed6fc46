// BufferManager::save_state / restore_state (roles/buffer_manager/manager_state.cc): a fresh
// manager restored from a saved one's bytes answers the same DATA and GET_SAMPLE messages
// with byte-identical SCORE, SAMPLE and BASELINE_PUSH replies (replay table and its
// samplers, scorer EMA, baseline, rate limiter, modes, feeds), in one process over the
// loopback transport (tests/support/loopback_transport.h); bad states are refused.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/timing/timing_table.h"
#include "tests/roles/buffer_manager/manager_unit_env.h"

namespace gfn::roles::testing {
namespace {

using protocol::MessageType;
namespace tags = protocol::tags;

/// n items of ndim 2 that vary with the iteration (duplicates, modes, reward ties).
protocol::Submission varied(std::int64_t iteration, int n) {
  protocol::Submission s;
  s.iteration = iteration;
  s.ndim = 2;
  for (int i = 0; i < n; ++i) {
    s.states.push_back((i + iteration) % 3);
    s.states.push_back((i * iteration + 1) % 7);
    s.log_rewards.push_back(0.25f * static_cast<float>((i + 2 * iteration) % 5));
  }
  s.want_baseline = iteration % 2 == 0;
  return s;
}

void data_to(BufferManager& m, const protocol::Submission& s) {
  const transport::Bytes wire = protocol::encode_as(MessageType::kData, s);
  m.on_data(kTrainer, protocol::decode_message_view(wire, 1 << 20), 0.0);
}

void sample_from(BufferManager& m, std::int64_t n, const char* sampler) {
  protocol::SampleRequest q;
  q.n = n;
  q.sampler = sampler;
  const transport::Bytes wire = protocol::encode_as(MessageType::kGetSample, q);
  m.on_get_sample(kTrainer, protocol::decode_message_view(wire, 1 << 20));
}

/// Every reply waiting at kTrainer on `tag`, in order.
std::vector<transport::Bytes> replies(gfn::testing::LoopbackWorld& world, int tag) {
  std::vector<transport::Bytes> out;
  while (world.queued(kTrainer, tag) > 0) {
    out.push_back(world.rank(kTrainer).recv(kManager, tag, transport::Seconds(kWait)).bytes);
  }
  return out;
}

/// Messages to the manager: DATA of iteration `it` and samples from both samplers.
void step(BufferManager& m, std::int64_t it) {
  data_to(m, varied(it, static_cast<int>(it % 5) + 1));
  sample_from(m, it % 4 + 1, "prioritized");
  sample_from(m, it % 3 + 2, "uniform");
}

TEST_F(ManagerUnitTest, StateRestoredAnswersExactlyLikeTheOriginal) {
  options_.capacity = 6;  // the steps after the restore evict
  options_.seed = 5;
  for (std::int64_t it = 1; it <= 8; ++it) step(manager(), it);
  for (int tag : {tags::kData, tags::kSample, tags::kBaseline}) replies(world_, tag);
  const std::string bytes = manager().save_state();

  gfn::testing::LoopbackWorld other_world(5);
  BufferManagerOptions other_options = options_;
  other_options.seed = 99;  // the state brings the table's generator
  BufferManager copy(other_world.rank(kManager), {kTrainer, kTrainer2}, other_options, toy_modes);
  copy.restore_state(bytes);
  // The same state but the elapsed time, which advances (a double: the same size).
  EXPECT_EQ(copy.save_state().size(), bytes.size()) << "a restored manager saves the same state";
  ASSERT_EQ(copy.replay().size(), 6);

  for (std::int64_t it = 9; it <= 20; ++it) {
    step(manager(), it);
    step(copy, it);
  }
  for (int tag : {tags::kData, tags::kSample, tags::kBaseline}) {
    const auto a = replies(world_, tag);
    const auto b = replies(other_world, tag);
    if (tag != tags::kBaseline) EXPECT_FALSE(a.empty()) << "tag " << tag;
    EXPECT_EQ(a, b) << "the replies on tag " << tag << " differ";
  }
  EXPECT_EQ(manager().replay().save_state(), copy.replay().save_state());
  const auto& ra = manager().result();
  const auto& rb = copy.result();
  EXPECT_EQ(ra.submissions, 20);
  EXPECT_EQ(ra.submissions, rb.submissions);
  EXPECT_EQ(ra.items_received, rb.items_received);
  EXPECT_EQ(ra.samples_served, rb.samples_served);
  EXPECT_EQ(ra.baseline_pushes, rb.baseline_pushes);
  EXPECT_EQ(ra.per_sender.at(kTrainer).bytes_out, rb.per_sender.at(kTrainer).bytes_out);
}

TEST_F(ManagerUnitTest, StateRestoredContinuesTheModesTimeline) {
  // A restarted manager's buffer_manager_<rank>.json holds the whole run's mode-discovery
  // curve: the points before the checkpoint, then the later ones, times continuing.
  for (std::int64_t it = 1; it <= 3; ++it) step(manager(), it);
  const auto before = manager().result().modes_timeline;
  ASSERT_FALSE(before.empty()) << "the first DATA found modes";
  const std::string bytes = manager().save_state();
  gfn::testing::LoopbackWorld other_world(5);
  BufferManager copy(other_world.rank(kManager), {kTrainer, kTrainer2}, options_, toy_modes);
  copy.restore_state(bytes);
  for (std::int64_t it = 4; it <= 20; ++it) {
    step(manager(), it);
    step(copy, it);
  }
  const auto& a = manager().result().modes_timeline;
  const auto& b = copy.result().modes_timeline;
  ASSERT_GT(a.size(), before.size()) << "later DATA found more modes";
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].items_received, b[i].items_received) << "point " << i;
    EXPECT_EQ(a[i].modes_found, b[i].modes_found) << "point " << i;
    if (i < before.size()) {
      EXPECT_EQ(b[i].elapsed_s, before[i].elapsed_s) << "point " << i;
    }
    if (i > 0) {
      EXPECT_GE(b[i].elapsed_s, b[i - 1].elapsed_s) << "point " << i;
    }
  }
}

TEST_F(ManagerUnitTest, StateOfFormatVersion1IsRead) {
  // A checkpoint of an older build (format version 1: no elapsed time, mode-discovery
  // timeline or timing table at the end) resumes. Version 2 appends exactly those three, so
  // version 1's bytes are version 2's without them: the elapsed time (8 bytes), the timeline
  // (a count, then 24 bytes a point) and the timing table (a length; empty here).
  for (std::int64_t it = 1; it <= 6; ++it) step(manager(), it);
  const std::string v2 = manager().save_state();
  const std::size_t tail = 8 + 8 + 24 * manager().result().modes_timeline.size() + 8;
  std::string v1 = v2.substr(0, v2.size() - tail);
  v1[1] = 1;  // the format version: a uint32 after the archive's endianness byte
  gfn::testing::LoopbackWorld world_a(5), world_b(5);
  BufferManager from_v2(world_a.rank(kManager), {kTrainer, kTrainer2}, options_, toy_modes);
  BufferManager from_v1(world_b.rank(kManager), {kTrainer, kTrainer2}, options_, toy_modes);
  from_v2.restore_state(v2);
  from_v1.restore_state(v1);
  EXPECT_TRUE(from_v1.result().modes_timeline.empty()) << "version 1 has no timeline";
  EXPECT_EQ(from_v1.result().items_received, from_v2.result().items_received);
  for (std::int64_t it = 7; it <= 12; ++it) {
    step(from_v2, it);
    step(from_v1, it);
  }
  for (int tag : {tags::kData, tags::kSample, tags::kBaseline}) {
    EXPECT_EQ(replies(world_b, tag), replies(world_a, tag))
        << "the version-1 state answers like the version-2 one on tag " << tag;
  }
  std::string v3 = v2;
  v3[1] = 3;
  EXPECT_THROW(from_v1.restore_state(v3), std::runtime_error) << "a newer version is refused";
}

TEST_F(ManagerUnitTest, StateRestoredContinuesTheTimingTable) {
  // The time report of a restarted job covers the whole run: the steps timed before the
  // checkpoint come back with the state.
  timing::TimingTable before, after;
  gfn::testing::LoopbackWorld world_a(5), world_b(5);
  BufferManager timed(world_a.rank(kManager), {kTrainer, kTrainer2}, options_, toy_modes, &before);
  for (std::int64_t it = 1; it <= 4; ++it) data_to(timed, varied(it, 3));  // one row each
  ASSERT_GT(before.num_iterations(), 0);
  BufferManager copy(world_b.rank(kManager), {kTrainer, kTrainer2}, options_, toy_modes, &after);
  copy.restore_state(timed.save_state());
  EXPECT_EQ(after, before);
}

TEST_F(ManagerUnitTest, StateMissingAnswersDifferently) {
  // The check above can fail: a fresh manager given the same later messages does not
  // answer as the original (its buffer, EMA and generator start empty).
  options_.capacity = 6;
  for (std::int64_t it = 1; it <= 8; ++it) step(manager(), it);
  for (int tag : {tags::kData, tags::kSample, tags::kBaseline}) replies(world_, tag);
  gfn::testing::LoopbackWorld other_world(5);
  BufferManager fresh(other_world.rank(kManager), {kTrainer, kTrainer2}, options_, toy_modes);
  for (std::int64_t it = 9; it <= 12; ++it) {
    step(manager(), it);
    step(fresh, it);
  }
  EXPECT_NE(replies(world_, tags::kData), replies(other_world, tags::kData));
}

TEST_F(ManagerUnitTest, StateRestoreRefusesAnotherCapacityAndBadBytes) {
  for (std::int64_t it = 1; it <= 4; ++it) step(manager(), it);
  const std::string bytes = manager().save_state();
  gfn::testing::LoopbackWorld other_world(5);
  BufferManagerOptions bigger = options_;
  bigger.capacity = options_.capacity + 1;
  BufferManager other(other_world.rank(kManager), {kTrainer, kTrainer2}, bigger, toy_modes);
  EXPECT_THROW(other.restore_state(bytes), std::invalid_argument);
  BufferManager same(other_world.rank(kManager), {kTrainer, kTrainer2}, options_, toy_modes);
  EXPECT_THROW(same.restore_state(bytes.substr(0, bytes.size() / 2)), std::runtime_error);
  EXPECT_THROW(same.restore_state(bytes + "x"), std::runtime_error);
  BufferManager lone(other_world.rank(kManager), {kTrainer2}, options_, toy_modes);
  EXPECT_THROW(lone.restore_state(bytes), std::invalid_argument)
      << "a baseline feed of a trainer this manager does not serve";
}

}  // namespace
}  // namespace gfn::roles::testing

namespace gfn::roles::testing {
namespace {

/// A continuous environment's DATA: n float32 rows of ndim 2 that vary with the iteration.
protocol::Submission float_rows(std::int64_t iteration, int n) {
  protocol::Submission s;
  s.iteration = iteration;
  s.ndim = 2;
  s.state_dtype = buffer::StateDtype::kFloat32;
  for (int i = 0; i < n; ++i) {
    s.float_states.push_back(0.1f * static_cast<float>((i + iteration) % 7));
    s.float_states.push_back(0.05f * static_cast<float>((i * iteration) % 11));
    s.log_rewards.push_back(0.25f * static_cast<float>((i + 2 * iteration) % 5));
  }
  return s;
}

TEST_F(ManagerUnitTest, FloatRowsAreScoredStoredSampledAndRestoredExactly) {
  options_.capacity = 6;
  options_.state_dtype = buffer::StateDtype::kFloat32;  // as for Box (buffer_manager_options)
  data_to(manager(), float_rows(1, 3));
  const auto first = reply<protocol::Score>(kTrainer, tags::kData, MessageType::kScore);
  EXPECT_DOUBLE_EQ(first.novelty_sum, 3.0);  // empty buffer: the batch size
  EXPECT_EQ(first.new_modes, 0);             // float rows: no mode predicate
  data_to(manager(), float_rows(2, 2));
  const auto second = reply<protocol::Score>(kTrainer, tags::kData, MessageType::kScore);
  // Stored: (0.1, 0), (0.2, 0.05), (0.3, 0.1); the batch (0.2, 0), at Euclidean distance
  // 0.05 from (0.2, 0.05), and (0.3, 0.1), a stored duplicate (0).
  EXPECT_NEAR(second.novelty_sum, 0.05, 1e-6);
  EXPECT_EQ(manager().replay().state_dtype(), buffer::StateDtype::kFloat32);
  EXPECT_EQ(manager().replay().size(), 5);

  sample_from(manager(), 4, "uniform");
  const auto sample = reply<protocol::SampleBatch>(kTrainer, tags::kSample, MessageType::kSample);
  ASSERT_TRUE(sample.granted);
  EXPECT_EQ(sample.state_dtype, buffer::StateDtype::kFloat32);
  EXPECT_EQ(sample.float_states.size(), 8u);
  EXPECT_TRUE(sample.states.empty());

  // int64 DATA to a float32 manager: refused, nothing stored.
  EXPECT_THROW(data_to(manager(), varied(3, 2)), transport::MessageError);
  EXPECT_EQ(manager().replay().size(), 5);

  const std::string bytes = manager().save_state();
  gfn::testing::LoopbackWorld other_world(5);
  BufferManager copy(other_world.rank(kManager), {kTrainer, kTrainer2}, options_, toy_modes);
  copy.restore_state(bytes);
  EXPECT_EQ(copy.save_state().size(), bytes.size());  // all but the elapsed time
  for (std::int64_t it = 4; it <= 9; ++it) {          // evicts (capacity 6)
    data_to(manager(), float_rows(it, 3));
    data_to(copy, float_rows(it, 3));
    sample_from(manager(), 3, "prioritized");
    sample_from(copy, 3, "prioritized");
  }
  for (int tag : {tags::kData, tags::kSample}) {
    const auto a = replies(world_, tag);
    EXPECT_FALSE(a.empty());
    EXPECT_EQ(a, replies(other_world, tag)) << "the replies on tag " << tag << " differ";
  }
  EXPECT_EQ(manager().replay().save_state(), copy.replay().save_state());
}

}  // namespace
}  // namespace gfn::roles::testing
