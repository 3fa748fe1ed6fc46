#include "runtime/launch/launch_options.h"

#include "runtime/config/fields.h"

namespace gfn::launch {

const config::Fields<LaunchOptions>& launch_fields() {
  using config::unset_or_at_least;
  using L = LaunchOptions;
  static const auto fields =
      config::Fields<L>()
          .add("rank", &L::rank, "This process's global rank (given with launch.world_size).",
               unset_or_at_least(0))
          .add("world_size", &L::world_size,
               "Number of processes in the job (given with launch.rank).", unset_or_at_least(1))
          .add("local_rank", &L::local_rank, "This process's rank among those of its node.",
               unset_or_at_least(0))
          .add("local_world_size", &L::local_world_size, "Number of processes on this node.",
               unset_or_at_least(1))
          .add("master_addr", &L::master_addr,
               "TCPStore host of the torch backend (\"\": MASTER_ADDR, or a bootstrap over MPI).")
          .add("master_port", &L::master_port,
               "TCPStore port of the torch backend (0: MASTER_PORT, or a bootstrap over MPI).",
               config::unset_or_port());
  return fields;
}

}  // namespace gfn::launch
