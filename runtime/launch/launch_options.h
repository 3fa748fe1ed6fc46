#pragma once
// YAML `launch:`: explicit launch values (docs/configuration.md). Each set field takes precedence
// over the launcher's environment variables (launch_env.h: torchrun, Open MPI, PMI, MVAPICH,
// Slurm); unset fields (the defaults: -1,
// "" and 0) fall back to them. rank and world_size are given together or not at all.
// Plain value type, no dependency beyond the standard library.

#include <string>

namespace gfn::config {
template <class S>
class Fields;
}

namespace gfn::launch {

struct LaunchOptions {
  int rank = -1;              ///< global rank 0 .. world_size-1, or -1 (unset)
  int world_size = -1;        ///< number of processes >= 1, or -1 (unset)
  int local_rank = -1;        ///< rank on this node 0 .. local_world_size-1, or -1 (unset)
  int local_world_size = -1;  ///< processes on this node 1 .. world_size, or -1 (unset)
  std::string master_addr;    ///< TCPStore host of the torch backend, or "" (unset)
  int master_port = 0;        ///< TCPStore port of the torch backend 1..65535, or 0 (unset)
  /// How many times the job was restarted before this attempt (>= 0), or -1 (unset). Set by
  /// a restart wrapper that cannot export TORCHELASTIC_RESTART_COUNT (tools/mpirun-restart.sh).
  int restart_count = -1;
  /// What ended the previous attempt (summary.json "restarts"), or "" (unset).
  std::string restart_reason;
  /// The job's token, checked at the torch backend's rendezvous (docs/security.md), or ""
  /// (unset: GFN_JOB_TOKEN, which gfn-launch sets to a random value).
  std::string job_token;
};

/// The `launch:` keys (launch_options.cc).
const config::Fields<LaunchOptions>& launch_fields();

}  // namespace gfn::launch
