// The diversity cutoff as an insert filter (runtime/buffer/diversity_filter.h) on the
// trainer-local "diverse" table: torchgfn's NormBasedDiversePrioritizedReplayBuffer
// semantics (everything while not full; once full the reward floor, the cutoff against
// higher-ranked batch items and against the table, the p-norm).
#include "runtime/buffer/diversity_filter.h"

#include <gtest/gtest.h>

#include "runtime/buffer/table.h"

namespace gfn::buffer {
namespace {

struct Item {
  std::int64_t x, y;
  float log_reward;
};

ReplayTable diverse(std::int64_t capacity, double cutoff, double p_norm) {
  return ReplayTable(
      local_table_options(buffer::ReplayKind::kDiverse, capacity, cutoff, p_norm, 5));
}

AddResult add(ReplayTable& t, const std::vector<Item>& items) {
  std::vector<std::int64_t> states;
  std::vector<float> rewards;
  PackedTrajectories trajs;
  const std::int64_t actions[] = {0, 2};  // the table never interprets actions
  for (const auto& it : items) {
    states.insert(states.end(), {it.x, it.y});
    rewards.push_back(it.log_reward);
    trajs.append(actions, 2);
  }
  return t.add(states, rewards, 2, trajs);
}

std::vector<std::vector<std::int64_t>> ascending(const ReplayTable& t) {
  std::vector<std::vector<std::int64_t>> out;
  const auto slots = t.slots_by_reward();
  for (auto s = slots.rbegin(); s != slots.rend(); ++s)
    out.push_back({t.state(*s)[0], t.state(*s)[1]});
  return out;
}

TEST(DiversityFilter, FiltersByCutoffAndPNorm) {
  ReplayTable t = diverse(3, 1.5, 1.0);
  // Not full: everything goes in (prioritized capacity).
  EXPECT_EQ(add(t, {{0, 0, 1.f}, {10, 10, 2.f}, {20, 0, 3.f}}).accepted, 3);
  ASSERT_TRUE(t.full());
  const auto kept = add(t, {
                               {5, 5, 0.5f},    // below the table's lowest log reward (1): dropped
                               {10, 11, 5.f},   // L1 distance 1 <= 1.5 to (10, 10): dropped
                               {30, 30, 4.f},   // far from everything: kept
                               {31, 30, 3.5f},  // distance 1 to the higher-reward (30, 30)
                               {0, 5, 2.5f},    // distance 5 to (0, 0): kept
                           });
  EXPECT_EQ(kept.accepted, 2);
  ASSERT_EQ(t.size(), 3);  // highest three of {1, 2, 3, 4, 2.5}
  EXPECT_EQ(ascending(t), (std::vector<std::vector<std::int64_t>>{{0, 5}, {20, 0}, {30, 30}}));
  EXPECT_EQ(t.index().size(), 3);  // in step with the evictions
  // The p-norm changes which items are "close": (0,5)-(3,9) is 7 in L1, 5 in L2.
  ReplayTable l2 = diverse(1, 6.0, 2.0);
  add(l2, {{0, 5, 0.f}});
  EXPECT_DOUBLE_EQ(l2.index().nearest_distance(std::vector<std::int64_t>{3, 9}.data(), 1.0), 7.0);
  EXPECT_NEAR(l2.index().nearest_distance(std::vector<std::int64_t>{3, 9}.data(), 2.0), 5.0, 1e-12);
  EXPECT_EQ(add(l2, {{3, 9, 1.f}}).accepted, 0);  // L2 distance 5 <= 6
  ReplayTable l1 = diverse(1, 6.0, 1.0);
  add(l1, {{0, 5, 0.f}});
  EXPECT_EQ(add(l1, {{3, 9, 1.f}}).accepted, 1);  // L1 distance 7 > 6
  // cutoff < 0 disables the distance filter (reward floor only).
  ReplayTable off = diverse(1, -1.0, 1.0);
  add(off, {{1, 1, 0.f}});
  EXPECT_EQ(add(off, {{1, 1, 1.f}}).accepted, 1);
  EXPECT_EQ(add(off, {{1, 1, -1.f}}).accepted, 0);
}

// A dropped batch item still blocks the lower-ranked items near it (torchgfn compares with
// every higher-ranked item of the batch), and kept items go in in batch order.
TEST(DiversityFilter, DroppedBatchItemsStillCountAndOrderIsKept) {
  ReplayTable t = diverse(2, 1.5, 1.0);
  add(t, {{0, 0, 1.f}, {50, 50, 1.f}});
  // Ranked (10, 1), (10, 0), (11, 0). (10, 0) is within 1 of (10, 1): dropped. (11, 0) is 2
  // from (10, 1) but within 1 of the dropped (10, 0): dropped too. (10, 1) evicts the older
  // of the two equal lowest items, (0, 0).
  const auto r = add(t, {{11, 0, 2.f}, {10, 0, 3.f}, {10, 1, 4.f}});
  EXPECT_EQ(r.accepted, 1);
  EXPECT_EQ(ascending(t), (std::vector<std::vector<std::int64_t>>{{50, 50}, {10, 1}}));
  EXPECT_THROW(DiversityFilter({1.0, 0.0}), std::invalid_argument);
  EXPECT_THROW(DiversityFilter({1.0, std::nan("")}), std::invalid_argument);
}

}  // namespace
}  // namespace gfn::buffer
