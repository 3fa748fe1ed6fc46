#include "runtime/signals/stop_signal.h"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <thread>

namespace gfn::signals {
namespace {

bool wait_for_stop(const StopSignal& stop) {
  for (int i = 0; i < 200 && !stop.stop_requested(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return stop.stop_requested();
}

TEST(StopSignal, SigtermRequestsAStop) {
  StopSignal stop;
  EXPECT_FALSE(stop.stop_requested());
  EXPECT_EQ(stop.signal_name(), "");
  std::raise(SIGTERM);
  ASSERT_TRUE(wait_for_stop(stop));
  EXPECT_EQ(stop.signal_name(), "SIGTERM");
}

TEST(StopSignal, SigintRequestsAStopAndOnlyOneMayExist) {
  StopSignal stop;
  EXPECT_THROW(StopSignal second, std::logic_error);
  std::raise(SIGINT);
  ASSERT_TRUE(wait_for_stop(stop));
  EXPECT_EQ(stop.signal_name(), "SIGINT");
}

TEST(StopSignal, Sigusr1RequestsAStop) {  // Slurm's --signal=B:USR1@120 (README)
  StopSignal stop;
  std::raise(SIGUSR1);
  ASSERT_TRUE(wait_for_stop(stop));
  EXPECT_EQ(stop.signal_name(), "SIGUSR1");
}

TEST(StopSignal, RequestStopWithoutASignal) {
  StopSignal stop;
  stop.request_stop();
  EXPECT_TRUE(stop.stop_requested());
  EXPECT_EQ(stop.signal_name(), "");
}

}  // namespace
}  // namespace gfn::signals
