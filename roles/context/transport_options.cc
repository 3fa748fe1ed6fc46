#include "roles/context/transport_options.h"

#include "runtime/config/fields.h"

namespace gfn::roles {

const config::Fields<TransportConfig>& transport_fields() {
  using T = TransportConfig;
  static const auto fields =
      config::Fields<T>()
          .add("backend", &T::backend,
               "How ranks talk: mpi (Open MPI) or torch (LibTorch c10d Gloo, torchgfn's "
               "length-prefixed protocol); every rank uses the same.",
               config::AsInvalid{})
          .add("max_message_bytes", &T::max_message_bytes,
               "Largest payload a receiver accepts; larger messages are refused before any "
               "allocation.",
               config::positive(), {"bytes"})
          .add("timeout_s", &T::timeout_s,
               "Bound of every blocking wait on a peer and of every group collective; the "
               "error names the peer.",
               config::positive(), {"s"})
          .add("rendezvous_timeout_s", &T::rendezvous_timeout_s,
               "torch backend: bound of joining the world (connecting to rank 0's TCPStore "
               "and waiting there for every rank); ranks may start this far apart.",
               config::positive(), {"s"})
          .add("interface", &T::interface,
               "Network interface the torch backend's Gloo connections bind to, e.g. eth0 "
               "(\"\": the master address's, else the host's default); mpi: Open MPI's "
               "btl_tcp_if_include unless set already (docs/security.md).");
  return fields;
}

}  // namespace gfn::roles
