#include "roles/protocol/codec.h"

namespace gfn::protocol {

const char* type_name(transport::EnvelopeType type) noexcept {
  const MessageInfo* m = find(static_cast<std::uint16_t>(type));
  return m ? m->name : nullptr;
}

transport::MessageView decode_message_view(const transport::Bytes& bytes, std::size_t cap) {
  return transport::decode_envelope_view(bytes, cap, &type_name);
}

transport::Message decode_message(const transport::Bytes& bytes, std::size_t cap) {
  return transport::decode_envelope(bytes, cap, &type_name);
}

}  // namespace gfn::protocol
