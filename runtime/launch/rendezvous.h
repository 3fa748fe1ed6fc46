#pragma once
// The transport's rendezvous (transport/factory.h Rendezvous) from the resolved launch
// values (runtime/launch/launch_env.h LaunchEnv): the one place where the launcher's
// variables reach the transport, which reads none itself. Pure, thread-safe, no errors.

#include "runtime/launch/launch_env.h"
#include "transport/factory.h"

namespace gfn::launch {

/// Rank and world size when a launcher (or explicit values) gave them (launcher other
/// than "none"), master address / port when set (port 0 is unset), whether an MPI
/// launcher started the process, and each value's origin for the transport's messages.
transport::Rendezvous transport_rendezvous(const LaunchEnv& env);

}  // namespace gfn::launch
