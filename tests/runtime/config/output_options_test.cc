// The `output:` keys of the researcher's view (README "The run directory and plots"):
// default, parsing from a file and --set, refusal naming the key, config.yaml round trip.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "runtime/config/config.h"

namespace gfn::config {
namespace {

using ::testing::HasSubstr;

std::string write_yaml(const std::string& name, const std::string& text) {
  const auto p = std::filesystem::temp_directory_path() /
                 ("gfn_output_options_" + std::to_string(::getpid()) + "_" + name);
  std::ofstream(p) << text;
  return p.string();
}

std::string error_of(const std::string& path, const std::vector<std::string>& sets) {
  try {
    load_config(path, sets);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(OutputOptions, PlotsDefaultOffParsedAndWrittenBack) {
  EXPECT_FALSE(OutputOptions{}.plots);
  const auto p = write_yaml("ok.yaml", "output:\n  plots: true\n");
  const auto c = load_config(p, {});
  EXPECT_TRUE(c.output.plots);
  EXPECT_TRUE(load_config(write_yaml("again.yaml", to_yaml(c)), {}).output.plots);
  EXPECT_FALSE(load_config(p, {"output.plots=false"}).output.plots);
  EXPECT_THAT(error_of(p, {"output.plots=maybe"}), HasSubstr("output.plots"));
}

}  // namespace
}  // namespace gfn::config
