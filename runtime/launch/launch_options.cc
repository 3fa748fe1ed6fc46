#include "runtime/launch/launch_options.h"

#include "runtime/config/fields.h"

namespace gfn::launch {

const config::Fields<LaunchOptions>& launch_fields() {
  using config::unset_or_at_least;
  using L = LaunchOptions;
  // Launch values say where a process runs, not what it computes: a resumed run may change
  // every one of them (the layout check still refuses another world).
  const config::FieldTraits resumable{"", true};
  static const auto fields =
      config::Fields<L>()
          .add("rank", &L::rank, "This process's global rank (given with launch.world_size).",
               unset_or_at_least(0), resumable)
          .add("world_size", &L::world_size,
               "Number of processes in the job (given with launch.rank).", unset_or_at_least(1),
               resumable)
          .add("local_rank", &L::local_rank, "This process's rank among those of its node.",
               unset_or_at_least(0), resumable)
          .add("local_world_size", &L::local_world_size, "Number of processes on this node.",
               unset_or_at_least(1), resumable)
          .add("master_addr", &L::master_addr,
               "TCPStore host of the torch backend (\"\": MASTER_ADDR, or a bootstrap over MPI).",
               config::NoRule{}, resumable)
          .add("master_port", &L::master_port,
               "TCPStore port of the torch backend (0: MASTER_PORT, or a bootstrap over MPI).",
               config::unset_or_port(), resumable)
          .add("restart_count", &L::restart_count,
               "Restarts of the job before this attempt (-1: TORCHELASTIC_RESTART_COUNT, else "
               "SLURM_RESTART_COUNT, else 0). Above 0, gfn-train continues from the newest valid "
               "checkpoint of output.dir (docs/checkpoints.md \"Automatic restart\").",
               unset_or_at_least(0), resumable)
          .add("restart_reason", &L::restart_reason,
               "What ended the previous attempt, for summary.json (\"\": GFN_RESTART_REASON, as "
               "gfn-launch sets it).",
               config::NoRule{}, resumable)
          .add("job_token", &L::job_token,
               "The job's token: the torch backend's rendezvous refuses a rank of another job "
               "(\"\": GFN_JOB_TOKEN, random under gfn-launch; docs/security.md).",
               config::NoRule{}, resumable);
  return fields;
}

}  // namespace gfn::launch
