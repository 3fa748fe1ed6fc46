#include "roles/protocol/replies.h"

#include <fmt/format.h>

#include "roles/protocol/messages.h"

namespace gfn::protocol {

transport::Message await_reply(transport::Transport& transport, int peer, int tag,
                               MessageType expected, double timeout_s, const std::string& context) {
  const char* type = name(expected);
  transport::Received in;
  try {
    in = transport.recv(peer, tag, transport::Seconds(timeout_s));
  } catch (const transport::TimeoutError& e) {
    throw transport::TimeoutError(fmt::format("{}: no {} from rank {} on tag {} within {:g} s ({})",
                                              context, type, peer, tag, timeout_s, e.what()));
  }
  transport::Message m;
  try {
    m = protocol::decode_message(in.bytes, transport.options().max_message_bytes);
  } catch (const transport::MessageError& e) {
    throw transport::MessageError(
        fmt::format("{}: malformed reply from rank {} on tag {} "
                    "(expected {}): {}",
                    context, peer, tag, type, e.what()));
  }
  if (m.type == MessageType::kError) {
    const auto err = decode<ErrorReply>(m);
    throw RemoteError(fmt::format(
        "{}: rank {} answered ERROR on tag {} instead of {}: it refused a {} message: {}", context,
        peer, tag, type, name(static_cast<MessageType>(err.refused_type)), err.what));
  }
  if (m.type != expected) {
    throw transport::MessageError(fmt::format("{}: expected {} from rank {} on tag {}, got {}",
                                              context, type, peer, tag, name(m.type)));
  }
  return m;
}

transport::Bytes encode_error(int from_rank, std::uint16_t refused_type, int tag,
                              const std::string& what) {
  ErrorReply e;
  e.from_rank = from_rank;
  e.refused_type = refused_type;
  e.tag = tag;
  e.what = what;
  return encode(e);
}

}  // namespace gfn::protocol
