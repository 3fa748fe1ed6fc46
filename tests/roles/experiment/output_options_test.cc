// The `output:` keys of the researcher's view (docs/outputs.md "The run directory",
// "Progress"): defaults, parsing from a file and --set, refusal naming key and value, and
// config.yaml round trip.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "roles/experiment/experiment.h"
#include "tests/roles/experiment/experiment_test_names.h"

namespace gfn::roles {
namespace {

using ::testing::AllOf;
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

TEST(OutputOptions, DefaultsAreNoPlotsAndAutomaticProgressEveryTenSeconds) {
  const OutputOptions o;
  EXPECT_FALSE(o.plots);
  EXPECT_EQ(o.progress, ProgressMode::kAuto);
  EXPECT_DOUBLE_EQ(o.progress_every_s, 10.0);
}

TEST(OutputOptions, ParsedFromFileAndSetAndWrittenBack) {
  const auto p = write_yaml("ok.yaml", "output:\n  plots: true\n  progress: lines\n");
  const auto c = load_config(p, {"output.progress_every_s=2.5"});
  EXPECT_TRUE(c.output.plots);
  EXPECT_EQ(c.output.progress, ProgressMode::kLines);
  EXPECT_DOUBLE_EQ(c.output.progress_every_s, 2.5);
  const auto again = load_config(write_yaml("again.yaml", to_yaml(c)), {});
  EXPECT_TRUE(again.output.plots);
  EXPECT_EQ(again.output.progress, ProgressMode::kLines);
  EXPECT_DOUBLE_EQ(again.output.progress_every_s, 2.5);
  EXPECT_EQ(load_config(p, {"output.progress=off"}).output.progress, ProgressMode::kOff);
  EXPECT_EQ(load_config(p, {"output.progress=bar"}).output.progress, ProgressMode::kBar);
}

TEST(OutputOptions, BadValuesNameKeyValueAndFile) {
  const auto p = write_yaml("bad.yaml", "output:\n  progress: sometimes\n");
  EXPECT_THAT(error_of(p, {}), AllOf(HasSubstr(p), HasSubstr("output.progress = sometimes"),
                                     HasSubstr("auto, bar, lines, off")));
  const auto ok = write_yaml("fine.yaml", "output:\n  plots: false\n");
  EXPECT_THAT(error_of(ok, {"output.progress_every_s=0"}),
              AllOf(HasSubstr("output.progress_every_s = 0"), HasSubstr("must be > 0")));
  EXPECT_THAT(error_of(ok, {"output.plots=maybe"}), HasSubstr("output.plots"));
}

// output.export and model.init_from (docs/export.md "Export to PyTorch and torchgfn"): off by
// default, parsed, overridable and written back to config.yaml.
TEST(OutputOptions, ExportAndInitFromParsedAndWrittenBack) {
  EXPECT_FALSE(OutputOptions{}.export_model);
  EXPECT_EQ(ModelOptions{}.init_from, "");
  const auto p = write_yaml("export.yaml", "output:\n  export: true\n");
  const auto c = load_config(p, {"model.init_from=runs/a/model_state_dict.pt"});
  EXPECT_TRUE(c.output.export_model);
  EXPECT_EQ(c.model.init_from, "runs/a/model_state_dict.pt");
  const auto again = load_config(write_yaml("export_again.yaml", to_yaml(c)), {});
  EXPECT_TRUE(again.output.export_model);
  EXPECT_EQ(again.model.init_from, "runs/a/model_state_dict.pt");
  EXPECT_THAT(error_of(p, {"output.export=sometimes"}), HasSubstr("output.export"));
}

}  // namespace
}  // namespace gfn::roles
