// The polling schedule of the mpi backend's waits (transport/mpi/mpi_util.h, Backoff):
// ReceiveWait::kSpin yields the core up to 1 ms before it sleeps, kSleep sleeps as soon
// as the 20 us spin is over (YAML buffer.receive_wait).

#include <gtest/gtest.h>

#include <chrono>

#include "transport/mpi/mpi_util.h"

namespace gfn::transport::mpi_detail {
namespace {

using std::chrono::microseconds;
using Step = Backoff::Step;

TEST(Backoff, BothWaitsSpinFirst) {
  for (auto wait : {ReceiveWait::kSpin, ReceiveWait::kSleep}) {
    EXPECT_EQ(Backoff::step_after(microseconds(0), wait).kind, Step::kSpin);
    EXPECT_EQ(Backoff::step_after(microseconds(19), wait).kind, Step::kSpin);
  }
}

TEST(Backoff, SpinYieldsUpToOneMillisecondThenSleeps) {
  EXPECT_EQ(Backoff::step_after(microseconds(20), ReceiveWait::kSpin).kind, Step::kYield);
  EXPECT_EQ(Backoff::step_after(microseconds(999), ReceiveWait::kSpin).kind, Step::kYield);
  const auto after = Backoff::step_after(microseconds(1000), ReceiveWait::kSpin);
  EXPECT_EQ(after.kind, Step::kSleep);
  EXPECT_EQ(after.sleep, microseconds(62));  // 1/16 of the time waited
}

TEST(Backoff, SleepNeverYieldsAndSleepsFromTheEndOfTheSpin) {
  for (int us : {20, 100, 500, 799}) {
    const auto step = Backoff::step_after(microseconds(us), ReceiveWait::kSleep);
    EXPECT_EQ(step.kind, Step::kSleep) << us << " us";
    EXPECT_EQ(step.sleep, microseconds(50)) << us << " us";  // the shortest sleep
  }
}

TEST(Backoff, SleepsAreBoundedByHalfAMillisecond) {
  for (auto wait : {ReceiveWait::kSpin, ReceiveWait::kSleep}) {
    EXPECT_EQ(Backoff::step_after(microseconds(4000), wait).sleep, microseconds(250));
    EXPECT_EQ(Backoff::step_after(std::chrono::seconds(60), wait).sleep, microseconds(500));
  }
}

TEST(Backoff, PauseReportsAPassedDeadline) {
  Backoff expired(0.0, ReceiveWait::kSleep);
  EXPECT_FALSE(expired.pause());
  Backoff open_ended(-1.0, ReceiveWait::kSleep);
  EXPECT_TRUE(open_ended.pause());
}

}  // namespace
}  // namespace gfn::transport::mpi_detail
