// transport/framing/envelope.h: round trip of any (opaque) envelope type and every
// rejection; a receiver's EnvelopeTypeNames refuses unknown types and names known ones.

#include "transport/framing/envelope.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

namespace gfn::transport {
namespace {

// Envelope types used here; framing gives them no meaning.
constexpr EnvelopeType kA{1};
constexpr EnvelopeType kB{9};

/// A receiver's vocabulary: types 1..3 and 9 are known (names "ALPHA" ...), no others.
const char* test_names(EnvelopeType type) noexcept {
  switch (static_cast<std::uint16_t>(type)) {
    case 1:
      return "ALPHA";
    case 2:
      return "BETA";
    case 3:
      return "GAMMA";
    case 9:
      return "NINE";
    default:
      return nullptr;
  }
}

Bytes some_payload(std::size_t n) {
  Bytes p(n);
  for (std::size_t i = 0; i < n; ++i) p[i] = static_cast<std::uint8_t>(i * 31 + 7);
  return p;
}

/// Expects decode_envelope(bytes, cap) to throw MessageError mentioning `needle`.
void expect_rejected(const Bytes& bytes, std::size_t cap, const std::string& needle,
                     EnvelopeTypeNames names = nullptr) {
  try {
    decode_envelope(bytes, cap, names);
    ADD_FAILURE() << "expected a MessageError mentioning '" << needle << "'";
  } catch (const MessageError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(Envelope, RoundTripsAnyTypeValue) {
  for (std::uint16_t v : {std::uint16_t{0}, std::uint16_t{1}, std::uint16_t{17}, std::uint16_t{256},
                          std::uint16_t{0xFFFF}}) {
    const EnvelopeType type{v};
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{1000}}) {
      const Bytes payload = some_payload(n + v % 7);
      const Bytes wire = encode_envelope(type, payload.data(), payload.size());
      ASSERT_EQ(wire.size(), kEnvelopeHeaderBytes + payload.size());
      const Message m = decode_envelope(wire, 1 << 20);  // no names: every type accepted
      EXPECT_EQ(m.type, type);
      EXPECT_EQ(m.payload, payload);
    }
  }
}

TEST(Envelope, NamesComeFromTheReceiversVocabulary) {
  EXPECT_EQ(describe(kA, &test_names), "ALPHA");
  EXPECT_EQ(describe(kB, &test_names), "NINE");
  EXPECT_EQ(describe(kA), "type 1");                            // framing itself names nothing
  EXPECT_EQ(describe(EnvelopeType{4}, &test_names), "type 4");  // unknown to the vocabulary
  // Every known type round trips with the vocabulary.
  for (std::uint16_t v : {1, 2, 3, 9}) {
    const Bytes payload = some_payload(v);
    const Bytes wire = encode_envelope(EnvelopeType{v}, payload.data(), payload.size());
    const Message m = decode_envelope(wire, 1 << 20, &test_names);
    EXPECT_EQ(m.type, EnvelopeType{v});
    EXPECT_EQ(m.payload, payload);
  }
  // Error texts name the type through the vocabulary, "type N" without one.
  const Bytes payload = some_payload(101);
  const Bytes wire = encode_envelope(kB, payload.data(), payload.size());
  expect_rejected(wire, 100, "NINE message declares a payload of 101 bytes", &test_names);
  expect_rejected(wire, 100, "type 9 message declares a payload of 101 bytes");
}

TEST(Envelope, EmptyPayloadWithNullPointer) {
  const Bytes wire = encode_envelope(kA, nullptr, 0);
  const Message m = decode_envelope(wire, 0);
  EXPECT_EQ(m.type, kA);
  EXPECT_TRUE(m.payload.empty());
}

TEST(Envelope, HeaderLayoutIsLittleEndian) {
  const Bytes payload = some_payload(0x0102);
  const Bytes wire = encode_envelope(EnvelopeType{0x0309}, payload.data(), payload.size());
  EXPECT_EQ(std::string(wire.begin(), wire.begin() + 4), "GFNM");
  EXPECT_EQ(wire[4], kWireVersion & 0xFF);
  EXPECT_EQ(wire[5], kWireVersion >> 8);
  EXPECT_EQ(wire[6], 0x09);
  EXPECT_EQ(wire[7], 0x03);
  EXPECT_EQ(wire[8], 0x02);
  EXPECT_EQ(wire[9], 0x01);
  for (int i = 10; i < 16; ++i) EXPECT_EQ(wire[i], 0) << "byte " << i;
}

TEST(Envelope, WireVersionIs2) {
  // Version 2: one protocol message type per meaning (roles/protocol/message_table.h);
  // a version-1 peer is refused.
  EXPECT_EQ(kWireVersion, 2);
  Bytes wire = encode_envelope(kA, nullptr, 0);
  wire[4] = 1;
  expect_rejected(wire, 100, "unknown wire version 1 (this build speaks version 2)");
}

TEST(Envelope, RejectsShorterThanHeader) {
  expect_rejected(Bytes{}, 100, "shorter than");
  Bytes wire = encode_envelope(kA, nullptr, 0);
  wire.pop_back();
  expect_rejected(wire, 100, "shorter than");
}

TEST(Envelope, RejectsWrongMagic) {
  Bytes wire = encode_envelope(kA, nullptr, 0);
  wire[0] = 'X';
  expect_rejected(wire, 100, "magic");
}

TEST(Envelope, RejectsUnknownVersion) {
  for (std::uint16_t v :
       {std::uint16_t{0}, std::uint16_t{kWireVersion + 1}, std::uint16_t{0xFFFF}}) {
    Bytes wire = encode_envelope(kA, nullptr, 0);
    wire[4] = static_cast<std::uint8_t>(v & 0xFF);
    wire[5] = static_cast<std::uint8_t>(v >> 8);
    expect_rejected(wire, 100, "version " + std::to_string(v));
  }
}

TEST(Envelope, RejectsTypesTheVocabularyDoesNotKnow) {
  for (std::uint16_t v :
       {std::uint16_t{0}, std::uint16_t{4}, std::uint16_t{10}, std::uint16_t{0xFFFF}}) {
    Bytes wire = encode_envelope(kA, nullptr, 0);
    wire[6] = static_cast<std::uint8_t>(v & 0xFF);
    wire[7] = static_cast<std::uint8_t>(v >> 8);
    expect_rejected(wire, 100, "unknown message type " + std::to_string(v), &test_names);
    // Without a vocabulary, framing does not judge types.
    EXPECT_EQ(decode_envelope(wire, 100).type, EnvelopeType{v});
  }
}

TEST(Envelope, RejectsTruncatedPayload) {
  const Bytes payload = some_payload(50);
  Bytes wire = encode_envelope(kB, payload.data(), payload.size());
  wire.resize(wire.size() - 1);
  expect_rejected(wire, 100, "truncated");
}

TEST(Envelope, RejectsTrailingGarbage) {
  const Bytes payload = some_payload(50);
  Bytes wire = encode_envelope(kB, payload.data(), payload.size());
  wire.push_back(0);
  expect_rejected(wire, 100, "trailing garbage");
}

TEST(Envelope, RejectsLengthAboveCap) {
  const Bytes payload = some_payload(101);
  Bytes wire = encode_envelope(kA, payload.data(), payload.size());
  expect_rejected(wire, 100, "above the cap of 100");
  EXPECT_NO_THROW(decode_envelope(wire, 101));
  // A header claiming 2^40 bytes with only 16 present: refused by the cap check.
  Bytes hostile(kEnvelopeHeaderBytes);
  write_envelope_header(hostile.data(), kA, std::uint64_t{1} << 40);
  expect_rejected(hostile, 1 << 20, "1099511627776");
  // Without a binding cap, the length mismatch still refuses it.
  expect_rejected(hostile, ~std::size_t{0}, "truncated");
}

TEST(EnvelopeView, PointsIntoTheBytesAndAgreesWithDecodeEnvelope) {
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{1000}}) {
    const Bytes payload = some_payload(n);
    const Bytes wire = encode_envelope(kB, payload.data(), payload.size());
    const MessageView v = decode_envelope_view(wire, 1 << 20);
    EXPECT_EQ(v.type, kB);
    ASSERT_EQ(v.payload_size, n);
    if (n == 0) {
      EXPECT_EQ(v.payload, nullptr);
    } else {
      EXPECT_EQ(v.payload, wire.data() + kEnvelopeHeaderBytes);  // no copy
    }
    EXPECT_EQ(Bytes(v.payload, v.payload + v.payload_size), payload);
    const Message m = decode_envelope(wire, 1 << 20);
    EXPECT_EQ(m.payload, payload);
    const MessageView owned = view_of(m);
    EXPECT_EQ(owned.type, m.type);
    EXPECT_EQ(owned.payload_size, m.payload.size());
    if (n > 0) {
      EXPECT_EQ(owned.payload, m.payload.data());
    }
  }
}

TEST(EnvelopeView, RejectsExactlyLikeDecodeEnvelope) {
  const Bytes payload = some_payload(50);
  const Bytes good = encode_envelope(kA, payload.data(), payload.size());
  const auto edited = [&good](void (*edit)(Bytes&)) {
    Bytes b = good;
    edit(b);
    return b;
  };
  const std::vector<Bytes> bad = {
      Bytes{},
      Bytes(good.begin(), good.begin() + 15),
      edited([](Bytes& b) { b[0] = 'X'; }),      // magic
      edited([](Bytes& b) { b[4] = 9; }),        // version
      edited([](Bytes& b) { b[6] = 99; }),       // type
      edited([](Bytes& b) { b.pop_back(); }),    // truncated
      edited([](Bytes& b) { b.push_back(0); }),  // trailing garbage
  };
  for (std::size_t i = 0; i < bad.size(); ++i) {
    std::string owned_error, view_error;
    try {
      decode_envelope(bad[i], 100, &test_names);
    } catch (const MessageError& e) {
      owned_error = e.what();
    }
    try {
      decode_envelope_view(bad[i], 100, &test_names);
    } catch (const MessageError& e) {
      view_error = e.what();
    }
    EXPECT_FALSE(view_error.empty()) << "case " << i;
    EXPECT_EQ(view_error, owned_error) << "case " << i;
  }
  // Above the cap.
  EXPECT_THROW(decode_envelope_view(good, 49), MessageError);
  EXPECT_THROW(decode_envelope_view(good, 49, &test_names), MessageError);
  EXPECT_NO_THROW(decode_envelope_view(good, 50));
  // Raw pointer form: null with size 0 is a (too short) empty message.
  EXPECT_THROW(decode_envelope_view(nullptr, 0, 100), MessageError);
}

}  // namespace
}  // namespace gfn::transport
