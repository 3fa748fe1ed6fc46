#pragma once
// gfn-launch: a local launcher in the spirit of torchrun's standalone mode
// (torch.distributed.run --standalone). Starts N local copies of a command, each
// with the torchrun variables RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE,
// MASTER_ADDR and MASTER_PORT, which runtime/launch (detect_launch_env) and the
// torch transport backend read.

#include <string>
#include <vector>

namespace gfn::launch_tool {

/// One simulated host of --hosts: its name and how many ranks run "on" it.
struct SimulatedHost {
  std::string name;
  int ranks = 0;
};

struct LaunchOptions {
  int nproc = 1;  ///< number of local processes (>= 1)
  /// --hosts: simulated hosts in rank order (empty: one host). Their ranks add up to nproc.
  std::vector<SimulatedHost> hosts;
  int master_port = 0;                    ///< MASTER_PORT; 0 = pick a free port
  std::string master_addr = "127.0.0.1";  ///< MASTER_ADDR
  std::vector<std::string> command;       ///< program (PATH is searched) and arguments
  double kill_grace_s = 5.0;  ///< seconds between SIGTERM and SIGKILL when stopping children
  int max_restarts = 0;       ///< whole-world restarts after a failure (torchrun --max-restarts)
  /// Wait before a restart: backoff·2^(j-1), at most 60 s, j counting the consecutive failed
  /// attempts that ran less than `restart_reset_s` (a longer one starts the count again).
  double restart_backoff_s = 1.0;
  double restart_reset_s = 60.0;
  /// GFN_JOB_TOKEN of every child (docs/security.md); "" = a random one per launch.
  std::string job_token;
};

/// 32 hex digits from std::random_device (/dev/urandom): a job token.
std::string random_job_token();

/// What ended one attempt: "rank 2 (pid 1234) failed with exit code 137 (killed by signal 9:
/// SIGKILL)". Pure.
std::string describe_failure(int rank, long pid, int wait_status);

/// Parses --hosts "a:8,b:8" (name:ranks, comma-separated; names non-empty, distinct, without
/// ':' or ','; ranks >= 1). Throws std::invalid_argument naming the bad item.
std::vector<SimulatedHost> parse_hosts(const std::string& spec);

/// A free TCP port on 127.0.0.1 (bound to port 0, then released). Throws
/// std::runtime_error if no socket can be bound.
int free_port();

/// Runs the children (Boost.Process, one Boost.Asio event loop) and returns the
/// launcher's exit code:
/// - 0 when every child of the last attempt exits 0;
/// - otherwise the code of the FIRST child to fail (a child killed by signal S
///   counts as 128+S); the other children then get SIGTERM, and SIGKILL after
///   `kill_grace_s` seconds;
/// - 127 when the command cannot be started (message on stderr).
/// With `hosts`, rank i runs on simulated host h (ranks in host order): its LOCAL_RANK and
/// LOCAL_WORLD_SIZE are within h, GROUP_RANK = h and GROUP_WORLD_SIZE = the number of hosts
/// (as torchrun sets them on several nodes), and GFN_HOSTNAME = h's name, which the role
/// planner's hostname placement reads instead of the real hostname (runtime/launch/hostname.h).
/// Every line a child writes to stdout (stderr) is written to our stdout (stderr)
/// prefixed with "[rank i] ", whole lines only (a final unterminated line too).
/// Each child runs in its own process group; signals go to the whole group.
/// SIGINT / SIGTERM received by the launcher are forwarded to every running child.
/// Restarts (docs/checkpoints.md "Automatic restart"): after a failed attempt, and unless the
/// launcher itself was interrupted, the whole world is started again, at most
/// `max_restarts` times, after the backoff, on a new free port (unless `master_port` is
/// given). Every child of attempt k gets TORCHELASTIC_RESTART_COUNT=k and
/// TORCHELASTIC_MAX_RESTARTS (as torchrun sets them) and, for k >= 1, GFN_RESTART_REASON:
/// what ended attempt k-1 (describe_failure). gfn-train continues from its newest valid
/// checkpoint when the count is above 0. Every child gets GFN_JOB_TOKEN (the same for every
/// attempt), which the torch backend checks at its rendezvous.
/// Blocks until all children of the last attempt have exited and their output is drained.
int run(const LaunchOptions& options);

}  // namespace gfn::launch_tool
