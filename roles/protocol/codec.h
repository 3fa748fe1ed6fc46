#pragma once
// Typed encoding, decoding and sending of protocol messages: the envelope type and the
// tag come from the table (message_table.h) through the payload's MessageSpec, so a call
// site names only the payload and cannot pair it with the wrong type or tag.
//
//   protocol::send(transport, manager, submission);         // DATA on kData, blocking
//   auto h = protocol::isend(transport, trainer, score);    // SCORE on kData
//   const auto view = protocol::decode_message_view(inbox, cap);
//   if (view.type == MessageType::kData) protocol::decode_into(view, submission);
//
// The decoders refuse types that are not in the table and name the type in their
// errors ("bad DATA payload: ..."). Thread-safe (no shared state; encoding uses a
// per-thread stream, transport/framing/message.h). Nothing here blocks except send().

#include <cstddef>
#include <cstdint>
#include <string>

#include "roles/protocol/message_table.h"
#include "transport/errors.h"
#include "transport/framing/message.h"
#include "transport/transport.h"

namespace gfn::protocol {

/// The envelope type of `type`, and back (a value outside the table stays as it is).
constexpr transport::EnvelopeType envelope_type(MessageType type) {
  return transport::EnvelopeType{static_cast<std::uint16_t>(type)};
}
constexpr MessageType message_type(transport::EnvelopeType type) {
  return static_cast<MessageType>(static_cast<std::uint16_t>(type));
}

/// An envelope's type is a MessageType when their values agree, so that
/// `view.type == MessageType::kScore` reads as it should.
constexpr bool operator==(transport::EnvelopeType a, MessageType b) { return message_type(a) == b; }
constexpr bool operator==(MessageType a, transport::EnvelopeType b) { return b == a; }
constexpr bool operator!=(transport::EnvelopeType a, MessageType b) { return !(a == b); }
constexpr bool operator!=(MessageType a, transport::EnvelopeType b) { return !(b == a); }

/// The protocol's transport::EnvelopeTypeNames: the name of a type of the table,
/// nullptr for any other value (framing then refuses it as unknown).
const char* type_name(transport::EnvelopeType type) noexcept;

/// name(MessageType) of an envelope type: "UNKNOWN" outside the table.
inline const char* name(transport::EnvelopeType type) { return name(message_type(type)); }

/// transport::decode_envelope(_view) with the protocol's types: a type outside the table
/// is refused ("unknown message type N") and error texts name the type. Throws
/// transport::MessageError as those (short, wrong magic or version, above `cap`,
/// truncated, trailing garbage). The view borrows `bytes`. (Named apart from the
/// transport functions so that an unqualified call is never ambiguous: Bytes' allocator
/// brings transport:: into argument-dependent lookup.)
transport::MessageView decode_message_view(const transport::Bytes& bytes, std::size_t cap);
transport::Message decode_message(const transport::Bytes& bytes, std::size_t cap);

/// The message carrying `payload`, its type taken from the table.
template <class Payload>
transport::Bytes encode(const Payload& payload) {
  return transport::encode_message(envelope_type(MessageSpec<Payload>::type), payload);
}

/// `payload` under any `type`, unchecked: for tests and tools that must send a message
/// the protocol would not (to check it is refused). Production code uses encode().
template <class Payload>
transport::Bytes encode_as(MessageType type, const Payload& payload) {
  return transport::encode_message(envelope_type(type), payload);
}

/// Throws transport::MessageError "expected SCORE, got DATA" unless `message` is of
/// Payload's type.
template <class Payload>
void expect_type(const transport::MessageView& message) {
  if (message.type != MessageSpec<Payload>::type) {
    throw transport::MessageError(std::string("expected ") + MessageSpec<Payload>::name + ", got " +
                                  transport::describe(message.type, &type_name) + " message");
  }
}

/// Decodes `message` into `out` (vectors keep their capacity, transport::decode_payload_into).
/// Throws transport::MessageError if the message is not of Payload's type (expect_type)
/// or its payload does not decode as one ("bad SCORE payload: ..."); `out` is then
/// unspecified.
template <class Payload>
void decode_into(const transport::MessageView& message, Payload& out) {
  expect_type<Payload>(message);
  transport::decode_payload_into(message, out, &type_name);
}

/// Decodes `message` as a Payload. Throws as decode_into.
template <class Payload>
Payload decode(const transport::MessageView& message) {
  Payload out{};
  decode_into(message, out);
  return out;
}
template <class Payload>
Payload decode(const transport::Message& message) {
  return decode<Payload>(transport::view_of(message));
}

/// Sends `payload` to global rank `dst` on its tag (blocking, transport::Transport::send).
/// Throws what the transport throws. ERROR has no fixed tag: send encode_error() on
/// error_tag() instead (replies.h).
template <class Payload>
void send(transport::Transport& transport, int dst, const Payload& payload) {
  static_assert(MessageSpec<Payload>::tag >= 0, "ERROR goes on error_tag(): use encode_error");
  transport.send(encode(payload), dst, MessageSpec<Payload>::tag);
}

/// As send, non-blocking (transport::Transport::isend): the handle owns the bytes.
template <class Payload>
transport::SendHandle isend(transport::Transport& transport, int dst, const Payload& payload) {
  static_assert(MessageSpec<Payload>::tag >= 0, "ERROR goes on error_tag(): use encode_error");
  return transport.isend(encode(payload), dst, MessageSpec<Payload>::tag);
}

}  // namespace gfn::protocol
