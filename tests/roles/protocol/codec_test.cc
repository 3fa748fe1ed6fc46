// roles/protocol/codec.h: typed encode / decode / send take the type and the tag from the
// table; a message of the wrong type, an unknown type or a bad payload is refused with
// a MessageError that names the types.
#include "roles/protocol/codec.h"

#include <gtest/gtest.h>

#include <iterator>
#include <string>

#include "roles/protocol/message_table.h"
#include "tests/support/error_text.h"
#include "tests/support/loopback_transport.h"

namespace gfn::protocol {
namespace {

using gfn::testing::what_of;

TEST(Codec, EncodeTakesTheTypeFromThePayload) {
  Score score;
  score.iteration = 7;
  const auto wire = encode(score);
  const auto view = decode_message_view(wire, 1 << 20);
  EXPECT_EQ(view.type, MessageType::kScore);
  EXPECT_EQ(message_type(view.type), MessageType::kScore);
  EXPECT_EQ(view.type, envelope_type(MessageType::kScore));
  EXPECT_NE(view.type, MessageType::kData);
  EXPECT_EQ(decode<Score>(view).iteration, 7);
  EXPECT_EQ(message_type(decode_message(encode(BaselinePush{1.f}), 1 << 20).type),
            MessageType::kBaselinePush);
  EXPECT_EQ(message_type(decode_message(encode(ManagerExitAck{}), 1 << 20).type),
            MessageType::kManagerExitAck);
}

// Every payload of the table round trips under its own type.
TEST(Codec, EveryPayloadRoundTrips) {
#define GFN_ROUND_TRIP(e, value, text, payload, ...)                                       \
  {                                                                                        \
    const auto wire = encode(payload{});                                                   \
    const auto m = decode_message(wire, 1 << 20);                                          \
    EXPECT_EQ(m.type, MessageType::e) << text;                                             \
    (void)decode<payload>(m); /* throws (and fails the test) if it does not decode */      \
    EXPECT_EQ(wire.size(),                                                                 \
              transport::encode_message(envelope_type(MessageType::e), payload{}).size()); \
  }
  GFN_PROTOCOL_MESSAGES(GFN_ROUND_TRIP)
#undef GFN_ROUND_TRIP
  EXPECT_EQ(encode(ManagerExitAck{}).size(), transport::kEnvelopeHeaderBytes);  // empty payload
}

TEST(Codec, AMessageOfAnotherTypeIsRefusedByName) {
  // Same payload layout (one float), different meaning: still refused.
  const auto sync = encode(BaselineSync{2.5f});
  EXPECT_EQ(what_of([&] { decode<BaselinePush>(decode_message_view(sync, 1 << 20)); }),
            "expected BASELINE_PUSH, got BASELINE_SYNC message");
  const auto score = encode(Score{});
  EXPECT_EQ(what_of([&] { decode<Submission>(decode_message(score, 1 << 20)); }),
            "expected DATA, got SCORE message");
  const auto exit = encode(TrainerExit{3, 4});
  EXPECT_EQ(what_of([&] { decode<ManagerExit>(decode_message(exit, 1 << 20)); }),
            "expected MANAGER_EXIT, got TRAINER_EXIT message");
}

TEST(Codec, UnknownTypesAreRefusedAndKnownOnesNamedInErrors) {
  auto wire = encode(Score{});
  // The first value after the table's last row (rows are appended in wire-value order).
  const auto next = static_cast<std::uint16_t>(
      static_cast<std::uint16_t>(kMessages[std::size(kMessages) - 1].type) + 1);
  for (std::uint16_t v : {std::uint16_t{0}, next, std::uint16_t{999}}) {
    transport::write_envelope_header(wire.data(), transport::EnvelopeType{v},
                                     wire.size() - transport::kEnvelopeHeaderBytes);
    EXPECT_EQ(what_of([&] { decode_message_view(wire, 1 << 20); }),
              "message has unknown message type " + std::to_string(v));
  }
  // Names in framing's errors come from the table.
  auto data = encode(Submission{});
  data.pop_back();
  transport::write_envelope_header(data.data(), envelope_type(MessageType::kData),
                                   data.size() - transport::kEnvelopeHeaderBytes);
  const auto view = decode_message_view(data, 1 << 20);
  EXPECT_NE(what_of([&] { decode<Submission>(view); }).find("bad DATA payload: "),
            std::string::npos);
  EXPECT_NE(what_of([&] {
              decode_message(encode(Submission{}), 4);
            }).find("DATA message declares a payload of"),
            std::string::npos);
  EXPECT_STREQ(type_name(envelope_type(MessageType::kBaselineFeedEnd)), "BASELINE_FEED_END");
  EXPECT_EQ(type_name(transport::EnvelopeType{999}), nullptr);
  EXPECT_STREQ(name(transport::EnvelopeType{999}), "UNKNOWN");
}

TEST(Codec, SendPutsEachMessageOnItsTag) {
  gfn::testing::LoopbackWorld world(2);
  send(world.rank(0), 1, Submission{});
  send(world.rank(0), 1, TrainerExit{});
  send(world.rank(1), 0, Metadata{});
  send(world.rank(1), 0, BaselinePush{});
  isend(world.rank(1), 0, SampleBatch{}).wait();
  isend(world.rank(1), 0, BaselineFeedEnd{}).wait();
  EXPECT_EQ(world.queued(1, tags::kData), 2u);
  EXPECT_EQ(world.queued(0, tags::kMetadata), 1u);
  EXPECT_EQ(world.queued(0, tags::kBaseline), 2u);
  EXPECT_EQ(world.queued(0, tags::kSample), 1u);
  const auto got = world.rank(0).recv(1, tags::kBaseline, transport::Seconds(1));
  EXPECT_EQ(decode_message(got.bytes, 1 << 20).type, MessageType::kBaselinePush);
}

}  // namespace
}  // namespace gfn::protocol
