#pragma once
// Internal: builds the torch transport from an already-created TCPStore (shared by
// make_gloo_transport and the MPI bootstrap).

#include <chrono>
#include <memory>
#include <string>

#include "transport/gloo/gloo_util.h"

namespace gfn::transport::gloo_detail {

/// Validates `options`; throws TransportError naming the bad field.
void check_options(const TransportOptions& options);

/// TransportOptions::rendezvous_timeout in the store's unit: the timeout the TCPStore is
/// created with, until make_transport_on_store has formed the world.
std::chrono::milliseconds rendezvous_millis(const TransportOptions& options);

/// " (waited N s for the other ranks: transport.rendezvous_timeout_s)" when `what` (a c10d or Gloo
/// error) is a timeout, else "": appended to rendezvous errors so the key to raise is named.
std::string rendezvous_hint(const TransportOptions& options, const std::string& what);

/// The Gloo device: on `interface` when given (TransportError naming transport.interface when
/// it cannot be used), else 127.0.0.1 for a master at "127.0.0.1" / "localhost", else this
/// host's default interface.
std::shared_ptr<::gloo::transport::Device> device_for(const std::string& master_addr,
                                                      const std::string& interface);

/// The job-token check of the rendezvous (TransportOptions::job_token, docs/security.md):
/// rank 0 publishes `token` on `store`; every other rank reads it (blocking, bounded by the
/// store's timeout) and throws TransportError when it differs from its own `token`, before it
/// registers anything on the store.
void check_job_token(c10d::Store& store, int rank, const std::string& token,
                     const std::string& master_addr);

/// Checks the job token, then creates the process groups of WORLD on `store` and returns the
/// transport. The store's timeout is options.rendezvous_timeout until the point-to-point group
/// is built, options.timeout afterwards.
/// `finalizer` (may be null) is destroyed after the process groups and the store.
/// Collective over all ranks. Throws TransportError.
std::unique_ptr<Transport> make_transport_on_store(const TransportOptions& options, int rank,
                                                   int world_size,
                                                   c10::intrusive_ptr<c10d::Store> store,
                                                   const std::string& master_addr,
                                                   std::shared_ptr<void> finalizer);

}  // namespace gfn::transport::gloo_detail
