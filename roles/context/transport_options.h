#pragma once
// YAML `transport:` (docs/configuration.md): the backend every rank uses and the bounds of
// its messages and waits; DistributedContext (distributed_context.h) creates the transport
// from it, and every role bounds its waits for peers by timeout_s. Plain value type.

#include <cstddef>
#include <string>

#include "transport/backend.h"

namespace gfn::config {
template <class S>
class Fields;
}

namespace gfn::roles {

struct TransportConfig {
  transport::Backend backend = transport::Backend::kMpi;
  std::size_t max_message_bytes = std::size_t{256} << 20;  ///< bytes
  double timeout_s = 300.0;             ///< seconds; every blocking wait on a peer
  double rendezvous_timeout_s = 300.0;  ///< seconds; joining the world (torch backend)
  std::string interface;  ///< network interface to bind ("" = default; docs/security.md)
};

/// The `transport:` keys (transport_options.cc).
const config::Fields<TransportConfig>& transport_fields();

}  // namespace gfn::roles
