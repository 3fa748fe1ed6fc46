#pragma once
// The fixture of the config loader's tests (tests/runtime/config/): a temporary directory
// per test (removed at its end) to write YAML files into, and the message of the
// ConfigError that load_config throws for a file. Test code, one thread.

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "roles/experiment/experiment.h"
#include "tests/roles/experiment/experiment_test_names.h"

namespace gfn::roles {

class ConfigFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("gfn_config_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->test_suite_name() + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  /// Writes `text` to `name` in the test's directory; returns the file's path.
  std::string write(const std::string& name, const std::string& text) {
    const std::filesystem::path p = dir_ / name;
    std::ofstream(p) << text;
    return p.string();
  }

  /// The message of the ConfigError thrown by load_config, or a test failure.
  static std::string error_of(const std::string& path, const std::vector<std::string>& sets = {}) {
    try {
      load_config(path, sets);
    } catch (const ConfigError& e) {
      return e.what();
    }
    ADD_FAILURE() << "no ConfigError for " << path;
    return "";
  }

  std::filesystem::path dir_;
};

}  // namespace gfn::roles
