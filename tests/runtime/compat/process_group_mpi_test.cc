// Multi-rank tests of the default process group (helios seed 000), the rank guards and
// the value collectives (utils.distributed seed 004), on the backend of the test main.

#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <cereal/types/map.hpp>

#include <chrono>
#include <map>
#include <numeric>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "runtime/compat/process_group.h"
#include "runtime/compat/rank_guards.h"
#include "runtime/compat/rank_print.h"
#include "runtime/compat/value_collectives.h"
#include "runtime/launch/launch_env.h"
#include "runtime/log/logging.h"
#include "tests/runtime/compat/dist_test_env.h"

namespace gfn::compat::testing {
namespace {

// A non-scalar value: string, vector and map (cereal map header included above).
struct Summary {
  std::string name;
  std::vector<double> losses;
  std::map<std::string, int> counts;
  template <class A>
  void serialize(A& ar) {
    ar(name, losses, counts);
  }
  bool operator==(const Summary& o) const {
    return name == o.name && losses == o.losses && counts == o.counts;
  }
};

Summary summary_of(int r) {
  Summary s;
  s.name = "rank" + std::to_string(r);
  s.losses.assign(static_cast<std::size_t>(r + 1), 0.5 * r);  // different length per rank
  s.counts["r"] = r;
  s.counts["sq"] = r * r;
  return s;
}

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

using ProcessGroupTest = DistTest;

TEST_F(ProcessGroupTest, InfoMatchesTransportAndLauncher) {
  ASSERT_TRUE(is_dist_active());
  ASSERT_TRUE(is_distributed());
  EXPECT_EQ(default_transport().backend(), backend());
  const DistributedInfo info = get_dist_info();
  EXPECT_EQ(info.rank, default_transport().rank());
  EXPECT_EQ(info.world_size, default_transport().world_size());
  EXPECT_EQ(world_group().size(), info.world_size);
  EXPECT_EQ(world_group().rank(), info.rank);
  // mpirun on one host: local values are Open MPI's (= global here).
  const launch::LaunchEnv env = launch::detect_launch_env();
  EXPECT_EQ(info.local_rank, env.local_rank);
  EXPECT_EQ(info.local_world_size, env.local_world_size);
  EXPECT_EQ(get_local_rank(), info.local_rank);
  EXPECT_EQ(get_global_rank(), info.rank);
  EXPECT_EQ(get_local_world_size(), info.local_world_size);
  EXPECT_EQ(get_world_size(), info.world_size);
  EXPECT_FALSE(is_using_torchrun());  // mpirun, not torchrun
}

TEST_F(ProcessGroupTest, SecondInitIsRefused) {
  InitOptions o;
  o.backend = backend();
  try {
    init_dist(o);
    FAIL() << "second init_dist did not throw";
  } catch (const DistInitError& e) {
    EXPECT_NE(std::string(e.what()).find("already initialized"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(is_dist_active());  // the first one is untouched
}

TEST_F(ProcessGroupTest, SafeBarrierWaitsForTheSlowestRank) {
  // The last rank arrives 0.3 s late; everyone leaves after it arrived.
  const double start = now_s();
  if (rank() == world() - 1 && world() > 1)
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  safe_barrier();
  if (world() > 1) {
    EXPECT_GE(now_s() - start, 0.25);
  }
  barrier();  // seed 004 barrier on WORLD
  barrier(&world_group());
}

TEST_F(ProcessGroupTest, MainProcessIsGroupRankZero) {
  EXPECT_EQ(is_main_process(), rank() == 0);
  auto odd_ranks = std::vector<int>{};
  for (int r = world() - 1; r >= 0; r -= 2) odd_ranks.push_back(r);  // descending
  auto sub = default_transport().new_group(odd_ranks);
  if (sub->is_member()) {
    EXPECT_EQ(is_main_process(sub.get()), rank() == world() - 1);
  } else {
    EXPECT_THROW(is_main_process(sub.get()), transport::TransportError);
  }
}

TEST_F(ProcessGroupTest, ZeroFirstRunsRankZeroBeforeTheOthers) {
  double scope_start = 0.0, scope_end = 0.0;
  {
    ZeroFirst guard;
    scope_start = now_s();
    if (rank() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(200));
    scope_end = now_s();
  }
  auto ends = gather_from_all_ranks(scope_end);
  auto starts = gather_from_all_ranks(scope_start);
  if (rank() == 0) {
    ASSERT_TRUE(ends && starts);
    for (int r = 1; r < world(); ++r) EXPECT_GE((*starts)[r], (*ends)[0]) << "rank " << r;
  } else {
    EXPECT_FALSE(ends.has_value());
  }
  // Callable form: returns fn's value on every rank, rank 0 first.
  const double t0_done = zero_first([&] {
    if (rank() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    return now_s();
  });
  auto done = gather_from_all_ranks(t0_done);
  if (rank() == 0) {
    for (int r = 1; r < world(); ++r) EXPECT_GE((*done)[r], (*done)[0]);
  }
}

TEST_F(ProcessGroupTest, ZeroOnlyRunsOnlyOnRankZero) {
  int calls = 0;
  const bool ran = zero_only([&] { ++calls; });
  EXPECT_EQ(ran, rank() == 0);
  auto all = gather_scalar_from_all_ranks(calls, 0);
  if (rank() == 0) {
    ASSERT_TRUE(all.has_value());
    ASSERT_EQ(static_cast<int>(all->size()), world());
    EXPECT_EQ(std::accumulate(all->begin(), all->end(), 0), 1);
    EXPECT_EQ((*all)[0], 1);
  }
}

TEST_F(ProcessGroupTest, ComputeAndBroadcastRunsOnRootOnly) {
  const int root = world() - 1;
  int calls = 0;
  const Summary got = compute_and_broadcast(
      [&] {
        ++calls;
        return summary_of(rank());
      },
      root);
  EXPECT_EQ(got, summary_of(root));
  EXPECT_EQ(calls, rank() == root ? 1 : 0);
  // Scalars and strings too.
  EXPECT_EQ(compute_and_broadcast([&] { return 10 * rank() + 7; }), 7);
  EXPECT_EQ(
      compute_and_broadcast([&] { return std::string(static_cast<std::size_t>(rank()), 'x'); }),
      "");
}

TEST_F(ProcessGroupTest, GatherFromAllRanksReturnsEveryValueOnRootOnly) {
  const int root = world() / 2;
  auto got = gather_from_all_ranks([&] { return summary_of(rank()); }, root);
  if (rank() == root) {
    ASSERT_TRUE(got.has_value());
    ASSERT_EQ(static_cast<int>(got->size()), world());
    for (int r = 0; r < world(); ++r) EXPECT_EQ((*got)[r], summary_of(r)) << "rank " << r;
  } else {
    EXPECT_FALSE(got.has_value());
  }
  auto scalars = gather_scalar_from_all_ranks([&] { return 1.5 * rank(); });
  if (rank() == 0) {
    for (int r = 0; r < world(); ++r) EXPECT_DOUBLE_EQ((*scalars)[r], 1.5 * r);
  } else {
    EXPECT_FALSE(scalars.has_value());
  }
  EXPECT_THROW(gather_from_all_ranks(1, world()), transport::TransportError);  // bad root
}

TEST_F(ProcessGroupTest, ReduceAndBroadcastGivesEveryRankTheReduction) {
  // Sum of ranks, and the longest name: a reduction to a different type.
  const int sum = reduce_and_broadcast(
      [&] { return rank(); },
      [](const std::vector<int>& v) { return std::accumulate(v.begin(), v.end(), 0); });
  EXPECT_EQ(sum, world() * (world() - 1) / 2);
  const std::string names = reduce_and_broadcast([&] { return summary_of(rank()); },
                                                 [](const std::vector<Summary>& v) {
                                                   std::string s;
                                                   for (const auto& x : v) s += x.name + ";";
                                                   return s;
                                                 });
  std::string expected;
  for (int r = 0; r < world(); ++r) expected += "rank" + std::to_string(r) + ";";
  EXPECT_EQ(names, expected);
}

TEST_F(ProcessGroupTest, ValueCollectivesOnASubgroup) {
  std::vector<int> evens;
  for (int r = 0; r < world(); r += 2) evens.push_back(r);
  auto sub = default_transport().new_group(evens);
  if (!sub->is_member()) {
    EXPECT_THROW(compute_and_broadcast([] { return 1; }, 0, sub.get()), transport::TransportError);
    return;
  }
  EXPECT_EQ(compute_and_broadcast([&] { return rank(); }, sub->size() - 1, sub.get()),
            evens.back());
  auto got = gather_from_all_ranks(rank(), 0, sub.get());
  if (sub->rank() == 0) {
    EXPECT_EQ(*got, evens);
  }
  const int max = reduce_and_broadcast(
      [&] { return rank(); },
      [](const std::vector<int>& v) { return *std::max_element(v.begin(), v.end()); }, sub.get());
  EXPECT_EQ(max, evens.back());
  ZeroFirst guard(sub.get());  // members only; no deadlock with the non-members
}

TEST_F(ProcessGroupTest, GlobalAndLocalPrintOnlyOnTheirRank) {
  std::ostringstream out;
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(out);
  log::setup_logging(rank(), "test", spdlog::level::info, sink);
  global_print("global {}", 1);
  global_print_on(world() - 1, "global-last {}", 2);
  local_print("local {}", 3);
  local_print_on(world() - 1, "local-last {}", 4);
  spdlog::default_logger()->flush();
  const std::string text = out.str();
  EXPECT_EQ(text.find("global 1") != std::string::npos, rank() == 0) << text;
  EXPECT_EQ(text.find("global-last 2") != std::string::npos, rank() == world() - 1) << text;
  EXPECT_EQ(text.find("local 3") != std::string::npos, get_local_rank() == 0) << text;
  EXPECT_EQ(text.find("local-last 4") != std::string::npos, get_local_rank() == world() - 1);
  log::setup_logging(rank(), "test", spdlog::level::warn);
}

}  // namespace
}  // namespace gfn::compat::testing
