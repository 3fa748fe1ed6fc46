#include "runtime/output/timing_json.h"

#include <gtest/gtest.h>

namespace gfn::output {
namespace {

TEST(TimingJson, TimeReportListsEachRankStepTotalsInStepOrder) {
  timing::TimingTable a, b;
  for (int i = 0; i < 2; ++i) {
    a.begin_iteration();
    a.add("sample", 0.5);
    a.add("loss", 0.25);
    b.begin_iteration();
    b.add("sample", 1.0);
    b.add("loss", 0.0);
  }
  const auto j = time_report_json(timing::report_time_info({a, b}, {0, 3}));
  ASSERT_EQ(j.at("ranks").size(), 2u);
  EXPECT_EQ(j["ranks"][1]["rank"], 3);
  EXPECT_DOUBLE_EQ(j["ranks"][0]["steps"]["sample"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(j["ranks"][0]["steps"]["loss"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(j["ranks"][1]["steps"]["sample"].get<double>(), 2.0);
  EXPECT_EQ(j.at("step_order"), nlohmann::json({"sample", "loss"}));

  const auto imbalance = load_imbalance_json(timing::report_load_imbalance({a, b}));
  ASSERT_EQ(imbalance.size(), 2u);
  EXPECT_EQ(imbalance[0]["step"], "sample");
  EXPECT_DOUBLE_EQ(imbalance[0]["useful_s"].get<double>(), 1.5);   // 2 x mean(0.5, 1.0)
  EXPECT_DOUBLE_EQ(imbalance[0]["waiting_s"].get<double>(), 0.5);  // 2 x (1.0 - 0.75)
}

}  // namespace
}  // namespace gfn::output
