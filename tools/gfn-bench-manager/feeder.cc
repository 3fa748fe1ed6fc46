#include "tools/gfn-bench-manager/feeder.h"

#include <fmt/format.h>

#include <chrono>
#include <deque>
#include <stdexcept>

#include "roles/protocol/codec.h"

namespace gfn::mbench {
namespace {

void check_score(const transport::Bytes& bytes, std::int64_t expected, std::int64_t capacity,
                 std::size_t cap_bytes) {
  const auto m = protocol::decode_message_view(bytes, cap_bytes);
  if (m.type != protocol::MessageType::kScore) {
    throw std::runtime_error(fmt::format("submission {}: the manager replied {}, not SCORE",
                                         expected, protocol::name(m.type)));
  }
  const auto score = protocol::decode<protocol::Score>(m);
  if (score.iteration != expected || score.buffer_size > capacity || score.buffer_size < 1) {
    throw std::runtime_error(
        fmt::format("submission {}: SCORE for iteration {} with buffer size {} (capacity {})",
                    expected, score.iteration, score.buffer_size, capacity));
  }
}

}  // namespace

FeedResult feed_manager(transport::Transport& transport, int manager,
                        const std::vector<protocol::Submission>& pool, int warmup, int measured,
                        int window, std::int64_t capacity) {
  using Clock = std::chrono::steady_clock;
  const int total = warmup + measured;
  const auto cap_bytes = transport.options().max_message_bytes;
  std::deque<std::pair<std::int64_t, transport::SendHandle>> in_flight;
  FeedResult r;
  Clock::time_point t_measured = Clock::now();
  auto take_reply = [&] {
    const auto in = transport.recv(manager, protocol::MessageSpec<protocol::Score>::tag);
    check_score(in.bytes, in_flight.front().first, capacity, cap_bytes);
    in_flight.front().second.wait();
    in_flight.pop_front();
  };
  for (int k = 0; k < total; ++k) {
    if (k == warmup) {
      while (!in_flight.empty()) take_reply();
      t_measured = Clock::now();
    }
    protocol::Submission s = pool[static_cast<std::size_t>(k) % pool.size()];
    s.iteration = k;
    r.items += s.size();
    ++r.submissions;
    in_flight.emplace_back(k, protocol::isend(transport, manager, s));
    if (static_cast<int>(in_flight.size()) >= window) take_reply();
  }
  while (!in_flight.empty()) take_reply();
  r.measured_s = std::chrono::duration<double>(Clock::now() - t_measured).count();
  protocol::send(transport, manager, protocol::TrainerExit{r.submissions, r.items});
  return r;
}

}  // namespace gfn::mbench
