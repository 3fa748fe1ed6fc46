// Checkpoints of the replay table (runtime/buffer/table_state.h, ReplayTable::save_state /
// restore_state): a table restored from the bytes of a saved one, into a fresh table built
// with the same options (but another seed), answers the same sequence of inserts, samples
// and evictions exactly as the original, in the manager's configuration and in the three
// trainer-local ones; the samplers' saved order is used; bad states are refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/buffer/table.h"
#include "runtime/buffer/table_state.h"

namespace gfn::buffer {
namespace {

constexpr int kNdim = 2;

struct Batch {
  std::vector<std::int64_t> states;
  std::vector<float> log_rewards;
  PackedTrajectories trajectories;
};

/// n items on a 4 x 4 grid (duplicates and close states), log rewards among 5 values (ties),
/// trajectories of 1..4 random actions (or none, for a manager batch when `with_traj` is false).
Batch random_batch(std::mt19937_64& g, std::int64_t n, bool with_traj) {
  std::uniform_int_distribution<std::int64_t> coord(0, 3), action(0, 9);
  std::uniform_int_distribution<int> reward(0, 4), length(1, 4);
  Batch b;
  for (std::int64_t i = 0; i < n; ++i) {
    b.states.push_back(coord(g));
    b.states.push_back(coord(g));
    b.log_rewards.push_back(0.5f * static_cast<float>(reward(g)) - 1.f);
    if (with_traj) {
      std::vector<std::int64_t> actions(static_cast<std::size_t>(length(g)));
      for (auto& a : actions) a = action(g);
      b.trajectories.append(actions.data(), static_cast<std::int32_t>(actions.size()));
    }
  }
  return b;
}

struct Config {
  const char* name;
  TableOptions (*options)(std::uint64_t seed);
  bool trajectories_required;
};

TableOptions manager(std::uint64_t seed) { return manager_table_options(20, seed); }
TableOptions manager_rank(std::uint64_t seed) {
  return manager_table_options(20, seed, 1.0, 0.05);  // buffer.remote_sampler: rank
}
TableOptions uniform(std::uint64_t seed) {
  return local_table_options(buffer::ReplayKind::kUniform, 20, 0.0, 1.0, seed);
}
TableOptions prioritized(std::uint64_t seed) {
  return local_table_options(buffer::ReplayKind::kPrioritized, 20, 0.0, 1.0, seed);
}
TableOptions diverse(std::uint64_t seed) {
  return local_table_options(buffer::ReplayKind::kDiverse, 20, 0.5, 1.0, seed);
}

const Config kConfigs[] = {{"manager", manager, false},
                           {"manager_rank", manager_rank, false},
                           {"uniform", uniform, true},
                           {"prioritized", prioritized, true},
                           {"diverse", diverse, true}};

void expect_same_batch(const TableBatch& a, const TableBatch& b, const std::string& where) {
  EXPECT_EQ(a.ndim, b.ndim) << where;
  EXPECT_EQ(a.states, b.states) << where;
  EXPECT_EQ(a.log_rewards, b.log_rewards) << where;
  EXPECT_EQ(a.trajectories, b.trajectories) << where;
}

/// Random inserts and samples on `table` (the samples only advance its generator).
void fill(ReplayTable& table, std::mt19937_64& g, int batches, bool traj_required) {
  std::uniform_int_distribution<std::int64_t> n(1, 8);
  for (int k = 0; k < batches; ++k) {
    const bool with_traj = traj_required || k % 2 == 0;
    const Batch b = random_batch(g, n(g), with_traj);
    table.add(b.states, b.log_rewards, kNdim, b.trajectories);
    if (!table.empty()) table.sample(n(g));
  }
}

ReplayTable restored_copy(const ReplayTable& table, const Config& c) {
  const std::string bytes = encode_table_state(table.save_state());
  ReplayTable copy(c.options(/*seed=*/999));  // another seed: the state brings the generator
  copy.restore_state(decode_table_state(bytes, "test"));
  return copy;
}

TEST(TableState, RestoredTableContinuesExactlyLikeTheOriginal) {
  for (const Config& c : kConfigs) {
    SCOPED_TRACE(c.name);
    ReplayTable original(c.options(7));
    std::mt19937_64 g(42);
    fill(original, g, 15, c.trajectories_required);
    ASSERT_EQ(original.size(), 20) << "the fill must reach capacity, so inserts evict";
    ReplayTable copy = restored_copy(original, c);
    EXPECT_EQ(copy.save_state(), original.save_state());
    EXPECT_EQ(copy.size(), original.size());
    EXPECT_EQ(copy.index().size(), original.index().size());

    std::uniform_int_distribution<std::int64_t> n(1, 30);
    std::int64_t changed_items = 0;
    for (int step = 0; step < 40; ++step) {
      const std::string where = "step " + std::to_string(step);
      const Batch b = random_batch(g, n(g) % 8 + 1, c.trajectories_required || step % 2 == 0);
      const AddResult ra = original.add(b.states, b.log_rewards, kNdim, b.trajectories);
      const AddResult rb = copy.add(b.states, b.log_rewards, kNdim, b.trajectories);
      EXPECT_EQ(ra.accepted, rb.accepted) << where;
      EXPECT_EQ(ra.retained, rb.retained) << where;
      changed_items += ra.retained;
      for (const auto kind : {buffer::SamplerKind::kPrioritized, buffer::SamplerKind::kUniform,
                              buffer::SamplerKind::kRank}) {
        if (!original.has_sampler(kind)) continue;
        const std::int64_t m = n(g);  // sometimes more than the table holds
        expect_same_batch(original.sample(m, kind), copy.sample(m, kind),
                          where + " " + config::enum_name(kind));
      }
      EXPECT_EQ(original.min_log_reward(), copy.min_log_reward()) << where;
      EXPECT_EQ(original.slots_by_age(), copy.slots_by_age()) << where;
    }
    EXPECT_GT(changed_items, 0) << "the inserts after the restore must store (and evict) items";
    EXPECT_EQ(copy.save_state(), original.save_state());
  }
}

TEST(TableState, TheSamplersSavedOrderIsUsed) {
  // A uniform sampler with replacement draws by position: another order of the same slots
  // draws other items from the same generator state.
  ReplayTable original(manager(7));
  std::mt19937_64 g(1);
  fill(original, g, 15, false);
  TableState state = original.save_state();
  ASSERT_EQ(state.sampler_orders.size(), 2u);
  ASSERT_EQ(state.sampler_orders[1].size(), 20u);
  ReplayTable same(manager(7));
  same.restore_state(state);
  std::reverse(state.sampler_orders[1].begin(), state.sampler_orders[1].end());
  ReplayTable reordered(manager(7));
  reordered.restore_state(state);
  EXPECT_EQ(reordered.save_state().sampler_orders[1], state.sampler_orders[1]);
  EXPECT_NE(same.sample(50, buffer::SamplerKind::kUniform).states,
            reordered.sample(50, buffer::SamplerKind::kUniform).states);
}

TEST(TableState, EmptyTableRoundTrips) {
  for (const Config& c : kConfigs) {
    SCOPED_TRACE(c.name);
    ReplayTable original(c.options(3));
    ReplayTable copy = restored_copy(original, c);
    EXPECT_TRUE(copy.empty());
    EXPECT_EQ(copy.save_state(), original.save_state());
  }
}

TEST(TableState, RefusesAnotherTableAndInconsistentStatesChangingNothing) {
  ReplayTable original(manager(7));
  std::mt19937_64 g(3);
  fill(original, g, 10, false);
  const TableState good = original.save_state();

  ReplayTable target(manager(7));
  target.add({1, 1}, {0.f}, kNdim);
  const TableState target_before = target.save_state();
  const auto refused = [&](TableState s, const std::string& what) {
    EXPECT_THROW(target.restore_state(s), std::invalid_argument) << what;
    EXPECT_EQ(target.save_state(), target_before) << what << ": the table must be unchanged";
  };
  ReplayTable other_capacity(manager_table_options(21, 7));
  EXPECT_THROW(other_capacity.restore_state(good), std::invalid_argument);
  ReplayTable local(uniform(7));
  EXPECT_THROW(local.restore_state(good), std::invalid_argument);

  TableState s = good;
  s.sampler_orders[0].pop_back();
  refused(s, "an order that is not a permutation");
  s = good;
  s.sampler_orders[0][0] = s.sampler_orders[0][1];
  refused(s, "an order with a slot twice");
  s = good;
  s.serials.pop_back();
  refused(s, "fewer serials than items");
  s = good;
  s.serials[1] = s.serials[0];
  refused(s, "a serial twice");
  s = good;
  s.serials[0] = s.next_serial;
  refused(s, "a serial not below the next serial");
  s = good;
  s.trajectories.actions.push_back(0);
  refused(s, "actions that do not add up");
  s = good;
  s.rng = "not a generator";
  refused(s, "a bad generator state");
  s = good;
  s.sampler_orders[1] = {};
  EXPECT_THROW(target.restore_state(s), std::invalid_argument) << "a missing order";
}

TEST(TableState, BadBytesAreRefusedNamingWhat) {
  ReplayTable original(manager(7));
  std::mt19937_64 g(5);
  fill(original, g, 5, false);
  const std::string bytes = encode_table_state(original.save_state());
  EXPECT_EQ(decode_table_state(bytes, "x"), original.save_state());
  try {
    decode_table_state(bytes.substr(0, bytes.size() / 2), "rank_1.pt");
    FAIL() << "truncated bytes must be refused";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("rank_1.pt"), std::string::npos) << e.what();
  }
  EXPECT_THROW(decode_table_state(bytes + "x", "x"), std::runtime_error);
  std::string other_version = bytes;
  other_version[0] = static_cast<char>(other_version[0] + 1);
  EXPECT_THROW(decode_table_state(other_version, "x"), std::runtime_error);
}

}  // namespace
}  // namespace gfn::buffer
