// Point-to-point conformance: payloads of every size arrive byte-identical, any-source
// receives report the sender, tags never mix, concurrent senders keep messages whole.
// Ranks talk in a ring (rank r sends to r+1, receives from r-1) unless a test says
// otherwise.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "tests/transport/conformance/conformance_env.h"

namespace gfn::transport::conformance {
namespace {

Bytes encode(const std::vector<std::int64_t>& values) {
  Bytes b(values.size() * sizeof(std::int64_t));
  if (!b.empty()) std::memcpy(b.data(), values.data(), b.size());
  return b;
}

std::vector<std::int64_t> decode(const Bytes& b) {
  std::vector<std::int64_t> v(b.size() / sizeof(std::int64_t));
  if (!v.empty()) std::memcpy(v.data(), b.data(), v.size() * sizeof(std::int64_t));
  return v;
}

template <class B>
class P2p : public ConformanceTest<B> {};
TYPED_TEST_SUITE(P2p, Backends, BackendNames);

TYPED_TEST(P2p, WorldMatchesTheLauncher) {
  EXPECT_EQ(transport().backend(), TypeParam::kName);
  EXPECT_GE(rank(), 0);
  EXPECT_LT(rank(), world());
  EXPECT_EQ(transport().world().size(), world());
  EXPECT_EQ(transport().world().rank(), rank());
  EXPECT_EQ(transport().options().max_message_bytes, kMaxPayload);
}

// Sizes 0, 1, 4095, 4096, 1 MiB and 64 MiB (= max_message_bytes) around the ring with
// isend, then 0..1 MiB with blocking sends between pairs (2k -> 2k+1), both directions.
TYPED_TEST(P2p, PayloadsArriveByteIdentical) {
  REQUIRE_RANKS(2);
  const std::vector<std::size_t> sizes = {0, 1, 4095, 4096, std::size_t{1} << 20, kMaxPayload};
  for (std::size_t size : sizes) {
    SCOPED_TRACE("ring, size " + std::to_string(size));
    SendHandle h = transport().isend(pattern(rank(), size, 1), next_rank(), 3);
    {
      Received got = transport().recv(prev_rank(), 3, kTimeout);
      EXPECT_EQ(got.src, prev_rank());
      ASSERT_EQ(got.bytes.size(), size);
      EXPECT_TRUE(got.bytes == pattern(prev_rank(), size, 1));
    }
    h.wait(kTimeout);
    EXPECT_TRUE(h.is_complete());
  }
  const bool even = rank() % 2 == 0;
  const int partner = even ? rank() + 1 : rank() - 1;
  if (partner >= world()) return;  // odd world: the last rank has no partner
  for (std::size_t i = 0; i + 1 < sizes.size(); ++i) {
    const std::size_t size = sizes[i];
    SCOPED_TRACE("pairs, size " + std::to_string(size));
    for (int turn = 0; turn < 2; ++turn) {
      const bool sending = (turn == 0) == even;
      if (sending) {
        transport().send(pattern(rank(), size, 2 + turn), partner, 4);
      } else {
        Received got = transport().recv(partner, 4, kTimeout);
        EXPECT_EQ(got.src, partner);
        ASSERT_EQ(got.bytes.size(), size);
        EXPECT_TRUE(got.bytes == pattern(partner, size, 2 + turn));
      }
    }
  }
}

TYPED_TEST(P2p, AnySourceReportsTheSender) {
  REQUIRE_RANKS(2);
  if (rank() == 0) {
    std::multiset<int> senders;
    for (int i = 0; i < 2 * (world() - 1); ++i) {
      Received got = transport().recv(kAnySource, 5, kTimeout);
      const auto v = decode(got.bytes);
      ASSERT_EQ(v.size(), 2u);
      EXPECT_EQ(v[0], got.src) << "the payload says it came from rank " << v[0];
      senders.insert(got.src);
    }
    for (int r = 1; r < world(); ++r) EXPECT_EQ(senders.count(r), 2u) << "sender " << r;
    EXPECT_EQ(senders.count(0), 0u);
  } else {
    transport().send(encode({rank(), 0}), 0, 5);
    transport().send(encode({rank(), 1}), 0, 5);
  }
}

// Any-source receives on rank 0 of messages of different sizes from every rank: the
// reported source is the rank whose payload arrived (the payload is taken from it).
TYPED_TEST(P2p, AnySourceTakesThePayloadFromTheReportedSender) {
  REQUIRE_RANKS(3);
  constexpr int kPerSender = 20;
  if (rank() == 0) {
    std::vector<int> next_seq(static_cast<std::size_t>(world()), 0);
    for (int i = 0; i < kPerSender * (world() - 1); ++i) {
      Received got = transport().recv(kAnySource, 6, kTimeout);
      ASSERT_GT(got.src, 0);
      ASSERT_LT(got.src, world());
      const int seq = next_seq[static_cast<std::size_t>(got.src)]++;
      const std::size_t size = static_cast<std::size_t>(100 * got.src + seq);
      ASSERT_EQ(got.bytes.size(), size) << "from rank " << got.src << " message " << seq;
      EXPECT_TRUE(got.bytes == pattern(got.src, size, seq));
    }
  } else {
    std::vector<SendHandle> handles;
    for (int i = 0; i < kPerSender; ++i) {
      const std::size_t size = static_cast<std::size_t>(100 * rank() + i);
      handles.push_back(transport().isend(pattern(rank(), size, i), 0, 6));
    }
    for (auto& h : handles) h.wait(kTimeout);
  }
}

// Many tags between the same pair, interleaved on the sender and drained tag by tag in
// reverse order on the receiver: each message arrives on its own tag, in order.
TYPED_TEST(P2p, InterleavedTagsNeverMix) {
  REQUIRE_RANKS(2);
  constexpr int kPerTag = 40;
  const std::vector<int> tags = {10, 11, 12, 13, 14, 15, 16, 17};
  std::vector<SendHandle> handles;
  for (int i = 0; i < kPerTag; ++i) {
    for (int tag : tags) {
      // Sizes differ per tag, so a payload received on the wrong tag would not fit.
      std::vector<std::int64_t> v(static_cast<std::size_t>(1 + tag - 10), rank());
      v[0] = tag * 1000 + i;
      handles.push_back(transport().isend(encode(v), next_rank(), tag));
    }
  }
  for (auto it = tags.rbegin(); it != tags.rend(); ++it) {
    for (int i = 0; i < kPerTag; ++i) {
      Received got = transport().recv(prev_rank(), *it, kTimeout);
      const auto v = decode(got.bytes);
      ASSERT_EQ(v.size(), static_cast<std::size_t>(1 + *it - 10)) << "tag " << *it;
      EXPECT_EQ(v[0], *it * 1000 + i) << "messages of one tag between one pair arrive in order";
    }
  }
  for (auto& h : handles) h.wait(kTimeout);
}

// A pending message on tag 0 never answers a receive on tag 1 (in the protocol: a
// pending score never answers a metadata query), even when it is the only one pending.
TYPED_TEST(P2p, APendingMessageOnTag0NeverAnswersTag1) {
  REQUIRE_RANKS(2);
  constexpr int kTag0 = 0, kTag1 = 1;
  if (rank() == 0) {
    SendHandle data = transport().isend(encode({0, 111}), 1, kTag0);
    transport().world().barrier();  // the data message is pending for rank 1
    transport().world().barrier();  // rank 1 tried tag 1
    transport().send(encode({1, 222}), 1, kTag1);
    data.wait(kTimeout);
  } else {
    transport().world().barrier();
    if (rank() == 1) {
      EXPECT_THROW(transport().recv(0, kTag1, Seconds(0.3)), TimeoutError);
      EXPECT_THROW(transport().recv(kAnySource, kTag1, Seconds(0.1)), TimeoutError);
    }
    transport().world().barrier();
    if (rank() == 1) {
      Received meta = transport().recv(kAnySource, kTag1, kTimeout);
      EXPECT_EQ(meta.src, 0);
      EXPECT_EQ(decode(meta.bytes), (std::vector<std::int64_t>{1, 222}));
      Received data = transport().recv(0, kTag0, kTimeout);
      EXPECT_EQ(decode(data.bytes), (std::vector<std::int64_t>{0, 111}));
    }
  }
}

// Two threads isend on one tag at once (send/isend/recv are thread-safe): every message
// arrives whole, and each thread's messages arrive in its order.
TYPED_TEST(P2p, ConcurrentSendersOnOneTagKeepMessagesWhole) {
  REQUIRE_RANKS(2);
  constexpr int kPerThread = 150;
  auto sender = [](int id) {
    std::vector<SendHandle> hs;
    for (int i = 0; i < kPerThread; ++i) {
      // Different sizes per thread: an interleaved length/payload pair would not fit.
      std::vector<std::int64_t> v(static_cast<std::size_t>(2 + id * 7), id);
      v[1] = i;
      hs.push_back(transport().isend(encode(v), next_rank(), 21));
    }
    for (auto& h : hs) h.wait(kTimeout);
  };
  std::thread a(sender, 0);
  std::thread b(sender, 1);
  int next_seq[2] = {0, 0};
  for (int i = 0; i < 2 * kPerThread; ++i) {
    Received got = transport().recv(prev_rank(), 21, kTimeout);
    const auto v = decode(got.bytes);
    ASSERT_GE(v.size(), 2u);
    const int id = static_cast<int>(v[0]);
    ASSERT_TRUE(id == 0 || id == 1);
    EXPECT_EQ(v.size(), static_cast<std::size_t>(2 + id * 7));
    EXPECT_EQ(v[1], next_seq[id]++) << "thread " << id;
  }
  a.join();
  b.join();
}

// Two transports of one backend never see each other's messages.
TYPED_TEST(P2p, TransportsDoNotShareMessages) {
  REQUIRE_RANKS(2);
  auto other = make_second_transport(transport().options());
  if (rank() == 0) {
    other->send(pattern(0, 10, 1), 1, 12);
  } else if (rank() == 1) {
    EXPECT_THROW(transport().recv(0, 12, Seconds(0.2)), TimeoutError);
    EXPECT_TRUE(other->recv(0, 12, kTimeout).bytes == pattern(0, 10, 1));
  }
  other->world().barrier();
}

}  // namespace
}  // namespace gfn::transport::conformance
