#include "tools/gfn-bench-manager/coordinator_bench.h"

#include <fmt/format.h>

#include <chrono>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "roles/coordinator/coordinator.h"
#include "roles/protocol/codec.h"

namespace gfn::mbench {
namespace {

constexpr int kNdim = 8;

// A synthetic manager: `reports` reports, then the exit handshake.
void feed_coordinator(transport::Transport& t, int reports, int modes_per_report) {
  const int me = t.rank();
  std::int64_t next_mode = 0;
  for (int i = 0; i < reports; ++i) {
    if (i % 2 == 0) {
      protocol::ModeReport report;
      report.ndim = kNdim;
      for (int m = 0; m < modes_per_report; ++m, ++next_mode) {
        // A state no other sender reports: (sender, counter, 0, ...).
        std::vector<std::int64_t> s(kNdim, 0);
        s[0] = me;
        s[1] = next_mode;
        report.states.insert(report.states.end(), s.begin(), s.end());
        report.trainer_ranks.push_back(me);
      }
      protocol::send(t, 0, report);
    } else {
      protocol::send(t, 0, protocol::BaselineReport{0.1f * static_cast<float>(i), 10000, "min"});
    }
  }
  protocol::send(t, 0, protocol::ManagerExit{reports, reports, next_mode});
  transport::Bytes inbox;
  for (;;) {
    t.recv_into(0, protocol::tags::kData, transport::Seconds(300), inbox);
    const auto m = protocol::decode_message_view(inbox, t.options().max_message_bytes);
    if (m.type == protocol::MessageType::kManagerExitAck) return;
    if (m.type != protocol::MessageType::kBaselineSync) {
      throw std::runtime_error(
          fmt::format("synthetic manager {}: unexpected {}", me, protocol::name(m.type)));
    }
  }
}

}  // namespace

CoordinatorRow bench_coordinator(transport::Transport& t, int reports, int modes_per_report) {
  CoordinatorRow row;
  t.world().barrier();
  if (t.rank() != 0) {
    feed_coordinator(t, reports, modes_per_report);
    t.world().barrier();
    return row;
  }
  std::vector<int> managers(t.world_size() - 1);
  std::iota(managers.begin(), managers.end(), 1);
  roles::CoordinatorOptions options;
  options.baseline_tolerance = 0.01;
  const auto t0 = std::chrono::steady_clock::now();
  const auto result = roles::run_coordinator(t, managers, options);
  row.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  t.world().barrier();
  row.senders = static_cast<int>(managers.size());
  row.reports = result.mode_reports + result.baseline_reports;
  row.modes = result.modes_found;
  row.syncs = result.baseline_syncs_sent;
  row.reports_per_s = static_cast<double>(row.reports) / row.wall_s;
  const std::int64_t want_modes =
      static_cast<std::int64_t>(row.senders) * ((reports + 1) / 2) * modes_per_report;
  if (row.reports != static_cast<std::int64_t>(row.senders) * reports || row.modes != want_modes ||
      result.rejected_messages != 0) {
    throw std::runtime_error(
        fmt::format("coordinator: {} reports and {} modes received, {} and {} sent; {} rejected",
                    row.reports, row.modes, static_cast<std::int64_t>(row.senders) * reports,
                    want_modes, result.rejected_messages));
  }
  return row;
}

}  // namespace gfn::mbench
