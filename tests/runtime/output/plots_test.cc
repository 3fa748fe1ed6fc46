#include "runtime/output/plots.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace gfn::output {
namespace {

std::string script(const std::string& name, const std::string& body) {
  const auto path = (std::filesystem::temp_directory_path() / name).string();
  std::ofstream(path) << body;
  return path;
}

TEST(RunPlots, MissingScriptIsSkippedWithAMessage) {
  const auto r = run_plots("/nonexistent/gfn-plot", "/tmp");
  EXPECT_FALSE(r.ran);
  EXPECT_NE(r.message.find("/nonexistent/gfn-plot not found"), std::string::npos);
}

TEST(RunPlots, PassesTheRunDirectoryAndReportsTheExitCode) {
  const auto dir = (std::filesystem::temp_directory_path() / "gfn_plots_test_dir").string();
  std::filesystem::create_directories(dir);
  const auto ok = run_plots(script("gfn_plots_ok.py",
                                   "import sys, pathlib\n"
                                   "pathlib.Path(sys.argv[1], 'seen').write_text('yes')\n"),
                            dir);
  EXPECT_TRUE(ok.ran);
  EXPECT_EQ(ok.exit_code, 0);
  EXPECT_TRUE(std::filesystem::exists(dir + "/seen"));
  const auto bad = run_plots(script("gfn_plots_bad.py", "raise SystemExit(3)\n"), dir);
  EXPECT_TRUE(bad.ran);
  EXPECT_EQ(bad.exit_code, 3);
  EXPECT_NE(bad.message.find("exit code 3"), std::string::npos);
}

}  // namespace
}  // namespace gfn::output
