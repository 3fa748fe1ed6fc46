#pragma once
// gfn-bench-manager --role coordinator: how fast the coordinator takes its managers' reports.
// Rank 0 runs the real coordinator (roles::run_coordinator); ranks 1..K are synthetic
// buffer managers, each sending `reports` reports as fast as the transport takes them:
// MODE_REPORTs of `modes_per_report` modes never reported before (distinct per sender)
// alternating with BASELINE_REPORTs whose baseline rises by more than the tolerance each
// time (so that every one moves the global baseline and BASELINE_SYNCs go out), then
// MANAGER_EXIT; each drains its BASELINE_SYNCs up to MANAGER_EXIT_ACK. Rank 0 checks that
// every report and mode arrived. Blocking; collective over the transport's world.

#include <cstdint>

#include "transport/transport.h"

namespace gfn::mbench {

struct CoordinatorRow {
  int senders = 0;           ///< synthetic managers
  std::int64_t reports = 0;  ///< MODE_REPORTs + BASELINE_REPORTs received
  std::int64_t modes = 0;    ///< distinct modes registered
  std::int64_t syncs = 0;    ///< BASELINE_SYNCs sent
  double wall_s = 0;         ///< the coordinator's run, first report to last MANAGER_EXIT_ACK
  double reports_per_s = 0;  ///< reports / wall_s
};

/// Runs one round on every rank; the figures on rank 0 (zeros elsewhere). Throws
/// std::runtime_error when the coordinator did not receive every report and mode.
CoordinatorRow bench_coordinator(transport::Transport& transport, int reports,
                                 int modes_per_report);

}  // namespace gfn::mbench
