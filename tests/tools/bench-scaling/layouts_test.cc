// gfn-bench-scaling's layout table and the gfn-train command line of each run
// (tools/gfn-bench-scaling/layouts.h).

#include "tools/gfn-bench-scaling/layouts.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

namespace gfn::bench_scaling {
namespace {

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

std::string invalid_argument_message(const std::string& text) {
  try {
    parse_layout_list(text);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(BenchScalingLayouts, TableHasTheRanksAndBaselines) {
  const std::vector<int> np = {1, 2, 3, 3, 3, 4, 3};
  const std::vector<int> trainers = {1, 2, 2, 2, 2, 3, 3};
  const std::vector<int> baseline = {0, 0, 2, 2, 2, 7, 0};
  const std::vector<std::string> modes = {"", "", "sync", "async", "fire_and_forget", "", ""};
  ASSERT_EQ(all_layouts().size(), 7u);
  for (int id = 1; id <= 7; ++id) {
    const auto& l = layout_by_id(id);
    const auto i = static_cast<std::size_t>(id - 1);
    EXPECT_EQ(l.np(), np[i]) << id;
    EXPECT_EQ(l.trainers, trainers[i]) << id;
    EXPECT_EQ(l.baseline, baseline[i]) << id;
    EXPECT_EQ(l.submit_mode, modes[i]) << id;
    EXPECT_EQ(l.hidden, id == 7) << id;
  }
  EXPECT_EQ(default_layout_ids(), (std::vector<int>{1, 2, 3, 4, 5, 6}));
  EXPECT_THROW(layout_by_id(8), std::invalid_argument);
}

TEST(BenchScalingLayouts, SetListOfTheSyncManagerLayout) {
  RunSettings s;
  const auto sets = set_list(layout_by_id(3), s, "/tmp/r/L3");
  const std::vector<std::string> want = {
      "layout.num_buffers=1",        "layout.coordinator=false", "train.n_iterations=1000",
      "train.batch_size=256",        "validation.enabled=false", "buffer.capacity=10000",
      "buffer.remote_buffer_freq=1", "buffer.submit_mode=sync",  "output.dir=/tmp/r/L3"};
  EXPECT_EQ(sets, want);
}

TEST(BenchScalingLayouts, SubmitEveryOnlyForManagerLayoutsAndExtraSetsLast) {
  RunSettings s;
  s.submit_every = 10;
  s.iterations = 20;
  s.extra_sets = {"train.num_threads=2", "buffer.capacity=5"};
  const auto one = set_list(layout_by_id(1), s, "d");
  EXPECT_TRUE(contains(one, "layout.num_buffers=0"));
  EXPECT_TRUE(contains(one, "train.batch_size=128"));
  EXPECT_TRUE(contains(one, "buffer.remote_buffer_freq=1"));
  const auto four = set_list(layout_by_id(4), s, "d");
  EXPECT_TRUE(contains(four, "buffer.remote_buffer_freq=10"));
  EXPECT_TRUE(contains(four, "buffer.submit_mode=async"));
  EXPECT_TRUE(contains(four, "train.n_iterations=20"));
  ASSERT_GE(four.size(), 2u);
  EXPECT_EQ(four[four.size() - 2], "train.num_threads=2");
  EXPECT_EQ(four.back(), "buffer.capacity=5");  // after buffer.capacity=10000: it wins
}

TEST(BenchScalingLayouts, CommandOfTheBaseConfigLayout) {
  RunSettings s;
  const auto c = job_command(layout_by_id(6), s, "tools/mpirun.sh", "build/bin/gfn-train", "out");
  EXPECT_EQ(c.program, "tools/mpirun.sh");
  const std::vector<std::string> head(c.args.begin(), c.args.begin() + 5);
  EXPECT_EQ(head, (std::vector<std::string>{"-np", "4", "build/bin/gfn-train", "--config",
                                            "configs/bench/distributed_3t1b.yaml"}));
  // Every override is one "--set key=value" pair; layout 6 keeps the config's submit_mode.
  for (std::size_t i = 5; i < c.args.size(); i += 2) EXPECT_EQ(c.args[i], "--set");
  EXPECT_TRUE(contains(c.args, "train.batch_size=384"));
  EXPECT_TRUE(contains(c.args, "layout.num_buffers=1"));
  for (const auto& a : c.args) EXPECT_EQ(a.find("submit_mode"), std::string::npos) << a;
  EXPECT_EQ(c.to_string().rfind("tools/mpirun.sh -np 4 build/bin/gfn-train --config ", 0), 0u);
}

TEST(BenchScalingLayouts, ParsesListsAndRanges) {
  EXPECT_EQ(parse_layout_list("1,3"), (std::vector<int>{1, 3}));
  EXPECT_EQ(parse_layout_list("3-5"), (std::vector<int>{3, 4, 5}));
  EXPECT_EQ(parse_layout_list("1-6"), (std::vector<int>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(parse_layout_list("6,2,2,7"), (std::vector<int>{6, 2, 7}));
}

TEST(BenchScalingLayouts, RefusesBadListsNamingTheOption) {
  for (const std::string bad : {"", "9", "0", "a", "1,,3", "5-3", "1-9", "3,"}) {
    const auto message = invalid_argument_message(bad);
    EXPECT_NE(message.find("--layouts"), std::string::npos) << "'" << bad << "': " << message;
  }
}

TEST(BenchScalingLayouts, RunOrderAddsBaselinesNextToTheirLayouts) {
  EXPECT_EQ(run_order({1, 3}), (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(run_order({6}), (std::vector<int>{7, 6}));
  EXPECT_EQ(run_order({6, 1}), (std::vector<int>{1, 7, 6}));
  EXPECT_EQ(run_order({5, 4}), (std::vector<int>{2, 4, 5}));
  EXPECT_EQ(run_order(default_layout_ids()), (std::vector<int>{1, 2, 3, 4, 5, 7, 6}));
}

}  // namespace
}  // namespace gfn::bench_scaling
