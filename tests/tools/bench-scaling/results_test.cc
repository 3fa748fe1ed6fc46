// Reading what a gfn-train run wrote (tools/gfn-bench-scaling/results.h): summary.json and
// buffer_manager_<rank>.json, with errors naming the file and the key.

#include "tools/gfn-bench-scaling/results.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <stdexcept>
#include <string>

namespace gfn::bench_scaling {
namespace {
namespace fs = std::filesystem;

class BenchScalingResults : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("gfn_bench_scaling_results_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    const auto path = (dir_ / name).string();
    std::ofstream(path) << text;
    return path;
  }
  fs::path dir_;
};

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

constexpr const char* kSummary = R"({"l1_exact": null, "iterations": 1000, "trajectories": 384000,
  "wall_s": 8.0, "train_s": 6.0, "ms_per_iteration": 5.5,
  "ms_per_iteration_per_trainer": [5.4, 5.5, 5.9], "world_size": 4})";

TEST_F(BenchScalingResults, ReadsAGoodSummary) {
  const auto f = read_job_summary(write("summary.json", kSummary));
  EXPECT_EQ(f.trajectories, 384000);
  EXPECT_EQ(f.iterations, 1000);
  EXPECT_DOUBLE_EQ(f.wall_s, 8.0);
  ASSERT_TRUE(f.train_s.has_value());
  EXPECT_DOUBLE_EQ(f.busy_s(), 6.0);
  EXPECT_DOUBLE_EQ(f.trajectories_per_s(), 64000);
  EXPECT_DOUBLE_EQ(f.wall_trajectories_per_s(), 48000);
  EXPECT_DOUBLE_EQ(f.ms_per_iteration, 5.5);
  EXPECT_EQ(f.ms_per_trainer, (std::vector<double>{5.4, 5.5, 5.9}));
}

TEST_F(BenchScalingResults, WithoutTrainSTheRateIsOverWallTime) {
  const auto f = read_job_summary(
      write("summary.json",
            R"({"iterations": 10, "trajectories": 1280, "wall_s": 2.0, "ms_per_iteration": 1.0})"));
  EXPECT_FALSE(f.train_s.has_value());
  EXPECT_DOUBLE_EQ(f.trajectories_per_s(), 640);
}

TEST_F(BenchScalingResults, MissingKeyNamesTheFileAndTheKey) {
  const auto path = write("summary.json", R"({"iterations": 10, "trajectories": 1280,
    "wall_s": 2.0})");
  const auto message = error_of([&] { read_job_summary(path); });
  EXPECT_NE(message.find(path), std::string::npos) << message;
  EXPECT_NE(message.find("'ms_per_iteration'"), std::string::npos) << message;
}

TEST_F(BenchScalingResults, NonNumericOrNonPositiveValuesAreRefused) {
  const auto text = write("a.json", R"({"iterations": 10, "trajectories": "many", "wall_s": 2.0,
    "ms_per_iteration": 1.0})");
  EXPECT_NE(error_of([&] { read_job_summary(text); }).find("'trajectories'"), std::string::npos);
  const auto zero = write("b.json", R"({"iterations": 10, "trajectories": 1, "wall_s": 2.0,
    "ms_per_iteration": 1.0, "train_s": 0})");
  EXPECT_NE(error_of([&] { read_job_summary(zero); }).find("'train_s'"), std::string::npos);
}

TEST_F(BenchScalingResults, MissingOrInvalidFileIsNamed) {
  const auto missing = (dir_ / "nope.json").string();
  EXPECT_NE(error_of([&] { read_job_summary(missing); }).find(missing), std::string::npos);
  const auto broken = write("broken.json", "{\"wall_s\": ");
  const auto message = error_of([&] { read_job_summary(broken); });
  EXPECT_NE(message.find(broken), std::string::npos);
  EXPECT_NE(message.find("not valid JSON"), std::string::npos);
}

TEST_F(BenchScalingResults, ReadsManagerCpuAndWallTime) {
  const auto m = read_manager_stats(
      write("buffer_manager_3.json", R"({"rank": 3, "cpu_s": 1.5, "wall_s": 6.0})"));
  EXPECT_DOUBLE_EQ(m.cpu_s, 1.5);
  EXPECT_DOUBLE_EQ(m.wall_s, 6.0);
  EXPECT_DOUBLE_EQ(m.cpu_percent(), 25.0);
}

TEST_F(BenchScalingResults, ManagerFileWithoutCpuNamesFileAndKey) {
  const auto path = write("buffer_manager_2.json", R"({"rank": 2, "submissions": 40})");
  const auto message = error_of([&] { read_manager_stats(path); });
  EXPECT_NE(message.find(path), std::string::npos) << message;
  EXPECT_NE(message.find("'cpu_s'"), std::string::npos) << message;
}

TEST_F(BenchScalingResults, ReadsEveryManagerOfARunDirectory) {
  EXPECT_FALSE(read_managers(dir_.string()).has_value());
  write("summary.json", kSummary);
  write("buffer_manager_2.json", R"({"cpu_s": 1.0, "wall_s": 5.0})");
  write("buffer_manager_5.json", R"({"cpu_s": 2.0, "wall_s": 6.0})");
  const auto m = read_managers(dir_.string());
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->managers, 2);
  EXPECT_DOUBLE_EQ(m->cpu_s, 3.0);
  EXPECT_DOUBLE_EQ(m->wall_s, 6.0);
}

}  // namespace
}  // namespace gfn::bench_scaling
