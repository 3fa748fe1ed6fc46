#pragma once
// gfn-bench-manager's synthetic trainer: sends DATA to the manager as fast as the
// manager answers, keeping `window` submissions in flight (so the manager always has the
// next one queued and its receive phase measures receiving, not waiting), and checks
// every SCORE reply; then TRAINER_EXIT with its counts.
// Blocking; one thread per transport.

#include <cstdint>
#include <vector>

#include "roles/protocol/messages.h"
#include "transport/transport.h"

namespace gfn::mbench {

struct FeedResult {
  std::int64_t submissions = 0, items = 0;
  double measured_s = 0;  ///< wall time of the last `measured` submissions (send to reply)
};

/// Sends `warmup + measured` submissions, cycling through `pool` (iteration numbers
/// count up), to `manager` on the DATA tag. Throws std::runtime_error naming the
/// submission if a reply is not a SCORE, echoes another iteration, or reports a buffer
/// larger than `capacity`; transport errors propagate.
FeedResult feed_manager(transport::Transport& transport, int manager,
                        const std::vector<protocol::Submission>& pool, int warmup, int measured,
                        int window, std::int64_t capacity);

}  // namespace gfn::mbench
