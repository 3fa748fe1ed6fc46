#include "runtime/timing/reports.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <memory>
#include <sstream>

namespace gfn::timing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TimingTable make(std::vector<std::pair<std::string, std::vector<double>>> steps) {
  TimingTable t;
  const std::size_t iterations = steps.front().second.size();
  for (std::size_t it = 0; it < iterations; ++it) {
    t.begin_iteration();
    for (const auto& [name, values] : steps) {
      if (values[it] >= 0) t.add(name, values[it]);
    }
  }
  return t;
}

// Three ranks, two iterations. Hand-computed expectations:
//   sample: rank0 [1,3] rank1 [2,1] rank2 [3,2]
//   loss:   rank0 [.5,.5] rank1 [1.5,.5] rank2 [1,2]
//   only0:  rank0 [2,0] (missing on ranks 1 and 2)
std::vector<TimingTable> three_ranks() {
  return {make({{"sample", {1.0, 3.0}}, {"loss", {0.5, 0.5}}, {"only0", {2.0, -1}}}),
          make({{"sample", {2.0, 1.0}}, {"loss", {1.5, 0.5}}}),
          make({{"sample", {3.0, 2.0}}, {"loss", {1.0, 2.0}}})};
}

class ReportsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    previous_ = spdlog::default_logger();
    auto logger = std::make_shared<spdlog::logger>(
        "capture", std::make_shared<spdlog::sinks::ostream_sink_mt>(log_));
    spdlog::set_default_logger(logger);
  }
  void TearDown() override { spdlog::set_default_logger(previous_); }
  std::ostringstream log_;
  std::shared_ptr<spdlog::logger> previous_;
};

TEST_F(ReportsTest, TimeInfoPerRankMeanTotalAndAcrossRanks) {
  const TimeReport r = report_time_info(three_ranks(), {10, 11, 12});
  ASSERT_EQ(r.ranks.size(), 3u);
  EXPECT_EQ(r.ranks[2].rank, 12);
  const auto& r0 = r.ranks[0].steps;
  ASSERT_EQ(r0.size(), 3u);
  EXPECT_EQ(r0[0].step, "sample");
  EXPECT_DOUBLE_EQ(r0[0].mean_s, 2.0);
  EXPECT_DOUBLE_EQ(r0[0].total_s, 4.0);
  EXPECT_EQ(r0[0].iterations, 2);
  EXPECT_DOUBLE_EQ(r0[2].mean_s, 1.0);  // only0: [2, 0]
  EXPECT_DOUBLE_EQ(r.ranks[1].steps[1].mean_s, 1.0);
  EXPECT_DOUBLE_EQ(r.ranks[2].steps[1].total_s, 3.0);

  ASSERT_EQ(r.across.size(), 3u);
  EXPECT_EQ(r.across[0].step, "sample");
  EXPECT_DOUBLE_EQ(r.across[0].max_total_s, 5.0);  // totals 4, 3, 5
  EXPECT_DOUBLE_EQ(r.across[0].mean_total_s, 4.0);
  EXPECT_DOUBLE_EQ(r.across[1].max_total_s, 3.0);  // totals 1, 2, 3
  EXPECT_DOUBLE_EQ(r.across[1].mean_total_s, 2.0);
  EXPECT_EQ(r.across[2].step, "only0");
  EXPECT_EQ(r.across[2].num_ranks, 1);
  EXPECT_DOUBLE_EQ(r.across[2].mean_total_s, 2.0);
  EXPECT_THAT(log_.str(), HasSubstr("step 'only0' is timed on 1 of 3 ranks"));

  const std::string s = r.to_string();
  EXPECT_THAT(s, HasSubstr("rank 12"));
  EXPECT_THAT(s, HasSubstr("  sample        2.0000        4.0000           2"));
  EXPECT_THAT(s, HasSubstr("  sample        5.0000        4.0000      3/3"));
  EXPECT_THAT(s, HasSubstr("1/3"));
  EXPECT_THROW(report_time_info(three_ranks(), {1}), std::invalid_argument);
}

TEST_F(ReportsTest, LoadImbalanceUsefulIsMeanWaitingIsMaxMinusMean) {
  const LoadImbalanceReport r = report_load_imbalance(three_ranks());
  ASSERT_EQ(r.steps.size(), 2u);
  // sample: iter0 mean 2 max 3; iter1 mean 2 max 3 -> useful 4, waiting 2
  EXPECT_EQ(r.steps[0].step, "sample");
  EXPECT_DOUBLE_EQ(r.steps[0].useful_s, 4.0);
  EXPECT_DOUBLE_EQ(r.steps[0].waiting_s, 2.0);
  EXPECT_EQ(r.steps[0].iterations, 2);
  // loss: iter0 mean 1 max 1.5; iter1 mean 1 max 2 -> useful 2, waiting 1.5
  EXPECT_DOUBLE_EQ(r.steps[1].useful_s, 2.0);
  EXPECT_DOUBLE_EQ(r.steps[1].waiting_s, 1.5);
  EXPECT_DOUBLE_EQ(r.total_useful_s, 6.0);
  EXPECT_DOUBLE_EQ(r.total_waiting_s, 3.5);
  EXPECT_THAT(r.skipped, ElementsAre("only0"));
  EXPECT_THAT(log_.str(), HasSubstr("step 'only0' is not timed on rank(s) 1,2, skipping it"));

  const std::string s = r.to_string();
  EXPECT_THAT(s, HasSubstr("sample             4.0000        2.0000      33.3%"));
  EXPECT_THAT(s, HasSubstr("total              6.0000        3.5000      36.8%"));
  EXPECT_THAT(s, HasSubstr("skipped: only0"));
}

TEST_F(ReportsTest, DifferentIterationCountsAreSkipped) {
  const std::vector<TimingTable> tables = {make({{"a", {1.0, 1.0}}}),
                                           make({{"a", {1.0, 1.0, 1.0}}})};
  const LoadImbalanceReport r = report_load_imbalance(tables);
  EXPECT_TRUE(r.steps.empty());
  EXPECT_THAT(r.skipped, ElementsAre("a"));
  EXPECT_THAT(log_.str(), HasSubstr("step 'a' has different iteration counts per rank (2,3)"));
  EXPECT_DOUBLE_EQ(r.total_useful_s, 0.0);
  // A balanced step has no waiting.
  const LoadImbalanceReport even =
      report_load_imbalance({make({{"a", {0.5, 2.0}}}), make({{"a", {0.5, 2.0}}})});
  EXPECT_DOUBLE_EQ(even.steps[0].useful_s, 2.5);
  EXPECT_DOUBLE_EQ(even.steps[0].waiting_s, 0.0);
}

// Two ranks whose tables compacted (max_rows 2, 4 iterations: rows of 2 iterations).
//   rank0 a [1, 3, 2, 2] -> rows [4, 4];  rank1 a [3, 1, 2, 2] -> rows [4, 4]
// Per iteration the ranks wait (iterations 0 and 1: max - mean = 1 each); per row they do
// not: the report sees blocks, so waiting can only be understated, never the useful work.
TEST_F(ReportsTest, CompactedTablesReportTrueIterationsAndBlockWaiting) {
  auto bounded = [](const std::vector<double>& values) {
    TimingTable t(2);
    for (double v : values) {
      t.begin_iteration();
      t.add("a", v);
    }
    return t;
  };
  const std::vector<TimingTable> tables = {bounded({1, 3, 2, 2}), bounded({3, 1, 2, 2})};
  ASSERT_EQ(tables[0].iterations_per_row(), 2);
  const TimeReport info = report_time_info(tables);
  EXPECT_EQ(info.ranks[0].steps[0].iterations, 4);
  EXPECT_DOUBLE_EQ(info.ranks[0].steps[0].mean_s, 2.0);
  const LoadImbalanceReport r = report_load_imbalance(tables);
  ASSERT_EQ(r.steps.size(), 1u);
  EXPECT_EQ(r.steps[0].iterations, 4);
  EXPECT_DOUBLE_EQ(r.steps[0].useful_s, 8.0);
  EXPECT_DOUBLE_EQ(r.steps[0].waiting_s, 0.0);
  // A rank that compacted differently (unbounded) is not compared row by row.
  const LoadImbalanceReport mixed = report_load_imbalance({tables[0], make({{"a", {3, 1, 2, 2}}})});
  EXPECT_TRUE(mixed.steps.empty());
  EXPECT_THAT(mixed.skipped, ElementsAre("a"));
  EXPECT_THAT(log_.str(), HasSubstr("step 'a' has different timing rows"));
}

}  // namespace
}  // namespace gfn::timing
