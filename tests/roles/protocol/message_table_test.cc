// roles/protocol/message_table.h: the invariants of the one table every message is
// defined in, and the rules derived from it (names, the ERROR reply tag).
#include "roles/protocol/message_table.h"

#include <gtest/gtest.h>

#include <cctype>
#include <set>
#include <string>
#include <tuple>

namespace gfn::protocol {
namespace {

std::string label(const MessageInfo& m) { return std::string(m.name); }

TEST(MessageTable, TypeValuesAreUniqueAndNonZero) {
  std::set<MessageType> seen;
  for (const auto& m : kMessages) {
    EXPECT_NE(m.type, MessageType::kNone) << label(m);
    EXPECT_TRUE(seen.insert(m.type).second) << label(m) << ": value used twice";
  }
}

TEST(MessageTable, NamesAreUniqueUpperCaseAndDerived) {
  std::set<std::string> names;
  for (const auto& m : kMessages) {
    const std::string n = m.name;
    ASSERT_FALSE(n.empty());
    for (char c : n) EXPECT_TRUE(std::isupper(static_cast<unsigned char>(c)) || c == '_') << n;
    EXPECT_TRUE(names.insert(n).second) << n << ": name used twice";
    EXPECT_EQ(std::string(name(m.type)), n);  // name() is the table's
    EXPECT_EQ(find(m.type), &m);
  }
  EXPECT_STREQ(name(MessageType::kNone), "UNKNOWN");
  EXPECT_STREQ(name(static_cast<MessageType>(999)), "UNKNOWN");
  EXPECT_EQ(find(std::uint16_t{999}), nullptr);
}

TEST(MessageTable, ExistingWireValuesAreKeptAndNewOnesAppended) {
  const std::pair<MessageType, std::uint16_t> expected[] = {
      {MessageType::kData, 1},
      {MessageType::kScore, 2},
      {MessageType::kGetMetadata, 3},
      {MessageType::kMetadata, 4},
      {MessageType::kTrainerExit, 5},  // the former EXIT, trainer -> manager
      {MessageType::kModeReport, 6},
      {MessageType::kGetPopulationStats, 7},
      {MessageType::kPopulationStats, 8},
      {MessageType::kBaselineReport, 9},
      {MessageType::kBaselineSync, 10},  // coordinator -> manager only
      {MessageType::kError, 11},
      {MessageType::kGetSample, 12},
      {MessageType::kSample, 13},
      {MessageType::kManagerExit, 14},
      {MessageType::kManagerExitAck, 15},
      {MessageType::kBaselinePush, 16},
      {MessageType::kBaselineFeedEnd, 17},
      {MessageType::kSpawnMetric, 18},
      {MessageType::kSpawnParams, 19},
      {MessageType::kManagerAlive, 20},
      {MessageType::kCheckpoint, 21},
      {MessageType::kCheckpointDone, 22},
      {MessageType::kManagerCheckpoint, 23},
      {MessageType::kCoordinatorCheckpointDone, 24},
  };
  ASSERT_EQ(std::size(kMessages), std::size(expected));
  for (std::size_t i = 0; i < std::size(expected); ++i) {
    EXPECT_EQ(static_cast<std::uint16_t>(expected[i].first), expected[i].second);
    EXPECT_EQ(kMessages[i].type, expected[i].first) << "the table is in wire-value order";
  }
}

TEST(MessageTable, EveryReplyExistsAndGoesBackOnTheReplyTag) {
  for (const auto& m : kMessages) {
    SCOPED_TRACE(label(m));
    if (m.reply == MessageType::kNone) {
      EXPECT_EQ(m.reply_tag, kNoTag);
      continue;
    }
    EXPECT_GE(m.reply_tag, 0) << "a request must say where its reply travels";
    const MessageInfo* r = find(m.reply);
    ASSERT_NE(r, nullptr) << "its reply is not in the table";
    EXPECT_EQ(r->tag, m.reply_tag);
    EXPECT_EQ(r->from, m.to);
    EXPECT_EQ(r->to, m.from);
    EXPECT_EQ(r->reply, MessageType::kNone) << "a reply is not itself a request";
  }
}

TEST(MessageTable, RequestsExpectingTheseRepliesAreTheOnlyOnes) {
  std::set<std::tuple<MessageType, MessageType, int>> requests;
  for (const auto& m : kMessages) {
    if (m.reply != MessageType::kNone) requests.emplace(m.type, m.reply, m.reply_tag);
  }
  EXPECT_EQ(
      requests,
      (std::set<std::tuple<MessageType, MessageType, int>>{
          {MessageType::kData, MessageType::kScore, tags::kData},
          {MessageType::kGetMetadata, MessageType::kMetadata, tags::kMetadata},
          {MessageType::kGetPopulationStats, MessageType::kPopulationStats, tags::kPopulation},
          {MessageType::kGetSample, MessageType::kSample, tags::kSample},
          {MessageType::kManagerExit, MessageType::kManagerExitAck, tags::kData},
          {MessageType::kCheckpoint, MessageType::kCheckpointDone, tags::kCheckpoint},
          {MessageType::kManagerCheckpoint, MessageType::kCoordinatorCheckpointDone,
           tags::kCheckpoint},
      }));
}

TEST(MessageTable, RepliesNeverShareTheirChannelWithAnotherReply) {
  // A receiver waits for one reply kind per (source, tag): two replies on one channel
  // could answer each other's wait.
  std::set<std::tuple<Role, Role, int>> channels;
  for (const auto& m : kMessages) {
    if (m.reply == MessageType::kNone) continue;
    const MessageInfo& r = *find(m.reply);
    EXPECT_TRUE(channels.emplace(r.from, r.to, r.tag).second) << r.name;
  }
}

TEST(MessageTable, OnlyErrorGoesAnywhereAndHasNoFixedTag) {
  for (const auto& m : kMessages) {
    SCOPED_TRACE(label(m));
    if (m.type == MessageType::kError) {
      EXPECT_EQ(m.from, Role::kAny);
      EXPECT_EQ(m.to, Role::kAny);
      EXPECT_EQ(m.tag, kErrorReplyTag);
      continue;
    }
    EXPECT_NE(m.from, Role::kAny);
    EXPECT_NE(m.to, Role::kAny);
    // Only the asynchronous spawn policy's messages go between two trainers (peers of
    // one agent group), on their own tag.
    const bool peer = m.type == MessageType::kSpawnMetric || m.type == MessageType::kSpawnParams;
    EXPECT_EQ(m.from == m.to, peer);
    EXPECT_EQ(m.tag == tags::kSpawn, peer);
    EXPECT_GE(m.tag, 0);
    EXPECT_LE(m.tag, tags::kCheckpoint);
  }
}

TEST(MessageTable, OneMeaningPerType) {
  // The former EXIT and BASELINE_SYNC each had several meanings; now one row each.
  const auto row = [](MessageType t) { return *find(t); };
  EXPECT_EQ(row(MessageType::kTrainerExit).tag, tags::kData);
  EXPECT_EQ(row(MessageType::kManagerExit).tag, tags::kControl);
  EXPECT_EQ(row(MessageType::kManagerAlive).tag, tags::kControl);
  EXPECT_EQ(row(MessageType::kManagerAlive).reply, MessageType::kNone);
  EXPECT_EQ(row(MessageType::kManagerExitAck).tag, tags::kData);
  EXPECT_EQ(row(MessageType::kCheckpoint).tag, tags::kData);
  EXPECT_EQ(row(MessageType::kCheckpoint).reply, MessageType::kCheckpointDone);
  EXPECT_EQ(row(MessageType::kCheckpointDone).tag, tags::kCheckpoint);
  EXPECT_EQ(row(MessageType::kBaselineFeedEnd).tag, tags::kBaseline);
  EXPECT_EQ(row(MessageType::kBaselineSync).from, Role::kCoordinator);
  EXPECT_EQ(row(MessageType::kBaselineSync).tag, tags::kData);
  EXPECT_EQ(row(MessageType::kBaselinePush).from, Role::kManager);
  EXPECT_EQ(row(MessageType::kBaselinePush).tag, tags::kBaseline);
  std::set<std::string> payloads;
  for (const auto& m : kMessages) {
    EXPECT_TRUE(payloads.insert(m.payload).second) << m.payload << " carried by two types";
  }
}

TEST(MessageTable, PayloadStructsMapToTheirRows) {
#define GFN_CHECK_SPEC(e, value, text, payload_struct, ...)               \
  EXPECT_EQ(MessageSpec<payload_struct>::type, MessageType::e);           \
  EXPECT_STREQ(MessageSpec<payload_struct>::name, text);                  \
  EXPECT_EQ(MessageSpec<payload_struct>::tag, find(MessageType::e)->tag); \
  EXPECT_STREQ(find(MessageType::e)->payload, #payload_struct);
  GFN_PROTOCOL_MESSAGES(GFN_CHECK_SPEC)
#undef GFN_CHECK_SPEC
}

TEST(MessageTable, ErrorTagIsDerivedFromTheTable) {
  // For every message, the receiver that refuses it can answer its sender.
  for (const auto& m : kMessages) {
    if (m.type == MessageType::kError) continue;
    SCOPED_TRACE(label(m));
    const int tag = error_tag(static_cast<std::uint16_t>(m.type), m.to, m.from);
    EXPECT_EQ(tag, m.reply != MessageType::kNone ? m.reply_tag : channel(m.to, m.from));
    EXPECT_GE(tag, 0);
  }
  const auto t = [](MessageType type, Role refuser, Role sender) {
    return error_tag(static_cast<std::uint16_t>(type), refuser, sender);
  };
  // Requests: where the sender waits for the reply.
  EXPECT_EQ(t(MessageType::kData, Role::kManager, Role::kTrainer), tags::kData);
  EXPECT_EQ(t(MessageType::kGetMetadata, Role::kManager, Role::kTrainer), tags::kMetadata);
  EXPECT_EQ(t(MessageType::kGetSample, Role::kManager, Role::kTrainer), tags::kSample);
  EXPECT_EQ(t(MessageType::kGetPopulationStats, Role::kCoordinator, Role::kTrainer),
            tags::kPopulation);
  EXPECT_EQ(t(MessageType::kManagerExit, Role::kCoordinator, Role::kManager), tags::kData);
  EXPECT_EQ(t(MessageType::kCheckpoint, Role::kManager, Role::kTrainer), tags::kCheckpoint);
  // Another role's request: that role's reply tag is not where this sender waits.
  EXPECT_EQ(t(MessageType::kManagerExit, Role::kCoordinator, Role::kTrainer), tags::kPopulation);
  EXPECT_EQ(t(MessageType::kGetMetadata, Role::kCoordinator, Role::kManager), tags::kData);
  // One-way messages and unknown or unreadable types: the refuser's usual channel.
  EXPECT_EQ(t(MessageType::kTrainerExit, Role::kManager, Role::kTrainer), tags::kData);
  EXPECT_EQ(t(MessageType::kScore, Role::kManager, Role::kTrainer), tags::kData);
  EXPECT_EQ(t(MessageType::kModeReport, Role::kCoordinator, Role::kManager), tags::kData);
  EXPECT_EQ(t(MessageType::kModeReport, Role::kCoordinator, Role::kTrainer), tags::kPopulation);
  EXPECT_EQ(error_tag(0, Role::kManager, Role::kTrainer), tags::kData);
  EXPECT_EQ(error_tag(999, Role::kCoordinator, Role::kTrainer), tags::kPopulation);
  EXPECT_EQ(error_tag(999, Role::kCoordinator, Role::kManager), tags::kData);
  // Between the trainers of an agent group: the spawn messages' tag.
  EXPECT_EQ(channel(Role::kTrainer, Role::kTrainer), tags::kSpawn);
  EXPECT_EQ(t(MessageType::kSpawnParams, Role::kTrainer, Role::kTrainer), tags::kSpawn);
}

TEST(MessageTable, NamesOnATagListTheTypesInTableOrder) {
  EXPECT_EQ(names_on(tags::kBaseline, Role::kManager, Role::kTrainer),
            "BASELINE_PUSH or BASELINE_FEED_END");
  EXPECT_EQ(names_on(tags::kData, Role::kTrainer, Role::kManager),
            "DATA, GET_METADATA, TRAINER_EXIT, GET_SAMPLE or CHECKPOINT");
  EXPECT_EQ(names_on(tags::kCheckpoint, Role::kManager, Role::kTrainer), "CHECKPOINT_DONE");
  EXPECT_EQ(names_on(tags::kData, Role::kCoordinator, Role::kManager),
            "BASELINE_SYNC or MANAGER_EXIT_ACK");
  EXPECT_EQ(names_on(tags::kSpawn, Role::kTrainer, Role::kTrainer), "SPAWN_METRIC or SPAWN_PARAMS");
  EXPECT_EQ(names_on(tags::kMetadata, Role::kManager, Role::kTrainer), "METADATA");
  EXPECT_EQ(names_on(tags::kSample, Role::kTrainer, Role::kManager), "nothing");
  EXPECT_STREQ(name(Role::kManager), "buffer manager");
}

}  // namespace
}  // namespace gfn::protocol
