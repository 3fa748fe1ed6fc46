// The command-line front of the benchmark harness (tools/common/harness/front.h): the
// shared flags and their aliases, --quick defaults, --json; and the machine description.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "tools/common/harness/front.h"
#include "tools/common/harness/machine.h"

namespace gfn::harness {
namespace {

// A tool with the shared flags under its own names, as gfn-transport-bench has them.
struct Tool {
  CLI::App app{"test tool"};
  Front front{app, "gfn-bench-test", "fewer iterations"};
  int warmup = 5, iters = 100;
  std::string other = "full";
  Tool() {
    front.add_warmup(warmup, "-w,--warmup_iters", "untimed");
    front.add_repetitions(iters, "-n,--iters", "timed");
    app.add_option("--other", other, "a tool option");
  }
  // Parses args (without argv[0]); returns CLI11's exit code (0 = parsed).
  int parse(std::vector<std::string> args) {
    std::vector<char*> argv{const_cast<char*>("tool")};
    for (auto& a : args) argv.push_back(a.data());
    try {
      app.parse(static_cast<int>(argv.size()), argv.data());
    } catch (const CLI::ParseError& e) {
      return e.get_exit_code();
    }
    return 0;
  }
};

TEST(HarnessFront, ToolNamesAndCommonAliasesSetTheSameCount) {
  Tool a;
  ASSERT_EQ(a.parse({"-w", "2", "-n", "7"}), 0);
  EXPECT_EQ(a.warmup, 2);
  EXPECT_EQ(a.iters, 7);
  Tool b;
  ASSERT_EQ(b.parse({"--warmup", "3", "--repeats", "9"}), 0);
  EXPECT_EQ(b.warmup, 3);
  EXPECT_EQ(b.iters, 9);
  Tool c;
  ASSERT_EQ(c.parse({"--warmup_iters", "0", "--iters", "1"}), 0);
  EXPECT_EQ(c.warmup, 0);
  EXPECT_EQ(c.iters, 1);
}

TEST(HarnessFront, RefusesNegativeWarmUpAndZeroRepetitions) {
  EXPECT_NE(Tool().parse({"--warmup", "-1"}), 0);
  EXPECT_NE(Tool().parse({"--repeats", "0"}), 0);
  EXPECT_NE(Tool().parse({"-n", "0"}), 0);
}

TEST(HarnessFront, QuickSetsOnlyWhatWasNotGiven) {
  Tool t;
  ASSERT_EQ(t.parse({"--quick", "--iters", "50"}), 0);
  EXPECT_TRUE(t.front.quick());
  t.front.quick_default("--iters", t.iters, 10);   // given: kept
  t.front.quick_default("--warmup", t.warmup, 1);  // not given (by any of its names): set
  t.front.quick_default("--other", t.other, "quick");
  EXPECT_EQ(t.iters, 50);
  EXPECT_EQ(t.warmup, 1);
  EXPECT_EQ(t.other, "quick");
  Tool slow;
  ASSERT_EQ(slow.parse({}), 0);
  slow.front.quick_default("--iters", slow.iters, 10);
  EXPECT_EQ(slow.iters, 100);  // no --quick: untouched
  EXPECT_FALSE(slow.front.method(0, nullptr).quick);
}

TEST(HarnessFront, JsonWritesTheReportOnlyWhenAsked) {
  const auto path = std::filesystem::temp_directory_path() / "harness_front_test.json";
  std::filesystem::remove(path);
  Tool none;
  ASSERT_EQ(none.parse({}), 0);
  none.front.write_json(Report{});
  EXPECT_FALSE(std::filesystem::exists(path));
  Tool t;
  ASSERT_EQ(t.parse({"--json", path.string()}), 0);
  Report r;
  r.tool = t.front.tool();
  r.method = t.front.method(0, nullptr);
  r.method.timed = "nothing";
  t.front.write_json(r);
  std::ifstream in(path);
  const auto j = nlohmann::json::parse(in);
  EXPECT_TRUE(schema_problems(j).empty());
  EXPECT_EQ(j.at("tool"), "gfn-bench-test");
  std::filesystem::remove(path);
}

TEST(HarnessFront, AliasIsAppendedOnce) {
  EXPECT_EQ(with_alias("-n,--iters", "--repeats"), "-n,--iters,--repeats");
  EXPECT_EQ(with_alias("--warmup", "--warmup"), "--warmup");
  EXPECT_EQ(with_alias("", "--warmup"), "--warmup");
  char arg0[] = "tool", arg1[] = "--json", arg2[] = "x.json";
  char* argv[] = {arg0, arg1, arg2};
  EXPECT_EQ(command_line(3, argv), "tool --json x.json");
}

TEST(HarnessMachine, DescribesThisMachine) {
  const Machine m = describe_machine();
  EXPECT_FALSE(m.cpu_model.empty());
  EXPECT_GE(m.logical_cpus, 1);
  EXPECT_FALSE(m.blas.empty());
  EXPECT_FALSE(m.host.empty());
  EXPECT_TRUE(std::regex_match(m.date, std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)"))) << m.date;
  EXPECT_TRUE(std::regex_match(m.git_commit, std::regex("[0-9a-f]{40}(-dirty)?|unknown")))
      << m.git_commit;
  EXPECT_EQ(m.load_average.size(), 3u);
  // This test links no BLAS: the library named is the one gfn-train would load.
  EXPECT_FALSE(m.blas_loaded);
  EXPECT_EQ(m.blas_kernels, "");
}

}  // namespace
}  // namespace gfn::harness
