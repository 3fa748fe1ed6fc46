// The timing loops of the benchmark harness (tools/common/harness/timing.h): how many
// calls, which are timed, and that the times are the calls' own.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <stdexcept>
#include <thread>
#include <vector>

#include "tools/common/harness/timing.h"

namespace gfn::harness {
namespace {

TEST(HarnessTiming, WarmUpCallsComeFirstWithNegativeIndices) {
  std::vector<int> seen;
  const Timings t = time_calls(Repetitions{2, 3}, [&](int i) { seen.push_back(i); });
  EXPECT_EQ(seen, (std::vector<int>{-2, -1, 0, 1, 2}));
  EXPECT_EQ(t.wall_s.size(), 3u);
  EXPECT_EQ(t.cpu_s.size(), 3u);
}

TEST(HarnessTiming, OnlyTheMeasuredCallsAreTimed) {
  // Warm-up calls sleep 400 ms, measured calls 2 ms: no measured time may include a warm-up.
  const Timings t = time_calls(Repetitions{1, 2}, [](int i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(i < 0 ? 400 : 2));
  });
  for (double s : t.wall_s) {
    EXPECT_GE(s, 0.002);
    EXPECT_LT(s, 0.3);
  }
  // A sleeping thread uses (almost) no CPU time.
  for (double s : t.cpu_s) EXPECT_LT(s, 0.01);
}

TEST(HarnessTiming, CpuTimeFollowsWork) {
  volatile double sink = 0;
  const Timings t = time_calls(Repetitions{0, 1}, [&](int) {
    const double start = thread_cpu_seconds();
    while (thread_cpu_seconds() - start < 0.02) sink = sink + 1;  // 20 ms of this thread's CPU
  });
  EXPECT_GE(t.cpu_s[0], 0.02);
  EXPECT_LT(t.cpu_s[0], 0.2);
  EXPECT_GE(t.wall_s[0], t.cpu_s[0] * 0.99);  // one thread cannot use more CPU than wall time
}

// What the call returns is destroyed after its timing stops (a result freeing memory).
TEST(HarnessTiming, AReturnedValueIsDestroyedOutsideTheTiming) {
  struct SlowToDestroy {
    ~SlowToDestroy() { std::this_thread::sleep_for(std::chrono::milliseconds(300)); }
  };
  int before = 0;
  const Timings t = time_calls(
      Repetitions{1, 1}, [](int) { return std::make_shared<SlowToDestroy>(); }, [&] { ++before; });
  EXPECT_EQ(before, 1);  // called once, between the warm-up and the measured call
  EXPECT_LT(t.wall_s[0], 0.2);
}

TEST(HarnessTiming, RefusesBadCounts) {
  EXPECT_THROW(time_calls(Repetitions{-1, 1}, [](int) {}), std::invalid_argument);
  EXPECT_THROW(time_calls(Repetitions{0, 0}, [](int) {}), std::invalid_argument);
  EXPECT_THROW(seconds_per_call([] {}, 0, 0.01), std::invalid_argument);
  EXPECT_THROW(seconds_per_call([] {}, 1, 0), std::invalid_argument);
}

TEST(HarnessTiming, SecondsPerCallDividesABlockByItsCalls) {
  int calls = 0;
  const double s = seconds_per_call(
      [&] {
        ++calls;
        std::this_thread::sleep_for(std::chrono::microseconds(200));
      },
      3, 0.005);
  EXPECT_EQ(calls % 8, 0);  // calls come in groups of 8
  EXPECT_GE(calls, 3 * 8);
  EXPECT_GE(s, 200e-6);
  EXPECT_LT(s, 0.005);
}

}  // namespace
}  // namespace gfn::harness
