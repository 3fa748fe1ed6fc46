#pragma once
// The protocol in one place: every message of the trainer / buffer-manager / coordinator
// protocol is one row of GFN_PROTOCOL_MESSAGES below — its wire type value, name,
// payload struct (roles/protocol/messages.h), direction (sender role -> receiver role),
// tag, and the reply it expects with the reply's tag. From that one list come:
//   - the MessageType enum (the values of the envelope's type field);
//   - kMessages, the table as a constexpr array (find(), name());
//   - MessageSpec<Payload>, which maps each payload struct to its row, so that
//     protocol::encode(payload) / protocol::send(transport, dst, payload) (codec.h) take
//     the type and the tag from the table and a call site cannot mismatch them;
//   - the ERROR reply rule, error_tag(), and who answers with ERROR (answers_with_error());
//   - with the channels of GFN_PROTOCOL_TAGS (messages.h, kChannels), the per-tag overview
//     channel_overview(), which docs/protocol.md "Tags" shows (a test keeps it current).
// Framing (transport/framing) knows none of this: to it a type is an opaque u16.
//
// Wire values are never renumbered, only appended; a change of meaning bumps
// transport::kWireVersion. Version 2 split the former EXIT (5) into TRAINER_EXIT (5),
// MANAGER_EXIT, MANAGER_EXIT_ACK and BASELINE_FEED_END, and the former BASELINE_SYNC (10)
// on tag kBaseline into BASELINE_PUSH: one type per meaning, one payload per type.
//
// Everything here is constexpr or a pure function: thread-safe, never throws.

#include <cstddef>
#include <cstdint>
#include <string>

#include "roles/protocol/messages.h"

namespace gfn::protocol {

/// Who sends or receives a message. kAny: ERROR, which every role may send and receive.
enum class Role : std::uint8_t { kTrainer, kManager, kCoordinator, kAny };

/// "trainer", "buffer manager", "coordinator", "any role".
const char* name(Role role) noexcept;

/// reply_tag of a message that expects no reply.
constexpr int kNoTag = -1;
/// tag of ERROR: not fixed; an ERROR goes on error_tag() of the message it refuses.
constexpr int kErrorReplyTag = -2;

// clang-format off
// X(enumerator, value, "NAME", Payload, from, to, tag, reply, reply tag)
// `reply` kNone: no reply. A reply's row must go the other way on `reply tag`.
#define GFN_PROTOCOL_MESSAGES(X)                                                                                                  \
  X(kData,               1,  "DATA",                 Submission,             kTrainer,     kManager,     tags::kData,       kScore,           tags::kData)       \
  X(kScore,              2,  "SCORE",                Score,                  kManager,     kTrainer,     tags::kData,       kNone,            kNoTag)            \
  X(kGetMetadata,        3,  "GET_METADATA",         Query,                  kTrainer,     kManager,     tags::kData,       kMetadata,        tags::kMetadata)   \
  X(kMetadata,           4,  "METADATA",             Metadata,               kManager,     kTrainer,     tags::kMetadata,   kNone,            kNoTag)            \
  X(kTrainerExit,        5,  "TRAINER_EXIT",         TrainerExit,            kTrainer,     kManager,     tags::kData,       kNone,            kNoTag)            \
  X(kModeReport,         6,  "MODE_REPORT",          ModeReport,             kManager,     kCoordinator, tags::kControl,    kNone,            kNoTag)            \
  X(kGetPopulationStats, 7,  "GET_POPULATION_STATS", PopulationStatsRequest, kTrainer,     kCoordinator, tags::kControl,    kPopulationStats, tags::kPopulation) \
  X(kPopulationStats,    8,  "POPULATION_STATS",     PopulationStats,        kCoordinator, kTrainer,     tags::kPopulation, kNone,            kNoTag)            \
  X(kBaselineReport,     9,  "BASELINE_REPORT",      BaselineReport,         kManager,     kCoordinator, tags::kControl,    kNone,            kNoTag)            \
  X(kBaselineSync,       10, "BASELINE_SYNC",        BaselineSync,           kCoordinator, kManager,     tags::kData,       kNone,            kNoTag)            \
  X(kError,              11, "ERROR",                ErrorReply,             kAny,         kAny,         kErrorReplyTag,    kNone,            kNoTag)            \
  X(kGetSample,          12, "GET_SAMPLE",           SampleRequest,          kTrainer,     kManager,     tags::kData,       kSample,          tags::kSample)     \
  X(kSample,             13, "SAMPLE",               SampleBatch,            kManager,     kTrainer,     tags::kSample,     kNone,            kNoTag)            \
  X(kManagerExit,        14, "MANAGER_EXIT",         ManagerExit,            kManager,     kCoordinator, tags::kControl,    kManagerExitAck,  tags::kData)       \
  X(kManagerExitAck,     15, "MANAGER_EXIT_ACK",     ManagerExitAck,         kCoordinator, kManager,     tags::kData,       kNone,            kNoTag)            \
  X(kBaselinePush,       16, "BASELINE_PUSH",        BaselinePush,           kManager,     kTrainer,     tags::kBaseline,   kNone,            kNoTag)            \
  X(kBaselineFeedEnd,    17, "BASELINE_FEED_END",    BaselineFeedEnd,        kManager,     kTrainer,     tags::kBaseline,   kNone,            kNoTag)            \
  X(kSpawnMetric,        18, "SPAWN_METRIC",         SpawnMetricReport,      kTrainer,     kTrainer,     tags::kSpawn,      kNone,            kNoTag)            \
  X(kSpawnParams,        19, "SPAWN_PARAMS",         SpawnParameters,        kTrainer,     kTrainer,     tags::kSpawn,      kNone,            kNoTag)            \
  X(kManagerAlive,       20, "MANAGER_ALIVE",        ManagerAlive,           kManager,     kCoordinator, tags::kControl,    kNone,            kNoTag)            \
  X(kCheckpoint,         21, "CHECKPOINT",           CheckpointRequest,      kTrainer,     kManager,     tags::kData,       kCheckpointDone,  tags::kCheckpoint) \
  X(kCheckpointDone,     22, "CHECKPOINT_DONE",      CheckpointDone,         kManager,     kTrainer,     tags::kCheckpoint, kNone,            kNoTag)            \
  X(kManagerCheckpoint,  23, "MANAGER_CHECKPOINT",   ManagerCheckpoint,      kManager,     kCoordinator, tags::kControl,    kCoordinatorCheckpointDone, tags::kCheckpoint) \
  X(kCoordinatorCheckpointDone, 24, "COORDINATOR_CHECKPOINT_DONE", CoordinatorCheckpointDone, kCoordinator, kManager, tags::kCheckpoint, kNone, kNoTag)
// clang-format on

/// The value of an envelope's type field. kNone (0) is no message: "no reply" in the
/// table, "unreadable" in ErrorReply::refused_type; it never travels as a type.
enum class MessageType : std::uint16_t {
  kNone = 0,
#define GFN_PROTOCOL_ENUMERATOR(e, value, ...) e = value,
  GFN_PROTOCOL_MESSAGES(GFN_PROTOCOL_ENUMERATOR)
#undef GFN_PROTOCOL_ENUMERATOR
};

/// One row of the table.
struct MessageInfo {
  MessageType type;
  const char* name;     ///< upper-case protocol name, "DATA"
  const char* payload;  ///< the payload struct's name in roles/protocol/messages.h
  Role from;
  Role to;
  int tag;            ///< where it travels; kErrorReplyTag for ERROR
  MessageType reply;  ///< what answers it, kNone if nothing does
  int reply_tag;      ///< where that reply travels (the sender waits there); kNoTag if none
};

/// The table, in wire-value order.
inline constexpr MessageInfo kMessages[] = {
#define GFN_PROTOCOL_ROW(e, value, text, payload, from, to, tag, reply, reply_tag) \
  {MessageType::e, text, #payload, Role::from, Role::to, tag, MessageType::reply, reply_tag},
    GFN_PROTOCOL_MESSAGES(GFN_PROTOCOL_ROW)
#undef GFN_PROTOCOL_ROW
};

/// The row of `type`, or nullptr if no message has that value.
constexpr const MessageInfo* find(MessageType type) {
  for (const auto& m : kMessages) {
    if (m.type == type) return &m;
  }
  return nullptr;
}
constexpr const MessageInfo* find(std::uint16_t value) {
  return find(static_cast<MessageType>(value));
}

/// The protocol name of `type` ("DATA", "BASELINE_PUSH"), or "UNKNOWN".
constexpr const char* name(MessageType type) {
  const MessageInfo* m = find(type);
  return m ? m->name : "UNKNOWN";
}

/// Maps a payload struct to its row: MessageSpec<Submission>::type is MessageType::kData,
/// ::tag its tag, ::name its name. Only the structs of the table have one, so encoding
/// anything else does not compile.
template <class Payload>
struct MessageSpec;

#define GFN_PROTOCOL_SPEC(e, value, text, payload, from_role, to_role, message_tag, ...) \
  template <>                                                                            \
  struct MessageSpec<payload> {                                                          \
    static constexpr MessageType type = MessageType::e;                                  \
    static constexpr const char* name = text;                                            \
    static constexpr int tag = message_tag;                                              \
  };
GFN_PROTOCOL_MESSAGES(GFN_PROTOCOL_SPEC)
#undef GFN_PROTOCOL_SPEC

/// The tag of the first row (in table order) sent by `from` to `to`: the channel on which
/// `from` normally talks to `to`. kNoTag if `from` sends `to` nothing.
constexpr int channel(Role from, Role to) {
  for (const auto& m : kMessages) {
    if (m.from == from && m.to == to) return m.tag;
  }
  return kNoTag;
}

/// The ERROR reply rule: the tag on which `refuser` answers with ERROR a message of
/// type `refused` (a raw value: unknown or unreadable types included) that `sender` sent:
///   - the refused message's reply tag, if it is a request and `sender` is the role that
///     sends it (the sender waits there: a bad GET_METADATA is answered on kMetadata, a
///     bad GET_SAMPLE on kSample);
///   - otherwise (no reply, a type not in the table, or a role sending another role's
///     request) the channel on which the refuser normally talks to the sender: a manager
///     to a trainer on kData, the coordinator to a manager on kData and to a trainer on
///     kPopulation.
/// kNoTag if neither exists. Whether to answer at all is the receiver's decision (a
/// manager does not answer the coordinator, whose replies nobody waits for).
constexpr int error_tag(std::uint16_t refused, Role refuser, Role sender) {
  const MessageInfo* m = find(refused);
  if (m && m->reply != MessageType::kNone && m->from == sender) return m->reply_tag;
  return channel(refuser, sender);
}

/// Whether `refuser` answers a message of `sender` it refuses with ERROR (on error_tag()):
/// exactly when `sender` sends it requests (rows with a reply), since only a requester waits
/// for an answer. The buffer manager answers its trainers, the coordinator trainers and
/// managers; nobody answers the coordinator (a manager logs and drops what it cannot use).
constexpr bool answers_with_error(Role refuser, Role sender) {
  for (const auto& m : kMessages) {
    if (m.from == sender && m.to == refuser && m.reply != MessageType::kNone) return true;
  }
  return false;
}

/// One channel of the protocol: a row of GFN_PROTOCOL_TAGS (messages.h).
struct ChannelInfo {
  int tag;
  const char* name;  ///< the constant's name in protocol::tags, "kData"
  const char* what;  ///< what travels there, in a few words
};

/// The channels, in tag order.
inline constexpr ChannelInfo kChannels[] = {
#define GFN_PROTOCOL_CHANNEL_ROW(constant, value, what) {tags::constant, #constant, what},
    GFN_PROTOCOL_TAGS(GFN_PROTOCOL_CHANNEL_ROW)
#undef GFN_PROTOCOL_CHANNEL_ROW
};

/// The channels and what travels on each, rendered from kChannels and kMessages as a
/// Markdown table (one line per tag and direction: its messages with their payload struct
/// and the reply they expect, and the ERRORs that go there by error_tag() and
/// answers_with_error()), ending with a newline. docs/protocol.md "Tags" holds it between
/// the markers kChannelOverviewBegin / kChannelOverviewEnd; tests/roles/protocol checks the
/// file is current.
std::string channel_overview();
inline constexpr const char* kChannelOverviewBegin =
    "<!-- channel overview: generated by protocol::channel_overview() "
    "(roles/protocol/message_table.h); do not edit -->";
inline constexpr const char* kChannelOverviewEnd = "<!-- end of channel overview -->";

/// The names of the messages `from` sends `to` on `tag`, in table order, for error texts:
/// "BASELINE_PUSH or BASELINE_FEED_END"; "nothing" if there are none.
std::string names_on(int tag, Role from, Role to);

}  // namespace gfn::protocol
