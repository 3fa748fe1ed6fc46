// transport/framing/message.h: typed cereal payloads and bounded decoding of
// hostile size fields (no allocation beyond the bytes present).

#include "transport/framing/message.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <vector>

// GCC flags free() in the replaced operator delete as "mismatched" once inlined;
// the replacement pair (malloc in new, free in delete) is consistent.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

// ---- allocation probe: records the largest single allocation request ----
namespace {
std::atomic<std::size_t> g_largest_allocation{0};
}  // namespace

void* operator new(std::size_t n) {
  std::size_t prev = g_largest_allocation.load(std::memory_order_relaxed);
  while (n > prev && !g_largest_allocation.compare_exchange_weak(prev, n)) {
  }
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace gfn::transport {
namespace {

// Envelope types of these tests (opaque to framing) and a receiver's names for them.
constexpr EnvelopeType kData{1};
constexpr EnvelopeType kScore{2};
constexpr EnvelopeType kQuery{3};
const char* test_names(EnvelopeType type) noexcept {
  switch (static_cast<std::uint16_t>(type)) {
    case 1:
      return "DATA";
    case 2:
      return "SCORE";
    case 3:
      return "QUERY";
    default:
      return nullptr;
  }
}

enum class Color : std::int16_t { kRed = 1, kBlue = 7 };

struct Point {
  double x = 0;
  std::int32_t label = 0;
  std::string name;
  bool operator==(const Point& o) const { return x == o.x && label == o.label && name == o.name; }
  template <class A>
  void serialize(A& ar) {
    ar(x, label, name);
  }
};

struct Inner {
  std::vector<float> weights;
  Point anchor;
  bool operator==(const Inner& o) const { return weights == o.weights && anchor == o.anchor; }
  template <class A>
  void serialize(A& ar) {
    ar(weights, anchor);
  }
};

/// Shaped like the roles' Submission, plus every supported field kind.
struct Submission {
  std::int64_t iteration = 0;
  std::int32_t ndim = 0;
  std::vector<std::int64_t> states;
  std::vector<float> log_rewards;
  std::string note;
  std::vector<Point> points;
  std::vector<std::string> tags;
  std::vector<std::vector<std::int32_t>> nested;
  Inner inner;
  Color color = Color::kRed;
  std::vector<bool> flags;
  bool operator==(const Submission& o) const {
    return iteration == o.iteration && ndim == o.ndim && states == o.states &&
           log_rewards == o.log_rewards && note == o.note && points == o.points && tags == o.tags &&
           nested == o.nested && inner == o.inner && color == o.color && flags == o.flags;
  }
  template <class A>
  void serialize(A& ar) {
    ar(iteration, ndim, states, log_rewards, note, points, tags, nested, inner, color, flags);
  }
};

struct OnlyInts {
  std::vector<std::int64_t> v;
  template <class A>
  void serialize(A& ar) {
    ar(v);
  }
};
struct OnlyFloats {
  std::vector<float> v;
  template <class A>
  void serialize(A& ar) {
    ar(v);
  }
};
struct OnlyString {
  std::string s;
  template <class A>
  void serialize(A& ar) {
    ar(s);
  }
};
struct OnlyPoints {
  std::vector<Point> v;
  template <class A>
  void serialize(A& ar) {
    ar(v);
  }
};
struct Wrapper {
  std::int32_t a = 0;
  Inner inner;
  template <class A>
  void serialize(A& ar) {
    ar(a, inner);
  }
};

Submission sample() {
  Submission s;
  s.iteration = 123456789012;
  s.ndim = 2;
  s.states = {0, 1, 2, 3, -4, 5};
  s.log_rewards = {-1.5f, 0.25f, 3.0f};
  s.note = "hello";
  s.points = {{1.5, 3, "a"}, {-2.0, 4, ""}};
  s.tags = {"x", "", "yz"};
  s.nested = {{1, 2}, {}, {3}};
  s.inner = {{0.5f, 1.5f}, {9.0, -1, "anchor"}};
  s.color = Color::kBlue;
  s.flags = {true, false, true};
  return s;
}

/// Payload of `value` with the u64 at payload offset `at` replaced by `claim`.
template <class T>
Message with_size_field(const T& value, std::size_t at, std::uint64_t claim) {
  Message m = decode_envelope(encode_message(kData, value), 1 << 20);
  EXPECT_GE(m.payload.size(), at + 8);
  std::memcpy(m.payload.data() + at, &claim, 8);  // x86-64: little-endian like cereal's output
  return m;
}

/// Decodes `m` as T, expects MessageError, and checks it allocated nothing large
/// and took little time.
template <class T>
void expect_bounded_failure(const Message& m, const std::string& needle) {
  g_largest_allocation = 0;
  const auto start = std::chrono::steady_clock::now();
  try {
    decode_payload<T>(m, &test_names);
    ADD_FAILURE() << "expected MessageError mentioning '" << needle << "'";
  } catch (const MessageError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(s, 0.5);
  EXPECT_LT(g_largest_allocation.load(), std::size_t{1} << 16)
      << "decoding allocated " << g_largest_allocation.load() << " bytes at once";
}

TEST(Message, RoundTripsNestedPayload) {
  const Submission s = sample();
  const Bytes wire = encode_message(kData, s);
  const Message m = decode_envelope(wire, 1 << 20);
  EXPECT_EQ(m.type, kData);
  EXPECT_TRUE(decode_payload<Submission>(m) == s);
}

TEST(Message, RoundTripsEmptyPayloadStruct) {
  const Bytes wire = encode_message(kQuery, OnlyInts{});
  const Message m = decode_envelope(wire, 1 << 20);
  EXPECT_TRUE(decode_payload<OnlyInts>(m).v.empty());
}

TEST(Message, LargeVectorRoundTripAllocatesOnlyItsSize) {
  OnlyFloats f;
  f.v.resize(100000);
  for (std::size_t i = 0; i < f.v.size(); ++i) f.v[i] = static_cast<float>(i) * 0.5f;
  const Message m = decode_envelope(encode_message(kData, f), 1 << 20);
  g_largest_allocation = 0;
  const auto back = decode_payload<OnlyFloats>(m);
  EXPECT_EQ(back.v, f.v);
  EXPECT_EQ(g_largest_allocation.load(), f.v.size() * sizeof(float));
}

TEST(Message, HostileVectorOfIntsSizeFieldFailsWithoutAllocating) {
  OnlyInts v;
  v.v = {1, 2, 3};
  expect_bounded_failure<OnlyInts>(with_size_field(v, 0, std::uint64_t{1} << 40), "1099511627776");
  expect_bounded_failure<OnlyInts>(with_size_field(v, 0, ~std::uint64_t{0}), "elements");
  // 4 int64 claimed, 3 present: 32 > 24 bytes left.
  expect_bounded_failure<OnlyInts>(with_size_field(v, 0, 4), "elements");
}

TEST(Message, HostileFloatVectorIsBoundedByElementSize) {
  OnlyFloats f;
  f.v.assign(4, 1.f);  // 16 bytes of data after the size field
  // 5 elements: 5 <= 16 bytes but 20 > 16: refused by the exact bound.
  expect_bounded_failure<OnlyFloats>(with_size_field(f, 0, 5), "elements of at least 4 bytes");
}

TEST(Message, HostileStringSizeFieldFails) {
  OnlyString s{"abcdef"};
  expect_bounded_failure<OnlyString>(with_size_field(s, 0, std::uint64_t{1} << 40), "elements");
}

TEST(Message, HostileVectorOfStructsSizeFieldFails) {
  OnlyPoints p;
  p.v = {{1.0, 2, "q"}};
  expect_bounded_failure<OnlyPoints>(with_size_field(p, 0, std::uint64_t{1} << 40), "elements");
  // A plausible count with too few bytes: fails as truncated while decoding elements.
  expect_bounded_failure<OnlyPoints>(with_size_field(p, 0, 3), "truncated");
}

TEST(Message, HostileSizeInsideNestedStructFails) {
  Wrapper w;
  w.a = 5;
  w.inner.weights = {1.f, 2.f};
  // Payload: a (4 bytes), then inner.weights' size field.
  expect_bounded_failure<Wrapper>(with_size_field(w, 4, std::uint64_t{1} << 40), "elements");
}

TEST(Message, HostileSizeInFullSubmissionFails) {
  Submission s = sample();
  // iteration (8) + ndim (4), then the states size field.
  expect_bounded_failure<Submission>(with_size_field(s, 12, std::uint64_t{1} << 40), "DATA");
}

TEST(Message, TruncatedPayloadFails) {
  const Submission s = sample();
  Message m = decode_envelope(encode_message(kData, s), 1 << 20);
  for (std::size_t keep :
       {std::size_t{0}, std::size_t{5}, m.payload.size() / 2, m.payload.size() - 1}) {
    Message cut = m;
    cut.payload.resize(keep);
    expect_bounded_failure<Submission>(cut, "bad DATA payload");
  }
}

TEST(Message, TrailingBytesAfterPayloadFail) {
  Message m = decode_envelope(encode_message(kScore, OnlyInts{{1, 2}}), 1 << 20);
  m.payload.push_back(0);
  expect_bounded_failure<OnlyInts>(m, "trailing");
}

TEST(Message, WrongPayloadTypeFailsCleanly) {
  Message m = decode_envelope(encode_message(kData, sample()), 1 << 20);
  // Reading a Submission as a vector of Points must fail, not allocate wildly.
  expect_bounded_failure<OnlyPoints>(m, "DATA");
}

TEST(Message, ErrorsNameTheTypeThroughTheReceiversNames) {
  Message m = decode_envelope(encode_message(kScore, OnlyInts{{1, 2}}), 1 << 20);
  m.payload.pop_back();
  try {
    decode_payload<OnlyInts>(m, &test_names);
    ADD_FAILURE() << "expected a MessageError";
  } catch (const MessageError& e) {
    EXPECT_NE(std::string(e.what()).find("bad SCORE payload: "), std::string::npos) << e.what();
  }
  try {
    decode_payload<OnlyInts>(m);  // framing alone knows no names
    ADD_FAILURE() << "expected a MessageError";
  } catch (const MessageError& e) {
    EXPECT_NE(std::string(e.what()).find("bad type 2 payload: "), std::string::npos) << e.what();
  }
}

TEST(MessageView, DecodesFromTheReceivedBytesWithoutCopyingThem) {
  const Submission s = sample();
  const Bytes wire = encode_message(kData, s);
  g_largest_allocation = 0;
  const MessageView v = decode_envelope_view(wire, 1 << 20);
  EXPECT_EQ(g_largest_allocation.load(), 0u) << "the envelope view allocated";
  EXPECT_EQ(v.payload, wire.data() + kEnvelopeHeaderBytes);
  EXPECT_TRUE(decode_payload<Submission>(v) == s);
  EXPECT_TRUE(decode_payload<Submission>(decode_envelope(wire, 1 << 20)) == s);
}

TEST(MessageView, DecodeIntoReusesVectorCapacity) {
  OnlyFloats big;
  big.v.resize(50000);
  for (std::size_t i = 0; i < big.v.size(); ++i) big.v[i] = static_cast<float>(i);
  OnlyFloats small;
  small.v = {1.f, 2.f, 3.f};
  const Bytes big_wire = encode_message(kData, big);
  const Bytes small_wire = encode_message(kData, small);
  OnlyFloats target;
  decode_payload_into(decode_envelope_view(big_wire, 1 << 20), target);
  EXPECT_EQ(target.v, big.v);
  const float* storage = target.v.data();
  g_largest_allocation = 0;
  decode_payload_into(decode_envelope_view(small_wire, 1 << 20), target);
  EXPECT_EQ(target.v, small.v);
  decode_payload_into(decode_envelope_view(big_wire, 1 << 20), target);
  EXPECT_EQ(target.v, big.v);
  EXPECT_EQ(target.v.data(), storage);
  EXPECT_EQ(g_largest_allocation.load(), 0u) << "a reused target allocated";
}

TEST(MessageView, DecodeIntoOverwritesEveryField) {
  Submission other;
  other.iteration = -3;
  other.points = {{7.0, 1, "p"}};
  const Bytes wire = encode_message(kData, other);
  Submission target = sample();
  decode_payload_into(decode_envelope_view(wire, 1 << 20), target);
  EXPECT_TRUE(target == other);
}

TEST(MessageView, ErrorsAreThoseOfTheOwnedDecode) {
  const Submission s = sample();
  Bytes wire = encode_message(kData, s);
  wire.resize(wire.size() - 3);
  write_envelope_header(wire.data(), kData, wire.size() - kEnvelopeHeaderBytes);
  const MessageView v = decode_envelope_view(wire, 1 << 20);
  std::string view_error, owned_error;
  try {
    decode_payload<Submission>(v, &test_names);
  } catch (const MessageError& e) {
    view_error = e.what();
  }
  try {
    decode_payload<Submission>(decode_envelope(wire, 1 << 20), &test_names);
  } catch (const MessageError& e) {
    owned_error = e.what();
  }
  EXPECT_NE(view_error.find("bad DATA payload"), std::string::npos) << view_error;
  EXPECT_EQ(view_error, owned_error);
  Bytes trailing = encode_message(kScore, OnlyInts{{1, 2}});
  trailing.push_back(0);
  write_envelope_header(trailing.data(), kScore, trailing.size() - kEnvelopeHeaderBytes);
  try {
    decode_payload<OnlyInts>(decode_envelope_view(trailing, 1 << 20));
    ADD_FAILURE() << "expected a MessageError";
  } catch (const MessageError& e) {
    EXPECT_NE(std::string(e.what()).find("1 trailing bytes after the 24 bytes"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace gfn::transport
