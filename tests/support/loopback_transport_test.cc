// tests/support/loopback_transport.h: the in-process transport the role unit tests run
// on. Matching and ordering as MPI, timeouts, the size cap, and every fault on demand.

#include "tests/support/loopback_transport.h"
#include "tests/support/error_text.h"

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <string>
#include <thread>

namespace gfn::testing {
namespace {

using transport::Bytes;
using transport::kAnySource;
using transport::Seconds;

Bytes bytes_of(std::initializer_list<std::uint8_t> v) { return Bytes(v.begin(), v.end()); }

using gfn::testing::what_of;

TEST(LoopbackTransport, ReportsRanksAndBackend) {
  LoopbackWorld world(3);
  EXPECT_EQ(world.size(), 3);
  for (int r = 0; r < 3; ++r) {
    EXPECT_EQ(world.rank(r).rank(), r);
    EXPECT_EQ(world.rank(r).world_size(), 3);
    EXPECT_EQ(world.rank(r).backend(), "loopback");
    EXPECT_EQ(world.rank(r).world().global_ranks(), (std::vector<int>{0, 1, 2}));
  }
  EXPECT_THROW(world.rank(3), std::out_of_range);
  EXPECT_THROW(LoopbackWorld(0), std::invalid_argument);
}

TEST(LoopbackTransport, FifoPerSourceAndTagAnySourceTakesTheOldest) {
  LoopbackWorld world(3);
  auto& a = world.rank(0);
  auto& b = world.rank(1);
  auto& dst = world.rank(2);
  a.send(bytes_of({1}), 2, 7);
  b.send(bytes_of({10}), 2, 7);
  a.send(bytes_of({2}), 2, 7);
  a.send(bytes_of({99}), 2, 8);  // another tag: never mixed in
  EXPECT_EQ(world.queued(2, 7), 3u);
  // From rank 0 only: its messages in order, skipping rank 1's.
  auto m = dst.recv(0, 7, Seconds(1));
  EXPECT_EQ(m.src, 0);
  EXPECT_EQ(m.bytes, bytes_of({1}));
  m = dst.recv(0, 7, Seconds(1));
  EXPECT_EQ(m.bytes, bytes_of({2}));
  // Any source: what is left, reporting the sender.
  m = dst.recv(kAnySource, 7, Seconds(1));
  EXPECT_EQ(m.src, 1);
  EXPECT_EQ(m.bytes, bytes_of({10}));
  m = dst.recv(kAnySource, 8, Seconds(1));
  EXPECT_EQ(m.src, 0);
  EXPECT_EQ(m.bytes, bytes_of({99}));
  EXPECT_EQ(world.queued(2, 7), 0u);
}

TEST(LoopbackTransport, IsendIsCompleteAndDeliveredAtOnce) {
  LoopbackWorld world(2);
  auto h = world.rank(0).isend(bytes_of({4, 5, 6}), 1, 0);
  EXPECT_TRUE(h.is_complete());
  EXPECT_NO_THROW(h.wait(Seconds(0)));
  EXPECT_EQ(world.queued(1, 0), 1u);
  EXPECT_EQ(world.rank(1).recv(0, 0, Seconds(1)).bytes, bytes_of({4, 5, 6}));
}

TEST(LoopbackTransport, RecvIntoReusesTheBuffer) {
  LoopbackWorld world(2);
  Bytes buffer;
  buffer.reserve(64);
  const auto* storage = buffer.data();
  world.rank(0).send(bytes_of({1, 2, 3}), 1, 0);
  const auto info = world.rank(1).recv_into(0, 0, Seconds(1), buffer);
  EXPECT_EQ(info.src, 0);
  EXPECT_EQ(info.size, 3u);
  EXPECT_EQ(buffer, bytes_of({1, 2, 3}));
  EXPECT_EQ(buffer.data(), storage);
}

TEST(LoopbackTransport, TimeoutNamesRankPeerAndTagAndConsumesNothing) {
  LoopbackWorld world(2);
  world.rank(0).send(bytes_of({1}), 1, 3);  // on another tag
  const auto t0 = std::chrono::steady_clock::now();
  try {
    world.rank(1).recv(0, 4, Seconds(0.05));
    ADD_FAILURE() << "expected a TimeoutError";
  } catch (const transport::TimeoutError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("loopback rank 1"), std::string::npos) << what;
    EXPECT_NE(what.find("from rank 0 on tag 4"), std::string::npos) << what;
  }
  EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(50));
  const auto any = what_of([&] { world.rank(1).recv(kAnySource, 4, Seconds(0)); });
  EXPECT_NE(any.find("any source on tag 4"), std::string::npos) << any;
  EXPECT_EQ(world.queued(1, 3), 1u);
}

TEST(LoopbackTransport, ReceiveWaitsForAnotherThread) {
  LoopbackWorld world(2);
  std::thread sender([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    world.rank(0).send(bytes_of({42}), 1, 0);
  });
  const auto m = world.rank(1).recv(kAnySource, 0, Seconds(10));
  sender.join();
  EXPECT_EQ(m.src, 0);
  EXPECT_EQ(m.bytes, bytes_of({42}));
}

TEST(LoopbackTransport, RefusesBadRanksTagsAndOversizedSends) {
  transport::TransportOptions options;
  options.max_message_bytes = 4;
  LoopbackWorld world(2, options);
  auto& t = world.rank(0);
  EXPECT_THROW(t.send(bytes_of({1}), 2, 0), transport::TransportError);
  EXPECT_THROW(t.send(bytes_of({1}), 1, -1), transport::TransportError);
  EXPECT_THROW(t.recv(5, 0, Seconds(0)), transport::TransportError);
  const auto big = what_of([&] { t.isend(Bytes(5, 0), 1, 0); });
  EXPECT_NE(big.find("exceeds max_message_bytes = 4"), std::string::npos) << big;
  EXPECT_EQ(world.queued(1, 0), 0u);
  EXPECT_NO_THROW(t.send(Bytes(4, 0), 1, 0));
}

TEST(LoopbackTransport, CollectivesAreNotSupported) {
  LoopbackWorld world(2);
  const auto what = what_of([&] { world.rank(0).world().barrier(); });
  EXPECT_NE(what.find("barrier is not supported"), std::string::npos) << what;
  EXPECT_THROW(world.rank(0).new_group({0, 1}), transport::TransportError);
}

TEST(LoopbackFaults, FailNextSendThrowsOnceAndDeliversNothing) {
  LoopbackWorld world(3);
  world.fail_next_send(1, LoopbackWorld::kAnyTag, "link down");
  EXPECT_EQ(world.faults_armed(), 1u);
  world.rank(0).send(bytes_of({7}), 2, 0);  // another destination: unaffected
  const auto what = what_of([&] { world.rank(0).isend(bytes_of({1}), 1, 5); });
  EXPECT_NE(what.find("to rank 1 on tag 5 failed: link down"), std::string::npos) << what;
  EXPECT_EQ(world.queued(1, 5), 0u);
  EXPECT_EQ(world.faults_armed(), 0u);
  world.rank(0).send(bytes_of({2}), 1, 5);  // one-shot: the next one goes through
  EXPECT_EQ(world.rank(1).recv(0, 5, Seconds(1)).bytes, bytes_of({2}));
}

TEST(LoopbackFaults, FaultOnATagWaitsForThatTag) {
  LoopbackWorld world(2);
  world.fail_next_send(1, 3);
  EXPECT_NO_THROW(world.rank(0).send(bytes_of({1}), 1, 2));
  EXPECT_THROW(world.rank(0).send(bytes_of({1}), 1, 3), transport::TransportError);
}

TEST(LoopbackFaults, FailNextCompletionFailsTheHandle) {
  LoopbackWorld world(2);
  world.fail_next_completion(1, 0, "peer vanished");
  auto h = world.rank(0).isend(bytes_of({1}), 1, 0);
  const auto polled = what_of([&] { h.is_complete(); });
  EXPECT_NE(polled.find("peer vanished"), std::string::npos) << polled;
  EXPECT_THROW(h.wait(Seconds(1)), transport::TransportError);
  EXPECT_EQ(world.queued(1, 0), 0u);
  h = transport::SendHandle();  // the failed handle logs its error when destroyed
}

TEST(LoopbackFaults, DropAndCorrupt) {
  LoopbackWorld world(2);
  world.drop_next(1, 0);
  world.corrupt_next(1, 0, [](Bytes& b) { b[0] ^= 0xFF; });
  world.rank(0).send(bytes_of({1, 1}), 1, 0);  // dropped
  world.rank(0).send(bytes_of({2, 2}), 1, 0);  // corrupted
  world.rank(0).send(bytes_of({3, 3}), 1, 0);  // intact
  EXPECT_EQ(world.rank(1).recv(0, 0, Seconds(1)).bytes, bytes_of({0xFD, 2}));
  EXPECT_EQ(world.rank(1).recv(0, 0, Seconds(1)).bytes, bytes_of({3, 3}));
  EXPECT_THROW(world.rank(1).recv(0, 0, Seconds(0)), transport::TimeoutError);
}

}  // namespace
}  // namespace gfn::testing
