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

TEST_F(RestartTest, WallTimeSumsTheAttemptsButNotTheGapBeforeAResume) {
  // Attempt 1 killed (no end: lasts until attempt 2 starts), attempt 2 stopped by a signal
  // (its summary's end), an hour idle, then attempt 3 by --resume: this one, 5 s so far.
  std::ofstream(dir_ + "/attempts.jsonl")
      << R"({"attempt":1,"started":"start","started_at":1000.0})"
         "\n"
      << R"({"attempt":2,"started":"restart","started_at":1012.5})"
         "\n"
      << R"({"attempt":2,"ended_at":1030.5})"
         "\n"
      << R"({"attempt":3,"started":"resume","started_at":4630.5})"
         "\n"
      << R"({"attempt":3,"star)";  // a partial last line
  const auto wall = job_wall_time(dir_, 5.0);
  ASSERT_EQ(wall.attempts.size(), 3u);
  EXPECT_DOUBLE_EQ(wall.attempts[0].wall_s, 12.5);
  EXPECT_DOUBLE_EQ(wall.attempts[1].wall_s, 18.0);
  EXPECT_DOUBLE_EQ(wall.attempts[2].wall_s, 5.0);
  EXPECT_EQ(wall.attempts[2].started, "resume");
  EXPECT_DOUBLE_EQ(wall.wall_s, 35.5);
  note_attempt_end(dir_, wall.attempts.back().attempt);
  std::ifstream in(dir_ + "/attempts.jsonl");
  std::string line, last;
  while (std::getline(in, line)) last = line;
  EXPECT_EQ(nlohmann::json::parse(last).value("attempt", 0), 3);
}

TEST_F(RestartTest, AttemptsAreCountedFromAFreshStart) {
  note_restart(dir_, /*fresh_start=*/true, nullptr);
  note_restart(dir_, /*fresh_start=*/false, nullptr);  // --resume
  auto wall = job_wall_time(dir_, 1.0);
  ASSERT_EQ(wall.attempts.size(), 2u);
  EXPECT_EQ(wall.attempts[1].attempt, 2);
  EXPECT_EQ(wall.attempts[1].started, "resume");
  note_restart(dir_, /*fresh_start=*/true, nullptr);  // a new run in the same directory
  wall = job_wall_time(dir_, 1.0);
  ASSERT_EQ(wall.attempts.size(), 1u);
  EXPECT_EQ(wall.attempts[0].started, "start");
  EXPECT_DOUBLE_EQ(wall.wall_s, 1.0);
}

}  // namespace
}  // namespace gfn::roles
