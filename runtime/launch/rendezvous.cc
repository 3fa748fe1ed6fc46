#include "runtime/launch/rendezvous.h"

namespace gfn::launch {

transport::Rendezvous transport_rendezvous(const LaunchEnv& env) {
  transport::Rendezvous r;
  if (env.launcher != "none") {
    r.rank = env.rank;
    r.world_size = env.world_size;
    r.rank_origin = env.rank_origin;
    r.world_size_origin = env.world_size_origin;
  }
  if (!env.master_addr.empty()) {
    r.master_addr = env.master_addr;
    r.master_addr_origin = env.master_addr_origin;
  }
  if (env.master_port != 0) {
    r.master_port = env.master_port;
    r.master_port_origin = env.master_port_origin;
  }
  r.mpi_launcher = env.mpi_launcher;
  return r;
}

}  // namespace gfn::launch
