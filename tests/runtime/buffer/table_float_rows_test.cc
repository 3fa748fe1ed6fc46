// Float32 state rows in the replay table (runtime/buffer/table.h; continuous environments):
// stored, sampled and evicted as int64 rows are, the dtype fixed by the first insert or by
// TableOptions::state_dtype with the other dtype refused; their StateIndex answers exact
// duplicates (-0 as +0) and nearest distances as a scan does; a table of float rows
// round trips through its checkpoint bytes (format version 2) and continues exactly, while
// a table of int64 rows still writes version 1 and reads version-1 bytes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/buffer/scorer.h"
#include "runtime/buffer/table.h"
#include "runtime/buffer/table_state.h"
#include "tests/support/error_text.h"

namespace gfn::buffer {
namespace {

using gfn::testing::what_of;

std::vector<float> random_rows(std::mt19937_64& g, std::int64_t n, int ndim) {
  std::uniform_real_distribution<float> u(0.f, 1.f);
  std::vector<float> out(static_cast<std::size_t>(n * ndim));
  for (auto& v : out) v = u(g);
  return out;
}

std::vector<float> random_rewards(std::mt19937_64& g, std::int64_t n) {
  std::uniform_int_distribution<int> level(0, 4);
  std::vector<float> out(static_cast<std::size_t>(n));
  for (auto& v : out) v = 0.5f * static_cast<float>(level(g)) - 1.f;
  return out;
}

std::uint32_t format_version(const std::string& bytes) {
  std::uint32_t v = 0;
  std::memcpy(&v, bytes.data() + 1, sizeof v);  // cereal portable binary: an endianness byte first
  return v;
}

TEST(TableFloatRows, StoresSamplesAndEvictsFloatRows) {
  ReplayTable table(manager_table_options(4, 1));
  const std::vector<float> states = {0.5f, 0.25f, 1.5f, -2.f, 0.f, 3.f};
  table.add_float(states, {-1.f, -0.5f, -2.f}, 2);
  EXPECT_EQ(table.state_dtype(), StateDtype::kFloat32);
  EXPECT_EQ(table.ndim(), 2);
  EXPECT_EQ(table.size(), 3);
  EXPECT_EQ(table.float_state(1)[0], 1.5f);
  EXPECT_EQ(table.float_state(1)[1], -2.f);
  const TableBatch batch = table.sample(16, SamplerKind::kUniform);
  EXPECT_EQ(batch.dtype, StateDtype::kFloat32);
  EXPECT_TRUE(batch.states.empty());
  ASSERT_EQ(batch.float_states.size(), 32u);
  for (std::int64_t i = 0; i < batch.size(); ++i) {  // every drawn row is a stored item's
    bool found = false;
    for (Slot s = 0; s < table.size(); ++s) {
      found = found || (table.float_state(s)[0] == batch.float_states[2 * i] &&
                        table.float_state(s)[1] == batch.float_states[2 * i + 1] &&
                        table.log_reward(s) == batch.log_rewards[i]);
    }
    EXPECT_TRUE(found) << "row " << i;
  }
  // Full at 4: the lowest reward (-2, the row (0, 3)) is evicted by a better item.
  table.add_float(std::vector<float>{7.f, 7.f, 8.f, 8.f}, {0.f, 0.5f}, 2);
  EXPECT_EQ(table.size(), 4);
  EXPECT_EQ(table.index().size(), 4);
  const float gone[2] = {0.f, 3.f};
  EXPECT_EQ(table.index().count(gone), 0);
  const float kept[2] = {8.f, 8.f};
  EXPECT_EQ(table.index().count(kept), 1);
}

TEST(TableFloatRows, TheDtypesDoNotMix) {
  ReplayTable floats(manager_table_options(8, 0));
  floats.add_float(std::vector<float>{0.1f, 0.2f}, {-1.f}, 2);
  EXPECT_NE(what_of([&] {
              floats.add(std::vector<std::int64_t>{1, 2}, {-1.f}, 2);
            }).find("int64 states into a table of float32 states"),
            std::string::npos);
  ReplayTable ints(manager_table_options(8, 0));
  ints.add(std::vector<std::int64_t>{1, 2}, {-1.f}, 2);
  EXPECT_NE(what_of([&] {
              ints.add_float(std::vector<float>{0.1f, 0.2f}, {-1.f}, 2);
            }).find("float32 states into a table of int64 states"),
            std::string::npos);
  // Fixed by the option before any insert.
  auto options = manager_table_options(8, 0);
  options.state_dtype = StateDtype::kFloat32;
  ReplayTable fixed(options);
  EXPECT_EQ(fixed.state_dtype(), StateDtype::kFloat32);
  EXPECT_THROW(fixed.add(std::vector<std::int64_t>{1, 2}, {-1.f}, 2), std::invalid_argument);
  // Non-finite state values are refused, storing nothing.
  EXPECT_NE(what_of([&] {
              fixed.add_float(std::vector<float>{0.f, 1.f, std::nanf(""), 0.f}, {-1.f, -1.f}, 2);
            }).find("item 1 has a non-finite state value"),
            std::string::npos);
  EXPECT_TRUE(fixed.empty());
  // The index refuses the other dtype too.
  EXPECT_THROW(floats.index().novelty_sum(std::vector<std::int64_t>{1, 2}.data(), 1, 2, 2.0),
               std::invalid_argument);
}

TEST(TableFloatRows, IndexFindsDuplicatesAndNearestLikeAScan) {
  std::mt19937_64 g(5);
  ReplayTable table(manager_table_options(300, 0));
  const int ndim = 3;
  const auto stored = random_rows(g, 250, ndim);
  table.add_float(stored, random_rewards(g, 250), ndim);
  std::vector<float> queries = random_rows(g, 40, ndim);
  queries.insert(queries.end(), stored.begin(), stored.begin() + 3 * ndim);  // duplicates
  for (const double p : {1.0, 2.0, 3.0}) {
    for (std::size_t q = 0; q < queries.size() / ndim; ++q) {
      const float* row = queries.data() + q * ndim;
      double best = std::numeric_limits<double>::infinity();
      for (Slot s = 0; s < table.size(); ++s) {
        double acc = 0;
        for (int k = 0; k < ndim; ++k) {
          acc += std::pow(std::abs(static_cast<double>(row[k]) - table.float_state(s)[k]), p);
        }
        best = std::min(best, std::pow(acc, 1 / p));
      }
      EXPECT_NEAR(table.index().nearest_distance(row, p), best, 1e-12 * std::max(1.0, best))
          << "p " << p << " query " << q;
    }
    const std::vector<std::int64_t> none;
    const BatchView view{none, std::vector<float>(queries.size() / ndim, 0.f), ndim, &queries};
    const double fast = novelty_sum(view, table, p);
    EXPECT_NEAR(fast, novelty_sum_reference(view, table, p, 1 << 10), 1e-6 * fast);
    EXPECT_GT(fast, 0.0);
  }
  const float zero[3] = {0.f, 0.f, 0.f}, minus_zero[3] = {-0.f, 0.f, -0.f};
  ReplayTable zeros(manager_table_options(4, 0));
  zeros.add_float(std::vector<float>(zero, zero + 3), {0.f}, 3);
  EXPECT_EQ(zeros.index().count(minus_zero), 1);  // -0 is +0
  EXPECT_EQ(zeros.index().nearest_distance(minus_zero, 2.0), 0.0);
}

TEST(TableFloatRows, CheckpointRoundTripContinuesExactly) {
  std::mt19937_64 g(11);
  ReplayTable original(manager_table_options(20, 3));
  for (int b = 0; b < 4; ++b) original.add_float(random_rows(g, 8, 2), random_rewards(g, 8), 2);
  const std::string bytes = encode_table_state(original.save_state());
  const TableState state = decode_table_state(bytes, "test");
  EXPECT_EQ(state.state_dtype, StateDtype::kFloat32);
  EXPECT_TRUE(state.states.empty());
  EXPECT_EQ(state.float_states.size(), 40u);
  EXPECT_EQ(state, original.save_state());
  ReplayTable copy(manager_table_options(20, 99));
  copy.restore_state(state);
  EXPECT_EQ(copy.state_dtype(), StateDtype::kFloat32);
  for (int b = 0; b < 3; ++b) {  // the same inserts, samples and evictions afterwards
    const auto states = random_rows(g, 6, 2);
    const auto rewards = random_rewards(g, 6);
    EXPECT_EQ(original.add_float(states, rewards, 2).retained,
              copy.add_float(states, rewards, 2).retained);
    const auto a = original.sample(10, SamplerKind::kPrioritized);
    const auto c = copy.sample(10, SamplerKind::kPrioritized);
    EXPECT_EQ(a.float_states, c.float_states);
    EXPECT_EQ(a.log_rewards, c.log_rewards);
  }
  EXPECT_EQ(copy.save_state(), original.save_state());
  // A state of float rows is refused by a table fixed to int64 rows, changing nothing.
  auto ints = manager_table_options(20, 3);
  ints.state_dtype = StateDtype::kInt64;
  ReplayTable fixed(ints);
  EXPECT_NE(what_of([&] { fixed.restore_state(state); }).find("float32 rows"), std::string::npos);
  EXPECT_TRUE(fixed.empty());
  // A non-finite stored value is refused.
  TableState bad = state;
  bad.float_states[5] = std::numeric_limits<float>::infinity();
  EXPECT_THROW(copy.restore_state(bad), std::invalid_argument);
}

TEST(TableFloatRows, Int64TablesKeepFormatVersionOne) {
  ReplayTable ints(manager_table_options(8, 0));
  ints.add(std::vector<std::int64_t>{1, 2, 3, 4}, {-1.f, -2.f}, 2);
  const std::string v1 = encode_table_state(ints.save_state());
  ReplayTable floats(manager_table_options(8, 0));
  floats.add_float(std::vector<float>{1.f, 2.f}, {-1.f}, 2);
  const std::string v2 = encode_table_state(floats.save_state());
  EXPECT_NE(format_version(v1), format_version(v2));
  // Version-1 bytes (every checkpoint before float rows) decode, as int64 rows.
  const TableState back = decode_table_state(v1, "old checkpoint");
  EXPECT_EQ(back.state_dtype, StateDtype::kInt64);
  EXPECT_EQ(back.states, (std::vector<std::int64_t>{1, 2, 3, 4}));
  EXPECT_EQ(back, ints.save_state());
  // An unknown dtype byte in version-2 bytes is refused.
  std::string corrupt = v2;
  const std::size_t dtype_at = v2.size() - sizeof(std::uint64_t) - 2 * sizeof(float) - 1;
  corrupt[dtype_at] = 9;
  EXPECT_NE(what_of([&] { decode_table_state(corrupt, "test"); }).find("state dtype 9"),
            std::string::npos);
}

}  // namespace
}  // namespace gfn::buffer
