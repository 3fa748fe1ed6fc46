#pragma once
// Bounded waits for protocol replies (robustness) and ERROR replies. Every
// blocking wait of a trainer or manager on a peer goes through await_reply, which ends in
// an error naming the peer, the tag and the message type it waited for. Where an ERROR
// goes is the table's rule (error_tag, message_table.h).
// Thread-safe as far as the transport is (no shared state).

#include <cstdint>
#include <string>

#include "roles/protocol/codec.h"
#include "transport/framing/message.h"
#include "transport/transport.h"

namespace gfn::protocol {

/// The peer answered with an ERROR message (protocol::ErrorReply): it refused what
/// we sent. The message names the peer, the tag and its reason.
class RemoteError : public transport::MessageError {
 public:
  using transport::MessageError::MessageError;
};

/// Receives one message from global rank `peer` on `tag` within `timeout_s` seconds
/// and checks it is of type `expected`. `context` completes the error messages
/// (e.g. "trainer rank 3, submission of iteration 7").
/// Throws transport::TimeoutError ("... no SCORE from rank 2 on tag 0 within 5 s ..."),
/// RemoteError if an ERROR arrives, transport::MessageError if the envelope is
/// malformed or of another type. Blocking.
transport::Message await_reply(transport::Transport& transport, int peer, int tag,
                               MessageType expected, double timeout_s, const std::string& context);

/// await_reply for a Reply payload on its own tag (from the table), decoded. Throws as
/// await_reply, and transport::MessageError if the payload does not decode. Blocking.
template <class Reply>
Reply await_reply(transport::Transport& transport, int peer, double timeout_s,
                  const std::string& context) {
  static_assert(MessageSpec<Reply>::tag >= 0, "ERROR is not awaited: it arrives instead");
  return decode<Reply>(await_reply(transport, peer, MessageSpec<Reply>::tag,
                                   MessageSpec<Reply>::type, timeout_s, context));
}

/// Encodes an ERROR reply from this rank about a message of `refused_type` (0 when
/// unreadable) received on `tag`. Send it on error_tag(refused_type, ...).
transport::Bytes encode_error(int from_rank, std::uint16_t refused_type, int tag,
                              const std::string& what);

}  // namespace gfn::protocol
