#include "transport/transport.h"

#include <algorithm>
#include <utility>

namespace gfn::transport {

RecvInfo Transport::recv_into(int src, int tag, Seconds timeout, Bytes& buffer) {
  Received got = recv(src, tag, timeout);
  const std::size_t n = got.bytes.size();
  if (buffer.capacity() >= n) {
    buffer.resize(n);  // within capacity: no allocation, the data pointer stays
    std::copy(got.bytes.begin(), got.bytes.end(), buffer.begin());
  } else {
    buffer = std::move(got.bytes);
  }
  return RecvInfo{got.src, n};
}

}  // namespace gfn::transport
