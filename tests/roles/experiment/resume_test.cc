// runtime/config/resume.h: a resumed run's config comes from the checkpoint; --set may change
// only the resumable keys, anything else is refused naming the key (README "Checkpoint and
// resume"). Also gfn-train's --resume option (cli.h).

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "roles/experiment/experiment.h"
#include "runtime/config/cli.h"
#include "runtime/config/resume.h"
#include "tests/roles/experiment/experiment_test_names.h"

namespace gfn::roles {
namespace {

using ::testing::HasSubstr;

class ResumeConfig : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("gfn_resume_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    ExperimentConfig c;
    c.train.n_trajectories = 1280;
    c.train.seed = 5;
    path_ = (dir_ / "config.yaml").string();
    std::ofstream(path_) << to_yaml(c);  // as a checkpoint holds it
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string refusal(const std::vector<std::string>& sets) {
    try {
      resume_config(path_, sets);
    } catch (const ConfigError& e) {
      return e.what();
    }
    return "(no error)";
  }
  std::filesystem::path dir_;
  std::string path_;
};

TEST_F(ResumeConfig, WithoutOverridesIsTheCheckpointsConfig) {
  const auto c = resume_config(path_, {});
  EXPECT_EQ(c.train.n_trajectories, 1280);
  EXPECT_EQ(c.train.seed, 5u);
  EXPECT_TRUE(experiment_schema().differing_keys(c, load_config(path_)).empty());
}

TEST_F(ResumeConfig, AcceptsEveryResumableKey) {
  const auto c = resume_config(
      path_, {"train.n_trajectories=2560", "output.log_every=7", "output.progress=lines",
              "output.progress_every_s=3", "validation.interval=4", "checkpoint.every=2",
              "checkpoint.keep=5", "checkpoint.on_signal=false"});
  EXPECT_EQ(c.train.n_trajectories, 2560);
  EXPECT_EQ(c.output.log_every, 7);
  EXPECT_EQ(c.validation.interval, 4);
  EXPECT_EQ(c.checkpoint.keep, 5);
  EXPECT_EQ(experiment_schema().differing_keys(c, load_config(path_)).size(), 8u);
}

TEST_F(ResumeConfig, RefusesOtherKeysNamingThem) {
  const auto e = refusal({"train.lr=0.5", "env.height=9", "output.log_every=3"});
  // Every refused key, in registry order, and not the allowed one.
  EXPECT_THAT(e, HasSubstr("differs in env.height, train.lr;"));
  EXPECT_THAT(e, HasSubstr(path_));
  EXPECT_THAT(refusal({"model.hidden_dim=3"}), HasSubstr("model.hidden_dim"));
  EXPECT_THAT(refusal({"transport.backend=torch"}), HasSubstr("transport.backend"));
}

TEST(ResumeCommandLine, TakesADirectoryAndExcludesConfig) {
  const auto dir = std::filesystem::temp_directory_path().string();
  std::ostringstream out, err;
  std::vector<const char*> argv = {"gfn-train", "--resume", dir.c_str(), "--set",
                                   "train.n_trajectories=10"};
  const auto cl =
      config::parse_command_line(static_cast<int>(argv.size()), argv.data(), "gfn-train", out, err);
  EXPECT_FALSE(cl.exit_now) << err.str();
  EXPECT_EQ(cl.resume, dir);
  EXPECT_EQ(cl.overrides.size(), 1u);

  const std::string yaml = dir + "/gfn_resume_cli_" + std::to_string(::getpid()) + ".yaml";
  std::ofstream(yaml) << "train:\n  seed: 1\n";
  std::vector<const char*> both = {"gfn-train", "--resume", dir.c_str(), "--config", yaml.c_str()};
  const auto refused =
      config::parse_command_line(static_cast<int>(both.size()), both.data(), "gfn-train", out, err);
  std::filesystem::remove(yaml);
  EXPECT_TRUE(refused.exit_now);
  EXPECT_NE(refused.exit_code, 0);
}

}  // namespace
}  // namespace gfn::roles
