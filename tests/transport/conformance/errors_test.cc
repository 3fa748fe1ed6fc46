// Failure behaviour: receive timeouts name the peer and the tag and lose nothing,
// oversized and malformed messages are refused without killing the receiver (which
// then receives the next good message), bad arguments are refused with clear errors.

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "tests/transport/conformance/conformance_env.h"
#include "transport/framing/message.h"

namespace gfn::transport::conformance {
namespace {

using Clock = std::chrono::steady_clock;

/// The envelope type of the test's message, and the receiver's vocabulary (framing
/// refuses types outside it): only kScoreType is known.
constexpr EnvelopeType kScoreType{2};
const char* known_types(EnvelopeType type) noexcept {
  return type == kScoreType ? "SCORE" : nullptr;
}

/// A small cereal payload, like a SCORE reply.
struct Score {
  std::int64_t id = 0;
  std::vector<double> values;
  template <class A>
  void serialize(A& ar) {
    ar(id, values);
  }
};

template <class B>
class Errors : public ConformanceTest<B> {};
TYPED_TEST_SUITE(Errors, Backends, BackendNames);

TYPED_TEST(Errors, RecvTimeoutNamesPeerAndTag) {
  const int peer = prev_rank();
  if (peer != rank()) {  // a world of one has no peer to wait for (torch refuses self)
    const auto start = Clock::now();
    try {
      transport().recv(peer, 77, Seconds(0.3));
      ADD_FAILURE() << "recv returned without a sender";
    } catch (const TimeoutError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("rank " + std::to_string(peer)), std::string::npos) << what;
      EXPECT_NE(what.find("tag 77"), std::string::npos) << what;
    }
    const double waited = std::chrono::duration<double>(Clock::now() - start).count();
    EXPECT_GE(waited, 0.29);
    EXPECT_LT(waited, 3.0);
  }
  try {
    transport().recv(kAnySource, 78, Seconds(0.1));
    ADD_FAILURE() << "any-source recv returned without a sender";
  } catch (const TimeoutError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("any"), std::string::npos) << what;
    EXPECT_NE(what.find("tag 78"), std::string::npos) << what;
  }
}

// After timed-out receives on a tag (from one peer and from any source), the next
// messages on that tag are delivered intact to the next receives: nothing is lost.
TYPED_TEST(Errors, TimedOutReceivesLoseNothing) {
  REQUIRE_RANKS(2);
  EXPECT_THROW(transport().recv(prev_rank(), 40, Seconds(0.2)), TimeoutError);
  EXPECT_THROW(transport().recv(kAnySource, 41, Seconds(0.1)), TimeoutError);
  transport().world().barrier();
  SendHandle h40 = transport().isend(pattern(rank(), 777, 40), next_rank(), 40);
  SendHandle h41 = transport().isend(pattern(rank(), 333, 41), next_rank(), 41);
  Received a = transport().recv(prev_rank(), 40, kTimeout);
  EXPECT_TRUE(a.bytes == pattern(prev_rank(), 777, 40));
  Received b = transport().recv(kAnySource, 41, kTimeout);
  EXPECT_EQ(b.src, prev_rank());
  EXPECT_TRUE(b.bytes == pattern(prev_rank(), 333, 41));
  h40.wait(kTimeout);
  h41.wait(kTimeout);
}

// A second transport where rank 1 accepts at most 1 KiB: messages above the cap (a
// small and a large one) are refused with MessageError naming size, cap, peer and tag;
// the receiver stays usable, the refused sends complete, and the next messages (one
// below and one exactly at the cap) arrive intact.
TYPED_TEST(Errors, OversizedMessagesAreRefusedAndTheNextOneArrives) {
  REQUIRE_RANKS(2);
  constexpr std::size_t kCap = 1024;
  TransportOptions options = transport().options();
  options.max_message_bytes = rank() == 1 ? kCap : (std::size_t{4} << 20);
  auto small = make_second_transport(options);
  const std::vector<std::size_t> refused = {2048, std::size_t{3} << 20};
  if (rank() == 0) {
    std::vector<SendHandle> handles;
    for (std::size_t i = 0; i < refused.size(); ++i) {
      handles.push_back(small->isend(pattern(0, refused[i], static_cast<int>(i)), 1, 3));
    }
    handles.push_back(small->isend(pattern(0, 100, 3), 1, 3));
    handles.push_back(small->isend(pattern(0, kCap, 4), 1, 3));
    for (auto& h : handles) h.wait(kTimeout);  // the refused ones were drained, not stuck
  } else if (rank() == 1) {
    for (std::size_t n : refused) {
      try {
        small->recv(0, 3, kTimeout);
        ADD_FAILURE() << "a message of " << n << " bytes should be refused";
      } catch (const MessageError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find(std::to_string(n)), std::string::npos) << what;
        EXPECT_NE(what.find(std::to_string(kCap)), std::string::npos) << what;
        EXPECT_NE(what.find("max_message_bytes"), std::string::npos) << what;
        EXPECT_NE(what.find("rank 0"), std::string::npos) << what;
        EXPECT_NE(what.find("tag 3"), std::string::npos) << what;
      }
    }
    Received next = small->recv(kAnySource, 3, kTimeout);
    EXPECT_EQ(next.src, 0);
    EXPECT_TRUE(next.bytes == pattern(0, 100, 3));
    Received at_cap = small->recv(0, 3, kTimeout);
    EXPECT_TRUE(at_cap.bytes == pattern(0, kCap, 4));
    // The sender side refuses above its own cap, before any communication.
    try {
      small->send(pattern(1, kCap + 1, 5), 0, 3);
      ADD_FAILURE() << "a send above the sender's cap should be refused";
    } catch (const TransportError& e) {
      EXPECT_NE(std::string(e.what()).find("max_message_bytes"), std::string::npos) << e.what();
    }
  }
  small->world().barrier();
}

// Malformed framed messages (transport/framing envelopes with a bad magic, version,
// type or length field, truncated, or with a payload that does not decode) travel as
// bytes; the receiver's decode refuses each with MessageError and it then decodes the
// next good message.
TYPED_TEST(Errors, MalformedFramedMessagesAreRefusedAndTheNextOneDecodes) {
  REQUIRE_RANKS(2);
  const Score good{42, {1.5, -2.25, 3.0}};
  const Bytes valid = encode_message(kScoreType, good);
  std::vector<std::pair<std::string, Bytes>> bad;
  {
    Bytes b = valid;
    b[0] = 'X';
    bad.emplace_back("bad magic", b);
    b = valid;
    b[4] = static_cast<std::uint8_t>(kWireVersion + 1);
    bad.emplace_back("bad version", b);
    b = valid;
    b[6] = 0xFF;
    b[7] = 0x7F;
    bad.emplace_back("unknown type", b);
    b = valid;
    const std::uint64_t huge = std::uint64_t{1} << 60;
    std::memcpy(b.data() + 8, &huge, sizeof(huge));
    bad.emplace_back("length field above the cap", b);
    b = valid;
    b[8] = static_cast<std::uint8_t>(b[8] + 1);
    bad.emplace_back("length field beyond the bytes present", b);
    bad.emplace_back("truncated header", Bytes(valid.begin(), valid.begin() + 10));
    bad.emplace_back("empty message", Bytes{});
    b = valid;
    b.resize(b.size() - 4);
    const std::uint64_t shorter = b.size() - kEnvelopeHeaderBytes;
    std::memcpy(b.data() + 8, &shorter, sizeof(shorter));  // consistent envelope, short payload
    bad.emplace_back("truncated payload", b);
  }
  if (rank() == 0) {
    for (const auto& [what, bytes] : bad) transport().send(bytes, 1, 30);
    transport().send(valid, 1, 30);
  } else if (rank() == 1) {
    for (const auto& [what, bytes] : bad) {
      SCOPED_TRACE(what);
      Received got = transport().recv(0, 30, kTimeout);
      ASSERT_TRUE(got.bytes == bytes) << "the transport delivers the bytes as sent";
      EXPECT_THROW(
          {
            const Message m = decode_envelope(got.bytes, std::size_t{1} << 20, &known_types);
            (void)decode_payload<Score>(m, &known_types);
          },
          MessageError);
    }
    Received got = transport().recv(0, 30, kTimeout);
    const Message m = decode_envelope(got.bytes, std::size_t{1} << 20, &known_types);
    EXPECT_EQ(m.type, kScoreType);
    const Score s = decode_payload<Score>(m, &known_types);
    EXPECT_EQ(s.id, 42);
    EXPECT_EQ(s.values, good.values);
  }
}

TYPED_TEST(Errors, BadArgumentsAreRefusedWithClearErrors) {
  try {
    transport().send(Bytes(4), world(), 0);
    ADD_FAILURE() << "send to an invalid rank";
  } catch (const TransportError& e) {
    EXPECT_NE(std::string(e.what()).find("destination rank " + std::to_string(world())),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(transport().send(Bytes(4), next_rank(), -1), TransportError);
  EXPECT_THROW(transport().isend(Bytes(4), -3, 0), TransportError);
  EXPECT_THROW(transport().isend(Bytes(4), next_rank(), -1), TransportError);
  EXPECT_THROW(transport().recv(world() + 1, 0, Seconds(0.01)), TransportError);
  EXPECT_THROW(transport().recv(next_rank(), -2, Seconds(0.01)), TransportError);
  // A negative timeout is refused (it never means "wait forever").
  try {
    transport().recv(next_rank(), 1, Seconds(-1));
    ADD_FAILURE() << "recv with a negative timeout";
  } catch (const TransportError& e) {
    EXPECT_NE(std::string(e.what()).find("timeout must be >= 0"), std::string::npos) << e.what();
  }
  try {
    transport().isend(Bytes(kMaxPayload + 1), next_rank(), 0);
    ADD_FAILURE() << "isend above max_message_bytes";
  } catch (const TransportError& e) {
    EXPECT_NE(std::string(e.what()).find("max_message_bytes"), std::string::npos) << e.what();
  }
}

// Destroying a transport while a timed-out any-source receive may still be posted in the
// backend (and a send was refused) shuts down without hanging or crashing.
TYPED_TEST(Errors, DestroyingWithPendingOperationsIsClean) {
  auto second = make_second_transport(transport().options());
  EXPECT_THROW(second->recv(kAnySource, 9, Seconds(0.1)), TimeoutError);
  second->world().barrier();
  second.reset();
}

}  // namespace
}  // namespace gfn::transport::conformance
