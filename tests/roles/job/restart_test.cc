// roles/job/restart.h: which checkpoint a restart continues from, and its records.
#include "roles/job/restart.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

namespace gfn::roles {
namespace {
namespace fs = std::filesystem;

class RestartTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = (fs::temp_directory_path() /
            ("gfn_restart_" +
             std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "_" +
             std::to_string(::getpid())))
               .string();
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  void training_csv(const std::vector<int>& iterations) const {
    std::ofstream out(dir_ + "/training.csv");
    out << "iteration,trajectories\n";
    for (int i : iterations) out << i << "," << 10 * i << "\n";
    out << "3";  // a partial last line of a killed run (no comma, no newline)
  }
  std::string dir_;
};

TEST_F(RestartTest, AFirstAttemptHasNoCheckpointAndNoRecord) {
  ExperimentConfig config;
  config.output.dir = dir_;
  launch::LaunchEnv first;  // restart_count 0
  RestartRecord record;
  EXPECT_FALSE(restart_checkpoint(config, first, &record).has_value());
  EXPECT_EQ(record.restart, 0);
  launch::LaunchEnv second;
  second.restart_count = 2;
  second.restart_reason = "rank 1 died";
  EXPECT_FALSE(restart_checkpoint(config, second, &record).has_value());  // none to resume
  EXPECT_EQ(record.restart, 2);
  EXPECT_EQ(record.ended_by, "rank 1 died");
  EXPECT_EQ(record.resumed_from, -1);
}

TEST_F(RestartTest, RecordsAccumulateUntilAFreshStart) {
  training_csv({5, 10, 15, 17});
  RestartRecord first;
  first.restart = 1;
  first.ended_by = "rank 2 killed";
  first.resumed_from = 10;
  note_restart(dir_, false, &first);
  EXPECT_EQ(first.iterations_redone, 7);  // 17 logged, resumed from 10
  RestartRecord second;
  second.restart = 2;
  second.skipped_checkpoints = {"iteration_00000020: corrupted"};
  note_restart(dir_, true, &second);  // no checkpoint: the previous attempt's rows count
  EXPECT_EQ(second.iterations_redone, 17);
  const auto s = restarts_summary(dir_, 2);
  EXPECT_EQ(s["count"], 2);
  ASSERT_EQ(s["attempts"].size(), 2u);
  EXPECT_EQ(s["attempts"][0]["ended_by"], "rank 2 killed");
  EXPECT_EQ(s["attempts"][0]["resumed_from_iteration"], 10);
  EXPECT_EQ(s["attempts"][0]["iterations_redone"], 7);
  EXPECT_TRUE(s["attempts"][1]["resumed_from_iteration"].is_null());
  EXPECT_EQ(s["attempts"][1]["skipped_checkpoints"][0], "iteration_00000020: corrupted");
  note_restart(dir_, false, nullptr);  // --resume by hand: the records stay
  EXPECT_EQ(restarts_summary(dir_, 0)["attempts"].size(), 2u);
  note_restart(dir_, true, nullptr);  // a fresh run: they go
  EXPECT_EQ(restarts_summary(dir_, 0)["attempts"].size(), 0u);
  EXPECT_FALSE(fs::exists(dir_ + "/restarts.jsonl"));
}

}  // namespace
}  // namespace gfn::roles
