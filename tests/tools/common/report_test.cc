// The report of the benchmark harness (tools/common/harness/report.h): the JSON round trip
// (nlohmann_json), the schema check naming what is wrong, verdicts and the method statement.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <string>

#include "tools/common/harness/report.h"

namespace gfn::harness {
namespace {

using json = nlohmann::json;

Report sample_report() {
  Report r;
  r.tool = "gfn-bench-example";
  r.method.timed = "f(x), steady_clock around each call";
  r.method.warmup = 3;
  r.method.repetitions = 5;
  r.method.repetition_unit = "calls";
  r.method.command = "gfn-bench-example --repeats 5";
  r.method.notes = {"GB/s = bytes / (median / 2) / 1e9"};
  r.method.machine.cpu_model = "Example CPU";
  r.method.machine.cpu_features = "avx2 fma";
  r.method.machine.logical_cpus = 2;
  r.method.machine.blas = "/usr/lib/libblas.so.3";
  r.method.machine.blas_loaded = true;
  r.method.machine.blas_kernels = "Haswell";
  r.method.machine.load_average = {0.5, 0.25, 0.75};
  r.method.machine.host = "box";
  r.method.machine.date = "2026-11-25T19:41:07Z";
  r.method.machine.git_commit = "0123456789abcdef";
  Case c;
  c.name = "size/4096";
  c.parameters = {{"bytes", 4096}, {"method", "raw-mpi"}};
  c.add("round_trip_us", summarize({1.5, 2.25, 3.0, 10.0 / 3.0}), "us");
  c.add("gb_per_s", 0.1 + 0.2, "GB/s");  // not exactly representable in decimal
  c.add_missing("ratio", "ratio");
  r.cases.push_back(c);
  r.goals.push_back(Goal{"small messages", "ratio <= 2.0x", 1.31, "ratio", Verdict::kPass,
                         "worst 1.31x at 512 B"});
  r.goals.push_back(
      Goal{"bandwidth", "share >= 90 %", std::nullopt, "ratio", Verdict::kNotMeasured, ""});
  return r;
}

TEST(HarnessReport, JsonRoundTripKeepsEveryField) {
  const Report original = sample_report();
  const json written = to_json(original);
  EXPECT_TRUE(schema_problems(written).empty());
  // Through text, as a reader of the --json file sees it.
  const Report read = report_from_json(json::parse(written.dump(2)));
  EXPECT_EQ(to_json(read), written);
  EXPECT_EQ(read.tool, "gfn-bench-example");
  EXPECT_EQ(read.method.warmup, 3);
  EXPECT_EQ(read.method.machine.load_average, (std::vector<double>{0.5, 0.25, 0.75}));
  ASSERT_EQ(read.cases.size(), 1u);
  const Figure& rtt = read.cases[0].figures.at("round_trip_us");
  ASSERT_TRUE(rtt.summary.has_value());
  EXPECT_EQ(rtt.summary->n, 4u);
  EXPECT_EQ(rtt.summary->median, original.cases[0].figures.at("round_trip_us").summary->median);
  EXPECT_EQ(rtt.summary->max, 10.0 / 3.0);  // doubles survive the text exactly
  EXPECT_EQ(*read.cases[0].figures.at("gb_per_s").value, 0.1 + 0.2);
  EXPECT_FALSE(read.cases[0].figures.at("ratio").value.has_value());
  EXPECT_EQ(read.cases[0].parameters.at("method"), "raw-mpi");
  ASSERT_EQ(read.goals.size(), 2u);
  EXPECT_EQ(read.goals[0].verdict, Verdict::kPass);
  EXPECT_EQ(*read.goals[0].value, 1.31);
  EXPECT_EQ(read.goals[1].verdict, Verdict::kNotMeasured);
  EXPECT_FALSE(read.goals[1].value.has_value());
}

TEST(HarnessReport, JsonLayoutIsTheDocumentedOne) {
  const json j = to_json(sample_report());
  EXPECT_EQ(j.at("schema"), "gfn-bench/1");
  EXPECT_EQ(j.at("method").at("machine").at("git_commit"), "0123456789abcdef");
  const json& rtt = j.at("cases")[0].at("figures").at("round_trip_us");
  EXPECT_EQ(rtt.at("unit"), "us");
  EXPECT_EQ(rtt.at("n"), 4);
  EXPECT_DOUBLE_EQ(rtt.at("median").get<double>(), (2.25 + 3.0) / 2);
  EXPECT_FALSE(rtt.contains("value"));
  EXPECT_TRUE(j.at("cases")[0].at("figures").at("ratio").at("value").is_null());
  EXPECT_EQ(j.at("goals")[0].at("verdict"), "PASS");
  EXPECT_EQ(j.at("goals")[1].at("verdict"), "n/a");
}

TEST(HarnessReport, WarmUpThatVariesPerCaseIsNull) {
  Report r = sample_report();
  r.method.warmup = std::nullopt;
  const json j = to_json(r);
  EXPECT_TRUE(j.at("method").at("warmup").is_null());
  EXPECT_FALSE(report_from_json(j).method.warmup.has_value());
}

TEST(HarnessReport, NonFiniteValuesAreNotMeasured) {
  Case c;
  c.add("a", std::numeric_limits<double>::infinity(), "s");
  c.add("b", std::nan(""), "s");
  EXPECT_FALSE(c.figures.at("a").value.has_value());
  EXPECT_FALSE(c.figures.at("b").value.has_value());
}

TEST(HarnessReport, SchemaProblemsNameTheKey) {
  json j = to_json(sample_report());
  j["schema"] = "other/2";
  j["method"].erase("repetitions");
  j["method"]["machine"]["logical_cpus"] = "two";
  j["cases"][0]["figures"]["gb_per_s"].erase("value");
  j["cases"][0]["figures"]["round_trip_us"]["p99"] = "high";
  j["goals"][0]["verdict"] = "OK";
  const auto problems = schema_problems(j);
  const auto has = [&](const std::string& text) {
    for (const auto& p : problems) {
      if (p.find(text) != std::string::npos) return true;
    }
    return false;
  };
  EXPECT_EQ(problems.size(), 6u);
  EXPECT_TRUE(has("schema: \"other/2\", expected \"gfn-bench/1\""));
  EXPECT_TRUE(has("method.repetitions: missing"));
  EXPECT_TRUE(has("method.machine.logical_cpus: not a count"));
  EXPECT_TRUE(has("cases[0].figures.gb_per_s: no \"value\" and no \"median\""));
  EXPECT_TRUE(has("cases[0].figures.round_trip_us.p99: not a number"));
  EXPECT_TRUE(has("goals[0].verdict: unknown verdict 'OK'"));
  EXPECT_THROW(report_from_json(j), std::invalid_argument);
  EXPECT_EQ(schema_problems(json::array()).size(), 1u);
}

TEST(HarnessReport, AFigureIsAValueOrStatisticsNotBoth) {
  json j = to_json(sample_report());
  j["cases"][0]["figures"]["round_trip_us"]["value"] = 1.0;
  ASSERT_EQ(schema_problems(j).size(), 1u);
  EXPECT_EQ(schema_problems(j)[0], "cases[0].figures.round_trip_us: both \"value\" and \"median\"");
}

TEST(HarnessReport, Verdicts) {
  EXPECT_EQ(judge_at_least(0.6, 0.6), Verdict::kPass);
  EXPECT_EQ(judge_at_least(0.59, 0.6), Verdict::kFail);
  EXPECT_EQ(judge_at_least(std::nullopt, 0.6), Verdict::kNotMeasured);
  EXPECT_EQ(judge_at_most(4.2, 4.2), Verdict::kPass);
  EXPECT_EQ(judge_at_most(4.3, 4.2), Verdict::kFail);
  EXPECT_EQ(judge_at_most(std::nullopt, 4.2), Verdict::kNotMeasured);
  for (Verdict v : {Verdict::kPass, Verdict::kFail, Verdict::kNotMeasured, Verdict::kInfo}) {
    EXPECT_EQ(verdict_from_name(verdict_name(v)), v);
  }
  EXPECT_THROW(verdict_from_name("pass"), std::invalid_argument);
}

TEST(HarnessReport, MethodStatementStatesCountsAndMachine) {
  const std::string text = method_statement(sample_report().method);
  EXPECT_NE(text.find("# method    f(x), steady_clock around each call\n"), std::string::npos);
  EXPECT_NE(text.find("#           3 warm-up + 5 measured calls\n"), std::string::npos);
  EXPECT_NE(text.find("#           GB/s = bytes / (median / 2) / 1e9\n"), std::string::npos);
  EXPECT_NE(text.find("# machine   Example CPU (avx2 fma), 2 logical CPUs, load average 0.50 "
                      "0.25 0.75 (1/5/15 min) at start\n"),
            std::string::npos);
  EXPECT_NE(text.find("# BLAS      /usr/lib/libblas.so.3, OpenBLAS kernels: Haswell\n"),
            std::string::npos);
  EXPECT_NE(text.find("# run       2026-11-25T19:41:07Z, git 0123456789abcdef, host box\n"),
            std::string::npos);
  EXPECT_NE(text.find("# command   gfn-bench-example --repeats 5\n"), std::string::npos);
  // Every line is a comment line.
  std::size_t start = 0;
  while (start < text.size()) {
    EXPECT_EQ(text.compare(start, 2, "# "), 0) << text.substr(start);
    start = text.find('\n', start) + 1;
  }
}

TEST(HarnessReport, DescribeSetsWhatTheToolStates) {
  Method m = sample_report().method;
  m.describe("g()", std::nullopt, 7, "rounds", {"a note"});
  EXPECT_EQ(m.timed, "g()");
  EXPECT_FALSE(m.warmup.has_value());
  EXPECT_EQ(m.repetitions, 7);
  EXPECT_EQ(m.repetition_unit, "rounds");
  EXPECT_EQ(m.notes, std::vector<std::string>{"a note"});
  EXPECT_EQ(m.machine.host, "box");  // the rest is kept
  const std::string text = method_statement(m);
  EXPECT_NE(text.find("#           7 measured rounds\n"), std::string::npos) << text;
}

TEST(HarnessReport, WriteReportWritesParsableJson) {
  const auto path = std::filesystem::temp_directory_path() / "harness_report_test.json";
  write_report(sample_report(), path.string());
  std::ifstream in(path);
  const json j = json::parse(in);
  EXPECT_EQ(j, to_json(sample_report()));
  std::filesystem::remove(path);
  EXPECT_THROW(write_report(sample_report(), "/nonexistent-dir/x.json"), std::runtime_error);
}

}  // namespace
}  // namespace gfn::harness
