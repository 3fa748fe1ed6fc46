#include "runtime/output/run_output.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/support/read_file.h"

namespace gfn::output {
namespace {

using gfn::testing::read_file;

std::string temp_dir(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("gfn_output_test_" + name)).string();
}

TEST(RunOutput, WritesJsonThatParsesBack) {
  const auto dir = temp_dir("json") + "/nested";
  ensure_directory(dir);
  write_json(dir + "/summary.json", {{"l1_exact", 0.25}, {"iterations", 7}});
  const auto parsed = nlohmann::json::parse(read_file(dir + "/summary.json"));
  EXPECT_DOUBLE_EQ(parsed.at("l1_exact").get<double>(), 0.25);
  EXPECT_EQ(parsed.at("iterations").get<int>(), 7);
}

TEST(RunOutput, WritesText) {
  const auto dir = temp_dir("text");
  ensure_directory(dir);
  write_text(dir + "/config.yaml", "a: 1\n");
  EXPECT_EQ(read_file(dir + "/config.yaml"), "a: 1\n");
  EXPECT_THROW(write_text("/proc/definitely/not/here.yaml", "x"), std::runtime_error);
}

TEST(RunOutput, CsvHasHeaderAndRowsAndRefusesWrongWidth) {
  const auto dir = temp_dir("csv");
  ensure_directory(dir);
  CsvWriter csv(dir + "/metrics.csv", {"iteration", "l1"});
  csv.append({"1", "0.5"});
  csv.append({"2", ""});
  EXPECT_THROW(csv.append({"3"}), std::invalid_argument);
  EXPECT_EQ(read_file(dir + "/metrics.csv"), "iteration,l1\n1,0.5\n2,\n");
}

TEST(RunOutput, UnwritablePathsNameThePath) {
  try {
    write_json("/proc/definitely/not/here.json", nlohmann::json::object());
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/proc/definitely/not/here.json"), std::string::npos);
  }
}

}  // namespace
}  // namespace gfn::output
