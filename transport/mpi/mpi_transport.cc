#include "transport/mpi/mpi_transport.h"

#include "transport/backend.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <mpi.h>
#include <sys/mman.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <set>

#include "transport/mpi/mpi_group.h"
#include "transport/mpi/mpi_pending_send.h"
#include "transport/mpi/mpi_util.h"

namespace gfn::transport {

namespace {

using mpi_detail::Backoff;
using mpi_detail::check;
using mpi_detail::kCollectiveTimeoutFactor;
using mpi_detail::MpiGroup;
using mpi_detail::MpiPendingSend;
using mpi_detail::MpiSession;
using mpi_detail::peer_name;

/// Sizes `bytes` to `n` bytes for a receive. Payloads of 4 MiB and more get fresh pages
/// from the kernel on every receive (glibc serves them with mmap); asking for transparent
/// huge pages before the vector touches them cuts the page faults 512-fold (64 MiB: one
/// receive 88 -> 41 ms on the benchmark machine, tools/gfn-transport-bench). Advice only:
/// a failed madvise changes nothing.
void allocate_payload(Bytes& bytes, std::size_t n) {
  constexpr std::size_t kHuge = std::size_t{2} << 20;
  if (n >= 2 * kHuge) {
    bytes.reserve(n);
    const auto begin = reinterpret_cast<std::uintptr_t>(bytes.data());
    const std::uintptr_t lo = (begin + kHuge - 1) & ~(kHuge - 1);
    const std::uintptr_t hi = (begin + n) & ~(kHuge - 1);
    if (hi > lo) madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_HUGEPAGE);
  }
  bytes.resize(n);
}

/// check() with the error text built only when rc is an error (hot paths).
template <class What>
void check_lazy(int rc, const What& what) {
  if (rc != MPI_SUCCESS) check(rc, what());
}

class MpiTransport final : public Transport {
 public:
  explicit MpiTransport(const TransportOptions& options) : options_(options) {
    if (options_.max_message_bytes > static_cast<std::size_t>(INT_MAX)) {
      throw TransportError(fmt::format(
          "mpi transport: max_message_bytes {} exceeds the MPI message limit of {} bytes",
          options_.max_message_bytes, INT_MAX));
    }
    if (!(options_.timeout.count() >= 0.0)) {
      throw TransportError(fmt::format("mpi transport: timeout must be >= 0 seconds, got {}",
                                       options_.timeout.count()));
    }
    session_ = std::make_shared<MpiSession>();
    check(MPI_Comm_dup(MPI_COMM_WORLD, &comm_), "MPI_Comm_dup(MPI_COMM_WORLD)");
    check(MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
    check(MPI_Comm_rank(comm_, &rank_), "MPI_Comm_rank");
    check(MPI_Comm_size(comm_, &size_), "MPI_Comm_size");
    void* attr = nullptr;
    int flag = 0;
    check(MPI_Comm_get_attr(comm_, MPI_TAG_UB, &attr, &flag), "MPI_Comm_get_attr(MPI_TAG_UB)");
    tag_ub_ = flag ? *static_cast<int*>(attr) : 32767;
    std::vector<int> all(static_cast<std::size_t>(size_));
    for (int i = 0; i < size_; ++i) all[static_cast<std::size_t>(i)] = i;
    world_ = std::make_unique<MpiGroup>(session_, comm_, /*owns_comm=*/false, std::move(all), rank_,
                                        kCollectiveTimeoutFactor * options_.timeout.count());
  }

  ~MpiTransport() override {
    world_.reset();
    mpi_detail::free_comm(comm_);
    // session_ released last: MPI_Finalize runs once groups and handles are gone too.
  }

  std::string backend() const override { return backend_name(Backend::kMpi); }
  int rank() const override { return rank_; }
  int world_size() const override { return size_; }
  const TransportOptions& options() const override { return options_; }
  void set_receive_wait(ReceiveWait wait) override { options_.receive_wait = wait; }

  void send(const std::uint8_t* data, std::size_t size, int dst, int tag) override {
    validate_send(size, dst, tag, "send");
    static std::uint8_t empty = 0;
    void* buf = size == 0 ? &empty : const_cast<std::uint8_t*>(data);
    // Error texts are formatted only on failure: this is the hot path.
    const auto what = [&] {
      return fmt::format("rank {}: send of {} bytes to rank {} on tag {}", rank_, size, dst, tag);
    };
    MPI_Request request = MPI_REQUEST_NULL;
    check_lazy(MPI_Isend(buf, static_cast<int>(size), MPI_BYTE, dst, tag, comm_, &request), what);
    // Poll (rather than MPI_Wait) so a rank blocked on a slow receiver sleeps.
    Backoff backoff(-1.0);
    for (;;) {
      int flag = 0;
      check_lazy(MPI_Test(&request, &flag, MPI_STATUS_IGNORE), what);
      if (flag) return;
      backoff.pause();
    }
  }

  SendHandle isend(Bytes bytes, int dst, int tag) override {
    validate_send(bytes.size(), dst, tag, "isend");
    return SendHandle(
        std::make_unique<MpiPendingSend>(session_, comm_, std::move(bytes), dst, tag, rank_),
        options().timeout);
  }

  Received recv(int src, int tag, Seconds timeout) override {
    Matched m = match(src, tag, timeout);
    Received out;
    out.src = m.from;
    allocate_payload(out.bytes, static_cast<std::size_t>(m.count));
    receive(m, tag, out.bytes);
    return out;
  }

  RecvInfo recv_into(int src, int tag, Seconds timeout, Bytes& buffer) override {
    Matched m = match(src, tag, timeout);
    const auto n = static_cast<std::size_t>(m.count);
    if (n <= buffer.capacity()) {
      buffer.resize(n);  // reuses the caller's pages: no allocation, no page faults
    } else {
      buffer = Bytes();  // release the old storage first; its contents are not kept
      allocate_payload(buffer, n);
    }
    receive(m, tag, buffer);
    return RecvInfo{m.from, n};
  }

  Group& world() override { return *world_; }

  std::unique_ptr<Group> new_group(const std::vector<int>& ranks) override {
    validate_group(ranks);
    MPI_Group world_group = MPI_GROUP_NULL;
    MPI_Group sub = MPI_GROUP_NULL;
    check(MPI_Comm_group(comm_, &world_group), "MPI_Comm_group");
    int rc = MPI_Group_incl(world_group, static_cast<int>(ranks.size()), ranks.data(), &sub);
    MPI_Group_free(&world_group);
    check(rc, fmt::format("MPI_Group_incl of ranks [{}]", fmt::join(ranks, ", ")));
    MPI_Comm comm = MPI_COMM_NULL;
    rc = MPI_Comm_create(comm_, sub, &comm);
    MPI_Group_free(&sub);
    check(rc, fmt::format("MPI_Comm_create of group [{}]", fmt::join(ranks, ", ")));
    if (comm != MPI_COMM_NULL) MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    return std::make_unique<MpiGroup>(session_, comm, /*owns_comm=*/true, ranks, rank_,
                                      kCollectiveTimeoutFactor * options_.timeout.count());
  }

 private:
  void validate_tag(int tag, const char* op) const {
    if (tag < 0 || tag > tag_ub_) {
      throw TransportError(fmt::format("rank {}: {} on invalid tag {} (valid tags are 0..{})",
                                       rank_, op, tag, tag_ub_));
    }
  }

  void validate_send(std::size_t size, int dst, int tag, const char* op) const {
    if (dst < 0 || dst >= size_) {
      throw TransportError(
          fmt::format("rank {}: {} to invalid destination rank {} on tag {} (world size {})", rank_,
                      op, dst, tag, size_));
    }
    validate_tag(tag, op);
    if (size > options_.max_message_bytes) {
      throw TransportError(
          fmt::format("rank {}: {} of {} bytes to rank {} on tag {} exceeds max_message_bytes = {}",
                      rank_, op, size, dst, tag, options_.max_message_bytes));
    }
  }

  void validate_group(const std::vector<int>& ranks) const {
    if (ranks.empty()) throw TransportError("new_group: the list of ranks is empty");
    std::set<int> seen;
    for (int r : ranks) {
      if (r < 0 || r >= size_) {
        throw TransportError(fmt::format("new_group [{}]: rank {} is out of range (world size {})",
                                         fmt::join(ranks, ", "), r, size_));
      }
      if (!seen.insert(r).second) {
        throw TransportError(
            fmt::format("new_group [{}]: rank {} appears twice", fmt::join(ranks, ", "), r));
      }
    }
  }

  /// A matched message (MPI_Improbe), not yet received.
  struct Matched {
    MPI_Message message = MPI_MESSAGE_NULL;
    int from = -1;
    int count = 0;
  };

  /// Validates the arguments and waits (Backoff polling of MPI_Improbe) until a message
  /// from `src` (or any source) on `tag` is matched. Throws TransportError (bad
  /// arguments), TimeoutError after `timeout`, MessageError (the message exceeds the
  /// cap: it is consumed by drop()).
  Matched match(int src, int tag, Seconds timeout) {
    if (src != kAnySource && (src < 0 || src >= size_)) {
      throw TransportError(fmt::format("rank {}: recv from invalid source rank {} (world size {})",
                                       rank_, src, size_));
    }
    validate_tag(tag, "recv");
    if (!(timeout.count() >= 0.0)) {  // as the torch backend: no silent "wait forever"
      throw TransportError(
          fmt::format("rank {}: recv from {} on tag {}: timeout must be >= 0 "
                      "seconds, got {}",
                      rank_, peer_name(src), tag, timeout.count()));
    }
    const int mpi_src = src == kAnySource ? MPI_ANY_SOURCE : src;
    Backoff backoff(timeout.count(), options_.receive_wait);
    Matched m;
    MPI_Status status;
    const auto probe_what = [&] {
      return fmt::format("rank {}: probe for {} on tag {}", rank_, peer_name(src), tag);
    };
    for (;;) {
      int flag = 0;
      check_lazy(MPI_Improbe(mpi_src, tag, comm_, &flag, &m.message, &status), probe_what);
      if (flag) break;
      if (!backoff.pause()) {
        check_lazy(MPI_Improbe(mpi_src, tag, comm_, &flag, &m.message, &status), probe_what);
        if (flag) break;
        throw TimeoutError(fmt::format("rank {}: recv from {} on tag {} timed out after {} s",
                                       rank_, peer_name(src), tag, timeout.count()));
      }
    }
    check(MPI_Get_count(&status, MPI_BYTE, &m.count), "MPI_Get_count");
    m.from = status.MPI_SOURCE;
    if (static_cast<std::size_t>(m.count) > options_.max_message_bytes) {
      drop(m.message, m.from, tag, m.count);
    }
    return m;
  }

  /// MPI_Mrecv of the matched message into `bytes` (already sized to m.count).
  void receive(Matched& m, int tag, Bytes& bytes) {
    std::uint8_t empty = 0;
    void* buf = m.count == 0 ? &empty : bytes.data();
    check_lazy(MPI_Mrecv(buf, m.count, MPI_BYTE, &m.message, MPI_STATUS_IGNORE), [&] {
      return fmt::format("rank {}: receive of {} bytes from rank {} on tag {}", rank_, m.count,
                         m.from, tag);
    });
  }

  /// Consumes an oversized matched message whole into a DiscardBuffer (its size in
  /// address space, about 1 MiB of memory) and throws MessageError.
  [[noreturn]] void drop(MPI_Message& message, int from, int tag, int count) {
    {
      mpi_detail::DiscardBuffer sink(static_cast<std::size_t>(count));
      check(MPI_Mrecv(sink.data(), count, MPI_BYTE, &message, MPI_STATUS_IGNORE),
            fmt::format("rank {}: dropping an oversized message of {} bytes from rank {} on tag {}",
                        rank_, count, from, tag));
    }
    throw MessageError(
        fmt::format(
            "rank {}: message of {} bytes from rank {} on tag {} exceeds max_message_bytes = {}; "
            "dropped",
            rank_, count, from, tag, options_.max_message_bytes),
        from);
  }

  TransportOptions options_;
  std::shared_ptr<MpiSession> session_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 1;
  int tag_ub_ = 32767;
  std::unique_ptr<MpiGroup> world_;
};

}  // namespace

std::unique_ptr<Transport> make_mpi_transport(const TransportOptions& options) {
  return std::make_unique<MpiTransport>(options);
}

}  // namespace gfn::transport
