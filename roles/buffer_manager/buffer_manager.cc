// The public entry point of the replay-buffer manager role and its shutdown table; the
// manager itself is roles/buffer_manager/manager.h.
#include "roles/buffer_manager/buffer_manager.h"

#include <fmt/format.h>

#include "roles/buffer_manager/manager.h"

namespace gfn::roles {

std::string BufferManagerResult::stats_table() const {
  std::string out =
      fmt::format("{:>6} {:>8} {:>6} {:>8} {:>10} {:>10} {:>6} {:>8} {:>9} {:>9} {:>9} {:>9}\n",
                  "sender", "requests", "subs", "items", "bytes_in", "bytes_out", "errors",
                  "samples", "recv_s", "add_s", "score_s", "send_s");
  for (const auto& [rank, s] : per_sender) {
    out += fmt::format(
        "{:>6} {:>8} {:>6} {:>8} {:>10} {:>10} {:>6} {:>8} {:>9.4f} {:>9.4f} {:>9.4f} {:>9.4f}\n",
        rank, s.requests, s.submissions, s.items, s.bytes_in, s.bytes_out, s.errors, s.samples,
        s.recv_s, s.add_s, s.score_s, s.send_s);
  }
  return out;
}

BufferManagerResult run_buffer_manager(transport::Transport& transport,
                                       const std::vector<int>& assigned_trainers,
                                       const BufferManagerOptions& options,
                                       const ModePredicate& is_mode, timing::TimingTable* timing) {
  return BufferManager(transport, assigned_trainers, options, is_mode, timing).run();
}

}  // namespace gfn::roles
