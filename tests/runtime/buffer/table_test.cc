// The replay table (runtime/buffer/table.h) in its two configurations: the buffer
// manager's store (manager_table_options: keep the highest rewards, would_retain,
// statistics, samplers by name, trajectories kept with their items, the index in step) and
// the trainer-local buffer (local_table_options: uniform = FIFO + uniform without
// replacement, prioritized = highest rewards with ties to the newer + Gumbel top-n).
#include "runtime/buffer/table.h"
#include "tests/runtime/buffer/manager_tables.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <set>

namespace gfn::buffer {
namespace {

const float kInf = std::numeric_limits<float>::infinity();

ReplayTable manager(std::int64_t capacity) { return testing::manager_table(capacity, 3); }

ReplayTable filled(std::int64_t capacity, const std::vector<float>& log_rewards) {
  return testing::filled_table(capacity, log_rewards, 3);
}

std::vector<std::int64_t> state_of(const ReplayTable& t, Slot s) {
  return {t.state(s), t.state(s) + t.ndim()};
}

// ---- The manager's store.

TEST(ManagerTable, KeepsTheHighestRewardItemsUpToCapacity) {
  ReplayTable table = manager(3);
  // 2-D states (i, i) with log reward i.
  std::vector<std::int64_t> states;
  std::vector<float> log_rewards;
  for (int i = 0; i < 5; ++i) {
    states.insert(states.end(), {i, i});
    log_rewards.push_back(static_cast<float>(i));
  }
  EXPECT_EQ(table.add(states, log_rewards, 2).retained, 3);
  EXPECT_EQ(table.size(), 3);
  const auto by_reward = table.slots_by_reward();
  ASSERT_EQ(by_reward.size(), 3u);
  EXPECT_EQ(table.log_reward(by_reward[0]), 4.f);
  EXPECT_EQ(table.log_reward(by_reward[2]), 2.f);
  EXPECT_EQ(state_of(table, by_reward[1]), (std::vector<std::int64_t>{3, 3}));
  EXPECT_EQ(table.min_log_reward(), 2.f);
  EXPECT_EQ(table.max_log_reward(), 4.f);
  EXPECT_EQ(table.index().size(), 3);
}

TEST(ManagerTable, RetainedCountsOnlyTheNewBatchAndRefusesWorseOrEqualItems) {
  ReplayTable table = manager(2);
  EXPECT_EQ(table.add({0, 1}, {5.f, 6.f}, 1).retained, 2);
  EXPECT_EQ(table.add({2}, {1.f}, 1).retained, 0);           // worse than everything kept
  EXPECT_EQ(table.add({3, 4}, {7.f, 5.5f}, 1).retained, 1);  // 7 evicts 5; 5.5 < 6 is refused
  EXPECT_EQ(table.add({5}, {6.f}, 1).retained, 0);           // equal to the lowest: refused
  const auto by_reward = table.slots_by_reward();
  EXPECT_EQ(table.log_reward(by_reward[0]), 7.f);
  EXPECT_EQ(table.log_reward(by_reward[1]), 6.f);
  EXPECT_EQ(state_of(table, by_reward[1]), (std::vector<std::int64_t>{1}));
}

TEST(ManagerTable, RetainedCountsEvictionsWithinTheBatch) {
  ReplayTable table = manager(2);
  EXPECT_EQ(table.add({0, 1, 2}, {1.f, 2.f, 3.f}, 1).retained, 2);  // 3 evicts 1, of the batch
  EXPECT_EQ(table.min_log_reward(), 2.f);
}

TEST(ManagerTable, SkipsNonFiniteRewards) {
  ReplayTable table = manager(4);
  const auto r = table.add({0, 1, 2}, {std::nanf(""), -kInf, 1.f}, 1);
  EXPECT_EQ(r.retained, 1);
  EXPECT_EQ(r.accepted, 1);
  EXPECT_EQ(table.size(), 1);
}

TEST(ManagerTable, RejectsBadShapesAndCapacity) {
  EXPECT_THROW(manager(0), std::invalid_argument);
  ReplayTable table = manager(2);
  EXPECT_THROW(table.add({0, 1, 2}, {1.f, 2.f}, 2), std::invalid_argument);
  EXPECT_THROW(table.add({0}, {1.f}, 0), std::invalid_argument);
  EXPECT_EQ(table.size(), 0);
  table.add({0, 1}, {1.f}, 2);
  EXPECT_THROW(table.add({1, 2, 3}, {1.f}, 3), std::invalid_argument);  // ndim change
  // Trajectories: n lengths, >= 0, adding up to the actions.
  EXPECT_THROW(table.add({1, 2}, {1.f}, 2, PackedTrajectories({1, 1}, {0, 1})),
               std::invalid_argument);
  EXPECT_THROW(table.add({1, 2}, {1.f}, 2, PackedTrajectories({2}, {0})), std::invalid_argument);
  EXPECT_THROW(table.add({1, 2}, {1.f}, 2, PackedTrajectories({-1}, {})), std::invalid_argument);
  EXPECT_EQ(table.size(), 1);
}

TEST(ManagerTable, WouldRetainFollowsTorchgfnSemantics) {
  ReplayTable t = manager(4);
  EXPECT_EQ(t.would_retain({1.f, 2.f, std::nanf("")}), 2);  // fits: all finite items
  t.add({0, 1, 2}, {1.f, 2.f, 3.f}, 1);
  EXPECT_EQ(t.would_retain({0.5f}), 1);             // one free slot
  EXPECT_EQ(t.would_retain({0.5f, 1.f, 2.5f}), 2);  // overflow: >= min (1)
  EXPECT_EQ(t.size(), 3);                           // nothing inserted
}

TEST(ManagerTable, StatisticsAreRecomputedAfterInserts) {
  auto t = filled(10, {5.f, 1.f, 3.f, 2.f, 4.f});
  EXPECT_EQ(t.percentile_log_reward(0), 1.f);
  EXPECT_EQ(t.percentile_log_reward(40), 2.f);
  EXPECT_EQ(t.percentile_log_reward(40), 2.f);  // cached
  EXPECT_EQ(t.percentile_log_reward(100), 5.f);
  EXPECT_EQ(t.max_log_reward(), 5.f);
  t.add({9}, {7.f}, 1);
  EXPECT_EQ(t.max_log_reward(), 7.f);  // caches invalidated
  EXPECT_EQ(t.percentile_log_reward(100), 7.f);
  EXPECT_EQ(t.percentile_log_reward(50), 3.f);  // rank ceil(0.5 * 6) = 3 of 1 2 3 4 5 7
  EXPECT_EQ(t.log_reward(t.slots_by_reward().front()), 7.f);
  EXPECT_THROW(t.percentile_log_reward(101), std::invalid_argument);
  EXPECT_THROW(manager(2).percentile_log_reward(50), std::logic_error);
  EXPECT_EQ(manager(2).min_log_reward(), 0.f);
  EXPECT_EQ(manager(2).max_log_reward(), 0.f);
}

TEST(ManagerTable, ManySmallInsertsStayFast) {
  // 20000 submissions of 8 items into a 1000-item table: O(log C) per item.
  ReplayTable t = manager(1000);
  std::vector<std::int64_t> s(8);
  std::vector<float> r(8);
  for (int k = 0; k < 20000; ++k) {
    for (int i = 0; i < 8; ++i) {
      s[i] = k * 8 + i;
      r[i] = static_cast<float>((k * 37 + i * 11) % 1009);
    }
    t.add(s, r, 1);
  }
  EXPECT_EQ(t.size(), 1000);
  EXPECT_GE(t.min_log_reward(), 1008.f - 1000.f);
  EXPECT_EQ(t.index().size(), 1000);
}

TEST(ManagerTable, SamplersByNamePrioritizedAndUniform) {
  auto t = filled(10, {0.f, std::log(9.f)});  // rewards 1 and 9
  const auto items = t.sample(10000, buffer::SamplerKind::kPrioritized);
  ASSERT_EQ(items.size(), 10000);
  EXPECT_TRUE(items.trajectories.empty());  // stored without trajectories
  int high = 0;
  for (float lr : items.log_rewards) high += lr > 1.f ? 1 : 0;
  EXPECT_NEAR(high / 10000.0, 0.9, 0.02);
  EXPECT_EQ(t.sample(10).size(), 10);  // the first sampler: prioritized
  const auto uniform = t.sample(10000, buffer::SamplerKind::kUniform);
  high = 0;
  for (float lr : uniform.log_rewards) high += lr > 1.f ? 1 : 0;
  EXPECT_NEAR(high / 10000.0, 0.5, 0.03);
  // With replacement, always: more items than stored.
  EXPECT_EQ(t.sample(3, buffer::SamplerKind::kUniform).size(), 3);
  EXPECT_EQ(t.sample(0, buffer::SamplerKind::kUniform).size(), 0);
  EXPECT_TRUE(t.has_sampler(buffer::SamplerKind::kUniform));
  EXPECT_EQ(t.sampler_names(), (std::vector<std::string>{"prioritized", "uniform"}));
  EXPECT_FALSE(t.has_sampler(buffer::SamplerKind::kRank));
  EXPECT_EQ(buffer::ReplayTable(buffer::manager_table_options(4, 0, 1.0, 0.01)).sampler_names(),
            (std::vector<std::string>{"prioritized", "uniform", "rank"}));
  EXPECT_THROW(t.sample(-1, buffer::SamplerKind::kUniform), std::invalid_argument);
  EXPECT_THROW(manager(3).sample(5, buffer::SamplerKind::kPrioritized), std::logic_error);
  EXPECT_TRUE(manager(3).sample(0, buffer::SamplerKind::kPrioritized).log_rewards.empty());
  // A sampler the table lacks, or one given twice, is refused.
  ReplayTable uniform_only(local_table_options(buffer::ReplayKind::kUniform, 4, 0.0, 1.0, 5));
  EXPECT_FALSE(uniform_only.has_sampler(buffer::SamplerKind::kPrioritized));
  EXPECT_THROW(uniform_only.sample(0, buffer::SamplerKind::kPrioritized), std::invalid_argument);
  TableOptions twice;
  twice.samplers = {buffer::SamplerKind::kUniform, buffer::SamplerKind::kUniform};
  EXPECT_THROW(ReplayTable{twice}, std::invalid_argument);
}

// Each stored item keeps its own trajectory through evictions and pool compactions: the
// actions of the item with state x are {x % 3, x % 5, 9} (x % 7 + 1 of them, exit last).
TEST(ManagerTable, TrajectoriesStayWithTheirItemsThroughEvictions) {
  const auto actions_of = [](std::int64_t x) {
    std::vector<std::int64_t> a;
    for (std::int64_t k = 0; k < x % 7; ++k) a.push_back((x + k) % 9);
    a.push_back(9);
    return a;
  };
  ReplayTable t = manager(50);
  for (int b = 0; b < 400; ++b) {
    std::vector<std::int64_t> states;
    std::vector<float> rewards;
    std::vector<std::vector<std::int64_t>> seqs;
    for (int i = 0; i < 16; ++i) {
      const std::int64_t x = b * 16 + i;
      states.push_back(x);
      rewards.push_back(static_cast<float>((x * 7919) % 1000));
      // Every fourth item comes without a trajectory (length 0).
      seqs.push_back(i % 4 == 3 ? std::vector<std::int64_t>{} : actions_of(x));
    }
    t.add(states, rewards, 1, PackedTrajectories::from_sequences(seqs));
  }
  ASSERT_EQ(t.size(), 50);
  for (Slot s = 0; s < t.size(); ++s) {
    const std::int64_t x = *t.state(s);
    const std::vector<std::int64_t> got(t.trajectory(s), t.trajectory(s) + t.trajectory_length(s));
    EXPECT_EQ(got, x % 16 % 4 == 3 ? std::vector<std::int64_t>{} : actions_of(x)) << x;
  }
  const auto batch = t.sample(200, buffer::SamplerKind::kUniform);
  const auto offsets = batch.trajectories.offsets();
  ASSERT_EQ(batch.trajectories.size(), 200);
  for (std::int64_t i = 0; i < batch.size(); ++i) {
    const std::int64_t x = batch.states[static_cast<std::size_t>(i)];
    EXPECT_EQ(batch.trajectories.sequence(i),
              x % 16 % 4 == 3 ? std::vector<std::int64_t>{} : actions_of(x));
  }
  EXPECT_EQ(offsets.back(), batch.trajectories.actions.size());
}

// ---- The trainer-local buffer (replay.kind).

TableOptions local(buffer::ReplayKind kind, std::int64_t capacity) {
  return local_table_options(kind, capacity, 0.0, 1.0, 5);
}

// Adds items (x, 0) with the given log rewards, each with the trajectory {0, 2}.
AddResult add_items(ReplayTable& t, const std::vector<std::pair<std::int64_t, float>>& items) {
  std::vector<std::int64_t> states;
  std::vector<float> rewards;
  PackedTrajectories trajs;
  const std::int64_t actions[] = {0, 2};
  for (const auto& [x, lr] : items) {
    states.insert(states.end(), {x, 0});
    rewards.push_back(lr);
    trajs.append(actions, 2);
  }
  return t.add(states, rewards, 2, trajs);
}

std::vector<std::int64_t> xs_by(const ReplayTable& t, const std::vector<Slot>& slots) {
  std::vector<std::int64_t> out;
  for (const Slot s : slots) out.push_back(*t.state(s));
  return out;
}

TEST(LocalTable, UniformKeepsTheMostRecentAndSamplesWithoutReplacement) {
  ReplayTable t(local(buffer::ReplayKind::kUniform, 6));
  for (int batch = 0; batch < 3; ++batch) {
    std::vector<std::pair<std::int64_t, float>> b;
    for (int i = 0; i < 4; ++i) b.push_back({batch * 4 + i, -float(batch * 4 + i)});
    EXPECT_EQ(add_items(t, b).accepted, 4);
  }
  ASSERT_EQ(t.size(), 6);
  EXPECT_EQ(xs_by(t, t.slots_by_age()), (std::vector<std::int64_t>{6, 7, 8, 9, 10, 11}));  // FIFO
  const auto s = t.sample(6);
  std::set<std::int64_t> seen;
  for (std::int64_t i = 0; i < s.size(); ++i) seen.insert(s.states[2 * i]);
  EXPECT_EQ(seen.size(), 6u);           // n <= size: distinct items
  EXPECT_EQ(t.sample(20).size(), 20);   // n > size: with replacement
  EXPECT_EQ(s.trajectories.size(), 6);  // each with its trajectory
  // Uniform frequencies.
  std::vector<int> counts(12, 0);
  for (int k = 0; k < 6000; ++k) ++counts[t.sample(1).states[0]];
  for (int i = 6; i < 12; ++i) EXPECT_NEAR(counts[i] / 6000.0, 1.0 / 6, 0.025);
}

TEST(LocalTable, PrioritizedKeepsHighestRewardsTiesToTheNewerAndSamplesBySoftmax) {
  ReplayTable t(local(buffer::ReplayKind::kPrioritized, 3));
  add_items(t, {{0, 0.5f}, {1, -1.f}, {2, 2.f}});
  add_items(t, {{3, 1.f}, {4, -3.f}});
  ASSERT_EQ(t.size(), 3);
  // Descending log reward: 2, 1, 0.5.
  EXPECT_EQ(xs_by(t, t.slots_by_reward()), (std::vector<std::int64_t>{2, 3, 0}));
  add_items(t, {{5, 0.5f}});  // ties: the newer item is kept
  EXPECT_EQ(xs_by(t, t.slots_by_reward()), (std::vector<std::int64_t>{2, 3, 5}));
  // Within one batch too: of two equal items at the boundary, the later one stays.
  ReplayTable one(local(buffer::ReplayKind::kPrioritized, 1));
  add_items(one, {{7, 1.f}, {8, 1.f}});
  EXPECT_EQ(xs_by(one, one.slots_by_reward()), (std::vector<std::int64_t>{8}));

  ReplayTable two(local(buffer::ReplayKind::kPrioritized, 10));
  add_items(two, {{0, std::log(1.f)}, {1, std::log(3.f)}});
  int high = 0;
  for (int k = 0; k < 8000; ++k) high += two.sample(1).states[0] == 1;
  EXPECT_NEAR(high / 8000.0, 0.75, 0.02);
  // Without replacement for n <= size: both items exactly once.
  const auto both = two.sample(2);
  EXPECT_NE(both.states[0], both.states[2]);
  EXPECT_EQ(two.sample(5).size(), 5);  // n > size: with replacement
}

TEST(LocalTable, RefusesBadInput) {
  EXPECT_THROW(ReplayTable(local(buffer::ReplayKind::kUniform, 0)), std::invalid_argument);
  EXPECT_THROW(local_table_options(buffer::ReplayKind::kDiverse, 4, 0.0, 0.0, 1),
               std::invalid_argument);                                       // p_norm
  EXPECT_THROW(local(buffer::ReplayKind::kNone, 4), std::invalid_argument);  // no buffer
  ReplayTable t(local(buffer::ReplayKind::kUniform, 4));
  EXPECT_THROW(t.sample(1), std::logic_error);
  EXPECT_THROW(add_items(t, {{0, std::nanf("")}}), std::invalid_argument);
  // Every item needs a trajectory of >= 1 action.
  EXPECT_THROW(t.add({0, 0}, {0.f}, 2), std::invalid_argument);
  EXPECT_THROW(t.add({0, 0}, {0.f}, 2, PackedTrajectories({0}, {})), std::invalid_argument);
  add_items(t, {{0, 0.f}});
  EXPECT_THROW(t.add({0, 0, 1}, {0.f}, 3, PackedTrajectories({1}, {2})), std::invalid_argument);
  EXPECT_THROW(t.sample(-1), std::invalid_argument);
  EXPECT_EQ(t.size(), 1);
  // ±inf log rewards are stored (only NaN is an error).
  EXPECT_EQ(add_items(t, {{1, -kInf}}).retained, 1);
}

}  // namespace
}  // namespace gfn::buffer
