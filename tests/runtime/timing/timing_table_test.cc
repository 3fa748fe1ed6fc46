#include "runtime/timing/timing_table.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <thread>

namespace gfn::timing {
namespace {

using ::testing::ElementsAre;

TEST(TimingTable, AccumulatesWithinAnIterationAndPadsLateSteps) {
  TimingTable t;
  t.add("sample", 1.0);  // starts iteration 0
  t.add("sample", 0.5);
  t.add("loss", 0.25);
  t.begin_iteration();
  t.add("sample", 2.0);
  t.begin_iteration();
  t.add("validate", 4.0);  // first seen in iteration 2
  EXPECT_EQ(t.num_iterations(), 3);
  EXPECT_THAT(t.steps(), ElementsAre("sample", "loss", "validate"));
  EXPECT_THAT(t.durations("sample"), ElementsAre(1.5, 2.0, 0.0));
  EXPECT_THAT(t.durations("loss"), ElementsAre(0.25, 0.0, 0.0));
  EXPECT_THAT(t.durations("validate"), ElementsAre(0.0, 0.0, 4.0));
  EXPECT_DOUBLE_EQ(t.total("sample"), 3.5);
  EXPECT_TRUE(t.has_step("loss"));
  EXPECT_FALSE(t.has_step("nope"));
  EXPECT_THROW(t.durations("nope"), std::out_of_range);
  EXPECT_THROW(t.add("sample", -1.0), std::invalid_argument);
  EXPECT_THROW(t.add("sample", std::nan("")), std::invalid_argument);
}

TEST(TimingTable, ScopedTimerAddsElapsedSteadyTime) {
  TimingTable t;
  t.begin_iteration();
  {
    ScopedTimer timer(t, "sleep");
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_GE(t.total("sleep"), 0.019);
  EXPECT_LT(t.total("sleep"), 5.0);
  ScopedTimer early(t, "early");
  const double s = early.stop();
  EXPECT_GE(s, 0.0);
  EXPECT_EQ(early.stop(), 0.0);  // second stop records nothing
  EXPECT_DOUBLE_EQ(t.total("early"), s);
}

TEST(TimingTable, CerealRoundTripAndCorruptInput) {
  TimingTable t;
  t.add("a", 0.125);
  t.begin_iteration();
  t.add("b", 3.0);
  const auto bytes = serialize_timing_table(t);
  const TimingTable back = deserialize_timing_table(bytes);
  EXPECT_TRUE(back == t);
  EXPECT_THAT(back.durations("b"), ElementsAre(0.0, 3.0));
  EXPECT_TRUE(deserialize_timing_table(serialize_timing_table(TimingTable{})) == TimingTable{});
  auto truncated = bytes;
  truncated.resize(bytes.size() / 2);
  EXPECT_THROW(deserialize_timing_table(truncated), std::runtime_error);
  EXPECT_THROW(deserialize_timing_table({}), std::runtime_error);
}

// A bounded table keeps at most max_rows rows: adjacent rows are summed, each step's total
// and the iteration count are those of an unbounded table fed the same durations.
TEST(TimingTable, CompactsToAtMostMaxRowsAndKeepsTotals) {
  TimingTable bounded(4);
  TimingTable unbounded(0);
  for (int it = 0; it < 11; ++it) {
    for (TimingTable* t : {&bounded, &unbounded}) {
      t->begin_iteration();
      t->add("sample", 1.0 + it);
      if (it >= 5) t->add("late", 0.5);  // first seen after the first compaction
    }
  }
  EXPECT_EQ(bounded.num_iterations(), 11);
  EXPECT_EQ(unbounded.num_rows(), 11u);
  // 4 rows of 1 -> 2 rows of 2 at iteration 4, 4 rows of 2 -> 2 of 4 at iteration 8.
  EXPECT_EQ(bounded.iterations_per_row(), 4);
  EXPECT_EQ(bounded.num_rows(), 3u);
  EXPECT_THAT(bounded.durations("sample"), ElementsAre(1 + 2 + 3 + 4, 5 + 6 + 7 + 8, 9 + 10 + 11));
  EXPECT_THAT(bounded.durations("late"), ElementsAre(0.0, 1.5, 1.5));
  EXPECT_DOUBLE_EQ(bounded.total("sample"), unbounded.total("sample"));
  EXPECT_DOUBLE_EQ(bounded.total("late"), unbounded.total("late"));
  const TimingTable back = deserialize_timing_table(serialize_timing_table(bounded));
  EXPECT_TRUE(back == bounded);
  EXPECT_EQ(back.num_rows(), 3u);
  EXPECT_THROW(TimingTable(3), std::invalid_argument);
  EXPECT_THROW(TimingTable(1), std::invalid_argument);
}

TEST(TimingTable, MemoryStaysBoundedOverALongRun) {
  TimingTable t(64);
  for (int it = 0; it < 100000; ++it) {
    t.begin_iteration();
    t.add("step", 1e-3);
  }
  EXPECT_LE(t.num_rows(), 64u);
  EXPECT_GT(t.num_rows(), 32u - 1);
  EXPECT_EQ(t.num_iterations(), 100000);
  EXPECT_NEAR(t.total("step"), 100.0, 1e-6);
}

}  // namespace
}  // namespace gfn::timing
