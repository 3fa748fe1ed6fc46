// The coordinator's bounded wait per manager (roles/coordinator/coordinator.h, README
// "Shutdown and failures"): a quiet manager that sends MANAGER_ALIVE keeps the coordinator
// waiting past idle_timeout_s, and a manager that goes silent (stopped) is named, alone,
// while the others keep sending. One process, the loopback transport.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include "roles/coordinator/coordinator.h"
#include "roles/protocol/codec.h"
#include "roles/protocol/messages.h"
#include "tests/support/loopback_transport.h"

namespace gfn::roles {
namespace {

using Clock = std::chrono::steady_clock;
constexpr int kManagerA = 0, kManagerB = 1, kCoordinator = 2;

TEST(CoordinatorLiveness, AliveManagersKeepItWaitingAndASilentOneIsNamed) {
  gfn::testing::LoopbackWorld world(3);
  CoordinatorOptions options;
  options.idle_timeout_s = 0.5;
  std::string failure;  // read after join()
  double failed_after_s = 0;
  std::atomic<bool> ended{false};
  std::thread coordinator([&] {
    const auto t0 = Clock::now();
    try {
      run_coordinator(world.rank(kCoordinator), {kManagerA, kManagerB}, options);
    } catch (const transport::TimeoutError& e) {
      failure = e.what();
    }
    failed_after_s = std::chrono::duration<double>(Clock::now() - t0).count();
    ended = true;
  });
  // Both managers send only MANAGER_ALIVE for 1.2 s (more than idle_timeout_s), then B
  // stops while A goes on until the coordinator has given up.
  const auto t0 = Clock::now();
  for (int i = 0; Clock::now() - t0 < std::chrono::milliseconds(4000) && !ended; ++i) {
    protocol::send(world.rank(kManagerA), kCoordinator, protocol::ManagerAlive{i, i});
    if (Clock::now() - t0 < std::chrono::milliseconds(1200)) {
      protocol::send(world.rank(kManagerB), kCoordinator, protocol::ManagerAlive{i, i});
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  coordinator.join();
  ASSERT_FALSE(failure.empty()) << "the coordinator never gave up on the silent manager";
  EXPECT_GE(failed_after_s, 1.2 + 0.5 - 0.15) << failure;  // not before B's silence + timeout
  EXPECT_LT(failed_after_s, 3.0) << failure;
  EXPECT_NE(failure.find("no message for 0.5 s on tag 2 from buffer manager rank(s) 1 "),
            std::string::npos)
      << failure;
  EXPECT_NE(failure.find("waiting for MANAGER_EXIT from buffer manager rank(s) 0, 1"),
            std::string::npos)
      << failure;
}

TEST(CoordinatorLiveness, ManagerAliveIsCountedAndEndsNothing) {
  gfn::testing::LoopbackWorld world(3);
  CoordinatorOptions options;
  options.idle_timeout_s = 5;
  CoordinatorResult result;
  std::thread coordinator(
      [&] { result = run_coordinator(world.rank(kCoordinator), {kManagerA}, options); });
  for (int i = 0; i < 3; ++i) {
    protocol::send(world.rank(kManagerA), kCoordinator, protocol::ManagerAlive{i, 2 * i});
  }
  protocol::send(world.rank(kManagerA), kCoordinator, protocol::ManagerExit{});
  const auto ack =
      world.rank(kManagerA).recv(kCoordinator, protocol::tags::kData, transport::Seconds(5));
  EXPECT_NO_THROW(
      protocol::decode<protocol::ManagerExitAck>(protocol::decode_message(ack.bytes, 1 << 20)));
  coordinator.join();
  EXPECT_EQ(result.alive_messages, 3);
  EXPECT_EQ(result.rejected_messages, 0);
}

}  // namespace
}  // namespace gfn::roles
