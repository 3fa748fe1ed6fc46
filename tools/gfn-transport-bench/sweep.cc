#include "tools/gfn-transport-bench/sweep.h"

#include <mpi.h>

#include <algorithm>

#include "tools/common/harness/timing.h"
#include "tools/gfn-transport-bench/pattern.h"

namespace gfn::tbench {

namespace {
constexpr int kChunk = 10;  // timed round trips of one method before the next method's turn
}  // namespace

Buffers::Buffers(std::size_t bytes) : out(bytes, 1), in(bytes, 2) {}

std::vector<Measurement> measure(const std::vector<MethodSlot>& methods, std::size_t ping_bytes,
                                 std::size_t pong_bytes, const LoopOptions& options,
                                 Buffers& buffers) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const bool initiator = rank == kInitiator;
  const std::size_t out_bytes = initiator ? ping_bytes : pong_bytes;
  const std::size_t in_bytes = initiator ? pong_bytes : ping_bytes;
  const Direction out_dir = initiator ? Direction::kPing : Direction::kPong;
  const Direction in_dir = initiator ? Direction::kPong : Direction::kPing;

  const std::size_t n = methods.size();
  std::vector<std::vector<double>> seconds(n);
  std::vector<std::int64_t> wrong(n, 0);
  std::vector<std::int64_t> checked(n, 0);
  std::vector<std::int64_t> seq(n, -options.warmup);  // pattern iteration of each method
  for (auto& s : seconds) s.reserve(static_cast<std::size_t>(options.iters));

  // One round trip of method j; timed into seconds[j] when `timed`.
  const auto round_trip = [&](std::size_t j, bool timed) {
    PingPongMethod& method = *methods[j].method;
    const int id = methods[j].id;
    const std::int64_t it = seq[j]++;
    fill_pattern(buffers.out.data(), out_bytes, pattern_seed(out_bytes, it, out_dir, id));
    View in;
    if (initiator) {
      const harness::Stopwatch watch;
      in = method.initiate(buffers.out.data(), out_bytes, buffers.in.data(), in_bytes);
      const double elapsed = watch.seconds();
      if (timed) seconds[j].push_back(elapsed);
    } else {
      in = method.respond(buffers.out.data(), out_bytes, buffers.in.data(), in_bytes);
    }
    if (options.check) {
      ++checked[j];
      const bool ok = in.size == in_bytes &&
                      check_pattern(in.data, in.size, pattern_seed(in_bytes, it, in_dir, id));
      if (!ok) ++wrong[j];
    }
  };

  MPI_Barrier(MPI_COMM_WORLD);
  for (std::size_t j = 0; j < n; ++j) {
    for (int w = 0; w < options.warmup; ++w) round_trip(j, false);
  }
  for (int done = 0; done < options.iters; done += kChunk) {
    const int count = std::min(kChunk, options.iters - done);
    for (std::size_t j = 0; j < n; ++j) {
      if (n > 1) round_trip(j, false);  // settles the previous method's threads (untimed)
      for (int k = 0; k < count; ++k) round_trip(j, true);
    }
  }
  std::vector<Measurement> out(n);
  std::vector<std::int64_t> wrong_sum(n, 0);
  std::vector<std::int64_t> checked_sum(n, 0);
  MPI_Allreduce(wrong.data(), wrong_sum.data(), static_cast<int>(n), MPI_INT64_T, MPI_SUM,
                MPI_COMM_WORLD);
  MPI_Allreduce(checked.data(), checked_sum.data(), static_cast<int>(n), MPI_INT64_T, MPI_SUM,
                MPI_COMM_WORLD);
  for (std::size_t j = 0; j < n; ++j) {
    out[j].ping_bytes = ping_bytes;
    out[j].pong_bytes = pong_bytes;
    out[j].wrong = wrong_sum[j];
    out[j].checked = checked_sum[j];
    if (initiator) out[j].rtt = harness::summarize(std::move(seconds[j])).scaled(1e6);
  }
  return out;
}

Measurement measure(PingPongMethod& method, int method_id, std::size_t ping_bytes,
                    std::size_t pong_bytes, const LoopOptions& options, Buffers& buffers) {
  return measure({MethodSlot{method_id, &method}}, ping_bytes, pong_bytes, options, buffers)
      .front();
}

}  // namespace gfn::tbench
