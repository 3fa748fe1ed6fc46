#include "runtime/compat/object_bytes.h"

#include <cstdint>

namespace gfn::compat {

void broadcast_bytes(transport::Group& group, transport::Bytes& bytes, int root,
                     const char* caller) {
  if (!group.is_member()) {
    throw transport::TransportError(std::string(caller) +
                                    ": this rank is not a member of the group");
  }
  if (root < 0 || root >= group.size()) {
    throw transport::TransportError(std::string(caller) + ": root " + std::to_string(root) +
                                    " is not a group rank (0.." + std::to_string(group.size() - 1) +
                                    ")");
  }
  std::int64_t length = static_cast<std::int64_t>(bytes.size());
  group.broadcast(&length, 1, transport::DType::kInt64, root);
  if (group.rank() != root) bytes.assign(static_cast<std::size_t>(length), 0);
  if (length > 0) {
    group.broadcast(bytes.data(), bytes.size(), transport::DType::kUInt8, root);
  }
}

}  // namespace gfn::compat
