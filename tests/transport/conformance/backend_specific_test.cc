// The few behaviours that differ between backends by design (everything else is in the
// typed suites). Suites are named MpiSpecific / TorchSpecific so the main's backend
// filter ("*Mpi*" / "*Torch*") selects them with their backend.

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include "tests/transport/conformance/conformance_env.h"
#include "transport/mpi/mpi_transport.h"

namespace gfn::transport::conformance {
namespace {

#define REQUIRE_BACKEND(name)                                                       \
  do {                                                                              \
    if (backend_under_test() != (name)) GTEST_SKIP() << "not the " name " backend"; \
  } while (0)

// MPI counts are ints: a cap above 2^31-1 bytes is refused when the transport is made.
TEST(MpiSpecific, CapAboveTheMpiCountLimitIsRefused) {
  REQUIRE_BACKEND("mpi");
  TransportOptions too_big;
  too_big.max_message_bytes = std::size_t{1} << 32;
  EXPECT_THROW(make_mpi_transport(too_big), TransportError);
  transport().world().barrier();
}

// MPI delivers messages a rank sends to itself.
TEST(MpiSpecific, SendToSelfArrives) {
  REQUIRE_BACKEND("mpi");
  SendHandle h = transport().isend(pattern(rank(), 1000, 3), rank(), 13);
  Received got = transport().recv(rank(), 13, kTimeout);
  EXPECT_EQ(got.src, rank());
  EXPECT_TRUE(got.bytes == pattern(rank(), 1000, 3));
  h.wait(kTimeout);
  transport().world().barrier();
}

// A rank that waits by sleeping (ReceiveWait::kSleep, a buffer manager's default) still
// receives every message byte-identical, from a peer that sends after a delay longer than
// the spin (the receive sleeps) and from one that sends at once.
TEST(MpiSpecific, SleepingReceiveGetsEveryMessage) {
  REQUIRE_BACKEND("mpi");
  transport().set_receive_wait(ReceiveWait::kSleep);
  EXPECT_EQ(transport().options().receive_wait, ReceiveWait::kSleep);
  const int peer = (rank() + 1) % world();
  const int from = (rank() + world() - 1) % world();
  for (int delay_ms : {0, 5}) {
    transport().world().barrier();
    if (delay_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    SendHandle h = transport().isend(pattern(rank(), 4096, delay_ms), peer, 14);
    Received got = transport().recv(from, 14, kTimeout);
    EXPECT_EQ(got.src, from);
    EXPECT_TRUE(got.bytes == pattern(from, 4096, delay_ms));
    h.wait(kTimeout);
  }
  transport().set_receive_wait(ReceiveWait::kSpin);
  transport().world().barrier();
}

// Gloo has no self-pair: sending to (or receiving from) oneself is refused.
TEST(TorchSpecific, SendToSelfIsRefused) {
  REQUIRE_BACKEND("torch");
  try {
    transport().isend(Bytes(4), rank(), 1);
    ADD_FAILURE() << "isend to oneself";
  } catch (const TransportError& e) {
    EXPECT_NE(std::string(e.what()).find("oneself"), std::string::npos) << e.what();
  }
  EXPECT_THROW(transport().recv(rank(), 1, Seconds(0.1)), TransportError);
  transport().world().barrier();
}

}  // namespace
}  // namespace gfn::transport::conformance
