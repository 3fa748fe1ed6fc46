// The torchgfn validation schedule of the quality matrix (tools/quality-matrix/schedule.h):
// which validation torchgfn's test asserts on, the gfn-train iteration and visited count
// that match it, the validation.interval that makes gfn-train validate there, and the
// metrics.csv row picked and checked for it.

#include "tools/quality-matrix/schedule.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

namespace gfn::quality {
namespace {

namespace fs = std::filesystem;

// gfn-train validates at `it` (1-based) when it % interval == 0 or it == n (trainer.cc).
bool gfn_train_validates(std::int64_t it, std::int64_t n, std::optional<std::int64_t> interval,
                         std::int64_t config_interval) {
  const std::int64_t k = interval.value_or(config_interval);
  return it == n || it % k == 0;
}

// Brute force over torchgfn's loop: the last 0-based i at which the script validates.
std::int64_t torchgfn_last_validation(const TorchgfnSchedule& s, std::int64_t n) {
  std::int64_t last = -1;
  for (std::int64_t i = 0; i < n; ++i) {
    if (i % s.interval == 0 || (s.also_last && i == n - 1)) last = i;
  }
  return last;
}

TEST(QualitySchedule, DiscreteEbmTestIsJudgedAtIteration100Of125) {
  // test_discreteebm: 16,000 trajectories, batch 128 -> 125 iterations; validation at
  // 0-based iterations 0 and 100 only, the returned l1_dist is iteration 100's.
  const auto p = last_validation(discrete_ebm_schedule(), 125, 128, 200000);
  EXPECT_EQ(p.torchgfn_iteration, 100);
  EXPECT_EQ(p.iteration, 101);
  EXPECT_EQ(p.n_visited, 12928);
  EXPECT_FALSE(p.is_last());
  ASSERT_TRUE(interval_for(p).has_value());
  EXPECT_EQ(*interval_for(p), 101);
}

TEST(QualitySchedule, HypergridTestIsJudgedAtTheEnd) {
  // test_hypergrid_*: 32,000 trajectories, batch 128 -> 250 iterations, validated at the
  // last one too: all 32,000 visited states, our end-of-run validation.
  const auto p = last_validation(hypergrid_schedule(), 250, 128, 200000);
  EXPECT_EQ(p.torchgfn_iteration, 249);
  EXPECT_EQ(p.iteration, 250);
  EXPECT_EQ(p.n_visited, 32000);
  EXPECT_TRUE(p.is_last());
  EXPECT_FALSE(interval_for(p).has_value());
}

TEST(QualitySchedule, VisitedCountIsCappedByTheWindow) {
  const auto p = last_validation(hypergrid_schedule(), 250, 128, 20000);
  EXPECT_EQ(p.n_visited, 20000);
}

TEST(QualitySchedule, MatchesTorchgfnLoopAndGfnTrainValidatesThere) {
  for (const auto& s : {discrete_ebm_schedule(), hypergrid_schedule(),
                        TorchgfnSchedule{"every 7", 7, false}, TorchgfnSchedule{"1", 1, false}}) {
    for (std::int64_t n : {1, 2, 3, 99, 100, 101, 102, 125, 200, 201, 250}) {
      const auto p = last_validation(s, n, 16, 1000000);
      SCOPED_TRACE(s.script + " n=" + std::to_string(n));
      EXPECT_EQ(p.torchgfn_iteration, torchgfn_last_validation(s, n));
      EXPECT_EQ(p.iteration, p.torchgfn_iteration + 1);
      EXPECT_EQ(p.n_visited, p.iteration * 16);
      // Whatever the config's own interval, the run validates at p.iteration.
      for (std::int64_t config_interval : {1, 25, 50, 1000}) {
        EXPECT_TRUE(gfn_train_validates(p.iteration, n, interval_for(p), config_interval));
      }
    }
  }
}

TEST(QualitySchedule, RejectsNonPositiveArguments) {
  EXPECT_THROW(last_validation(hypergrid_schedule(), 0, 128, 1), std::invalid_argument);
  EXPECT_THROW(last_validation({"x", 0, false}, 10, 128, 1), std::invalid_argument);
  EXPECT_THROW(last_validation(hypergrid_schedule(), 10, 0, 1), std::invalid_argument);
  EXPECT_THROW(last_validation(hypergrid_schedule(), 10, 128, 0), std::invalid_argument);
}

class MetricsFile : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ =
        (fs::temp_directory_path() /
         ("quality_schedule_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
          "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".csv"))
            .string();
  }
  void TearDown() override { std::remove(path_.c_str()); }
  void write(const std::string& text) { std::ofstream(path_) << text; }
  std::string path_;
};

// metrics.csv as gfn-train writes it (roles/trainer/trainer.cc), interval 101 over 125.
constexpr const char* kMetrics =
    "iteration,trajectories,loss,logz,l1_exact,jsd,logz_error,l1_sampled,modes_found,"
    "elapsed_s,l1_visited,spearman_logp_logr,n_visited\n"
    "101,12928,7.3,6.3,1.69,0.47,10.3,1.69,2,2.6,0.105788,nan,12928\n"
    "125,16000,8.2,12.2,1.03,0.31,4.48,1.03,2,3.0,0.103411,nan,16000\n";

TEST_F(MetricsFile, PicksTheRowOfTheScheduledIterationAndChecksIt) {
  write(kMetrics);
  const auto p = last_validation(discrete_ebm_schedule(), 125, 128, 200000);
  const auto row = read_metrics_row(path_, p.iteration);
  EXPECT_EQ(row.iteration, 101);
  EXPECT_DOUBLE_EQ(row.l1_visited, 0.105788);
  ASSERT_TRUE(row.n_visited.has_value());
  EXPECT_EQ(*row.n_visited, 12928);
  EXPECT_NO_THROW(check_row(row, p, 128));
  // The end-of-run row is another one.
  EXPECT_DOUBLE_EQ(read_metrics_row(path_, 125).l1_visited, 0.103411);
}

TEST_F(MetricsFile, MissingRowIsAnError) {
  write(kMetrics);
  EXPECT_THROW(read_metrics_row(path_, 100), std::runtime_error);
}

TEST_F(MetricsFile, VisitedCountMismatchIsAnError) {
  // A run whose row at 101 saw another number of states (e.g. a wider batch) is refused.
  write(
      "iteration,trajectories,l1_visited,n_visited\n"
      "101,12928,0.1,12800\n");
  const auto p = last_validation(discrete_ebm_schedule(), 125, 128, 200000);
  EXPECT_THROW(check_row(read_metrics_row(path_, 101), p, 128), std::runtime_error);
}

TEST_F(MetricsFile, TrajectoryMismatchIsAnError) {
  write(
      "iteration,trajectories,l1_visited\n"
      "101,6464,0.1\n");
  const auto p = last_validation(discrete_ebm_schedule(), 125, 128, 200000);
  const auto row = read_metrics_row(path_, 101);
  EXPECT_FALSE(row.n_visited.has_value());  // older metrics.csv: no column, not checked
  EXPECT_THROW(check_row(row, p, 128), std::runtime_error);
}

TEST_F(MetricsFile, HeaderWithoutL1VisitedOrBadNumberIsAnError) {
  write("iteration,trajectories\n101,12928\n");
  EXPECT_THROW(read_metrics_row(path_, 101), std::runtime_error);
  write("iteration,trajectories,l1_visited\n101,12928,abc\n");
  EXPECT_THROW(read_metrics_row(path_, 101), std::runtime_error);
  EXPECT_THROW(read_metrics_row(path_ + ".missing", 101), std::runtime_error);
}

}  // namespace
}  // namespace gfn::quality
