#pragma once
// Where this process sits in the job, read from the launcher's environment
// variables before any communication (docs/launchers.md "Launch values"). Mirrors
// helios.core.distributed (is_using_torchrun, get_local_rank, get_global_rank,
// get_local_world_size, get_world_size) and torchgfn's `_first_env`.

#include <functional>
#include <initializer_list>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace gfn::launch {

/// Inconsistent launcher variables: a rank without a world size (or the reverse), a
/// non-integer value, rank >= world size, ... The message names the variables and
/// their values.
class LaunchError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Rank, local rank and sizes of this process. A process started without any
/// launcher is a world of one (launcher "none").
struct LaunchEnv {
  int rank = 0;              ///< global rank, 0 .. world_size-1
  int local_rank = 0;        ///< rank among the processes of this node
  int world_size = 1;        ///< number of processes in the job
  int local_world_size = 1;  ///< number of processes on this node
  std::string master_addr;   ///< MASTER_ADDR ("" if unset): TCPStore host of the torch backend
  int master_port = 0;       ///< MASTER_PORT (0 if unset)
  /// Where rank and world size came from: "explicit" (config), "torchrun", "openmpi",
  /// "pmi", "mvapich", "slurm", "none".
  std::string launcher = "none";
  /// True when an MPI launcher started this process (OMPI_COMM_WORLD_SIZE, PMI_SIZE,
  /// PMIX_RANK or MV2_COMM_WORLD_SIZE is set), whatever `launcher` says: the torch
  /// backend may then bootstrap its world over MPI.
  bool mpi_launcher = false;
  /// torchrun's node values, read whatever the source (as MASTER_ADDR): GROUP_RANK (index
  /// of this node) and GROUP_WORLD_SIZE (number of nodes); nullopt when unset.
  std::optional<int> node_rank, num_nodes;
  /// xffl's launcher: XFFL_FEDERATED_LOCAL_WORLD_SIZE, the number of nodes of every
  /// federation (comma-separated integers); empty when unset.
  std::vector<int> federated_nodes;
  /// Where each value came from, for error messages: "RANK=3", "launch.rank=3",
  /// "MASTER_ADDR", "launch.master_port"; "" when the value is unset (no launcher, no
  /// address, port 0).
  std::string rank_origin, world_size_origin, master_addr_origin, master_port_origin;
  /// Restarts of the job before this attempt (docs/checkpoints.md "Automatic restart"):
  /// launch.restart_count, else TORCHELASTIC_RESTART_COUNT (torchrun, gfn-launch), else
  /// SLURM_RESTART_COUNT (a requeued Slurm job), else 0. Above 0, gfn-train continues from
  /// the newest valid checkpoint of its output.dir.
  int restart_count = 0;
  /// What ended the previous attempt: launch.restart_reason, else GFN_RESTART_REASON
  /// (gfn-launch); "" when unknown.
  std::string restart_reason;
  /// "launch.restart_count", "TORCHELASTIC_RESTART_COUNT", "SLURM_RESTART_COUNT" or "".
  std::string restart_count_origin;
  /// The job's token (docs/security.md): launch.job_token, else GFN_JOB_TOKEN (gfn-launch
  /// sets a random one); "" when neither is set.
  std::string job_token;
};

/// Explicit launch values (the YAML `launch:` section, runtime/launch/explicit_launch.h,
/// or an API caller). Each set field wins over the launcher's variables; error messages
/// name them by their config keys (launch.rank, launch.world_size, ...).
struct ExplicitLaunch {
  std::optional<int> rank;                    ///< launch.rank: 0 .. world_size-1
  std::optional<int> world_size;              ///< launch.world_size: >= 1 (with rank)
  std::optional<int> local_rank;              ///< launch.local_rank: 0 .. local_world_size-1
  std::optional<int> local_world_size;        ///< launch.local_world_size: 1 .. world_size
  std::optional<std::string> master_addr;     ///< launch.master_addr: non-empty host
  std::optional<int> master_port;             ///< launch.master_port: 1..65535
  std::optional<int> restart_count;           ///< launch.restart_count: >= 0
  std::optional<std::string> restart_reason;  ///< launch.restart_reason
  std::optional<std::string> job_token;       ///< launch.job_token
  /// True when no field is set.
  bool empty() const {
    return !rank && !world_size && !local_rank && !local_world_size && !master_addr &&
           !master_port && !restart_count && !restart_reason && !job_token;
  }
};

/// Looks up an environment variable; returns nullopt when it is not set.
using EnvLookup = std::function<std::optional<std::string>(const std::string&)>;

/// The process environment (std::getenv).
std::optional<std::string> real_getenv(const std::string& name);

/// The value of the first of `names` that is set to a non-empty value, or nullopt
/// (torchgfn `_first_env`). Empty values count as unset.
std::optional<std::string> first_env(std::initializer_list<const char*> names,
                                     const EnvLookup& getenv = real_getenv);

/// True when every variable torchrun exports is set: RANK, LOCAL_RANK, WORLD_SIZE,
/// LOCAL_WORLD_SIZE, GROUP_RANK, ROLE_RANK, ROLE_WORLD_SIZE, MASTER_ADDR, MASTER_PORT,
/// TORCHELASTIC_RESTART_COUNT, TORCHELASTIC_MAX_RESTARTS, TORCHELASTIC_RUN_ID (the list in
/// torchrun's docs; helios is_using_torchrun). Set-but-empty counts as set. Thread-safe.
bool torchrun_environment(const EnvLookup& getenv = real_getenv);

/// Reads the launch environment. Sources, first found wins (a source is found when
/// its rank or its world-size variable is set):
///   1. torchrun: RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE
///   2. Open MPI: OMPI_COMM_WORLD_RANK, _SIZE, _LOCAL_RANK, _LOCAL_SIZE
///   3. PMI / PMIx (MPICH Hydra, Intel MPI, Cray): PMI_RANK (or PMIX_RANK), PMI_SIZE,
///      local from MPI_LOCALRANKID / MPI_LOCALNRANKS or PMI_LOCAL_RANK / PMI_LOCAL_SIZE.
///      PMIX_RANK alone does not make a source (PMIx publishes no world size).
///   4. MVAPICH: MV2_COMM_WORLD_RANK, _SIZE, _LOCAL_RANK, _LOCAL_SIZE
///   5. Slurm: SLURM_PROCID, SLURM_NTASKS (or SLURM_NPROCS), SLURM_LOCALID, local size
///      from SLURM_NTASKS_PER_NODE, else SLURM_TASKS_PER_NODE (e.g. "4(x2),3") with
///      SLURM_NODEID.
/// When a source gives no local rank / local size, the job is assumed to be on one
/// node (local = global). MASTER_ADDR / MASTER_PORT, GROUP_RANK / GROUP_WORLD_SIZE and
/// XFFL_FEDERATED_LOCAL_WORLD_SIZE are read whatever the source, and so are the restart
/// values: TORCHELASTIC_RESTART_COUNT, else SLURM_RESTART_COUNT; GFN_RESTART_REASON; and the
/// job token GFN_JOB_TOKEN.
/// None found: a world of one. MASTER_PORT=0 counts as unset. Throws LaunchError (naming the
/// variables) when a source gives only one of rank / world size, a value is not an integer, rank >=
/// world size, local rank >= local world size, local world size > world size, MASTER_PORT is
/// outside 0..65535, a restart count is not a non-negative integer, or
/// XFFL_FEDERATED_LOCAL_WORLD_SIZE is not a list of integers.
LaunchEnv detect_launch_env(const EnvLookup& getenv = real_getenv);

/// As above, with explicit values first (docs/launchers.md "Launch values": explicit config
/// values, then torchrun, Open MPI, PMI/PMIx, MVAPICH, Slurm):
/// - explicit rank and world size (both or neither) replace the launcher's; the
///   launcher's variables are then not read for rank, world size, local rank or local
///   world size (launcher "explicit"; local values default to the global ones, one node);
/// - explicit local rank / local world size replace the launcher's local values;
/// - explicit master address / port replace MASTER_ADDR / MASTER_PORT;
/// - explicit restart count / reason replace the restart variables, an explicit job token
///   GFN_JOB_TOKEN.
/// Throws LaunchError naming the config keys (and the variables the other values came
/// from) when only one of launch.rank / launch.world_size is set, launch.rank >=
/// launch.world_size, a value is out of range (negative rank, world size < 1, port
/// outside 1..65535, empty address, negative restart count), local rank >= local world size or
/// local world size > world size; and as above for the environment's values it uses.
LaunchEnv detect_launch_env(const ExplicitLaunch& explicit_values,
                            const EnvLookup& getenv = real_getenv);

}  // namespace gfn::launch
