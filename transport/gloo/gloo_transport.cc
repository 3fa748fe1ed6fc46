#include "transport/gloo/gloo_transport.h"

#include "transport/backend.h"

#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include <fmt/format.h>

#include <climits>
#include <map>
#include <set>

#include "transport/gloo/gloo_group.h"
#include "transport/gloo/gloo_recv.h"
#include "transport/gloo/gloo_send.h"
#include "transport/gloo/gloo_transport_impl.h"

namespace gfn::transport {
namespace gloo_detail {
namespace {

constexpr int kMaxTag = (INT_MAX - 1) / 2;  // 2*tag+1 must fit in an int

class GlooTransport final : public Transport {
 public:
  GlooTransport(std::shared_ptr<GlooSession> session)
      : session_(std::move(session)),
        engine_(std::make_shared<SendEngine>(session_)),
        world_(
            std::make_unique<GlooGroup>(session_, all_ranks(session_->world_size), "gfn/world/")) {}

  ~GlooTransport() override {
    std::lock_guard<std::mutex> lock(receivers_mutex_);
    receivers_.clear();  // aborts posted receives before the groups go away
  }

  std::string backend() const override { return backend_name(Backend::kTorch); }
  int rank() const override { return session_->rank; }
  int world_size() const override { return session_->world_size; }
  const TransportOptions& options() const override { return session_->options; }
  /// Recorded only: Gloo receives block in the kernel (no polling to tune).
  void set_receive_wait(ReceiveWait wait) override { session_->options.receive_wait = wait; }

  void send(const std::uint8_t* data, std::size_t size, int dst, int tag) override {
    check_send(size, dst, tag, "send");
    // The caller's buffer may be reused as soon as we return, even after a timeout
    // (the message then stays queued), so the payload is copied.
    Bytes copy(data, data + size);
    auto state = engine_->post(std::move(copy), dst, tag);
    wait_send(*state, session_->options.timeout);
  }

  SendHandle isend(Bytes bytes, int dst, int tag) override {
    check_send(bytes.size(), dst, tag, "isend");
    auto state = engine_->post(std::move(bytes), dst, tag);
    return SendHandle(std::make_unique<GlooPendingSend>(engine_, std::move(state)),
                      session_->options.timeout);
  }

  Received recv(int src, int tag, Seconds timeout) override {
    check_recv(src, tag);
    const auto deadline = deadline_after(timeout, "torch backend recv");
    return receiver(tag).recv(src, deadline, timeout);
  }

  RecvInfo recv_into(int src, int tag, Seconds timeout, Bytes& buffer) override {
    check_recv(src, tag);
    const auto deadline = deadline_after(timeout, "torch backend recv_into");
    return receiver(tag).recv_into(src, deadline, timeout, buffer);
  }

  Group& world() override { return *world_; }

  std::unique_ptr<Group> new_group(const std::vector<int>& ranks) override {
    if (ranks.empty()) throw TransportError("torch backend new_group: empty rank list");
    std::set<int> seen;
    for (int r : ranks) {
      if (r < 0 || r >= world_size()) {
        throw TransportError("torch backend new_group: rank " + std::to_string(r) + " outside 0.." +
                             std::to_string(world_size() - 1));
      }
      if (!seen.insert(r).second) {
        throw TransportError("torch backend new_group: rank " + std::to_string(r) +
                             " listed twice");
      }
    }
    const std::string prefix = "gfn/group/" + std::to_string(++group_counter_) + "/";
    return std::make_unique<GlooGroup>(session_, ranks, prefix);
  }

 private:
  static std::vector<int> all_ranks(int n) {
    std::vector<int> r(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) r[static_cast<std::size_t>(i)] = i;
    return r;
  }

  void check_tag(int tag, const char* op) const {
    if (tag < 0 || tag > kMaxTag) {
      throw TransportError(std::string("torch backend ") + op + ": tag " + std::to_string(tag) +
                           " outside 0.." + std::to_string(kMaxTag));
    }
  }

  void check_recv(int src, int tag) const {
    check_tag(tag, "recv");
    if (src != kAnySource && (src < 0 || src >= world_size() || src == rank())) {
      throw TransportError("torch backend recv: source rank " + std::to_string(src) +
                           " is not another rank of a world of " + std::to_string(world_size()) +
                           " (this is rank " + std::to_string(rank()) + ")");
    }
  }

  void check_send(std::size_t size, int dst, int tag, const char* op) const {
    check_tag(tag, op);
    if (dst < 0 || dst >= world_size() || dst == rank()) {
      throw TransportError(std::string("torch backend ") + op + ": destination rank " +
                           std::to_string(dst) + " is not another rank of a world of " +
                           std::to_string(world_size()) + " (this is rank " +
                           std::to_string(rank()) + "; sending to oneself is not supported)");
    }
    if (size > session_->options.max_message_bytes) {
      throw TransportError(std::string("torch backend ") + op + " to rank " + std::to_string(dst) +
                           " on tag " + std::to_string(tag) + ": " + std::to_string(size) +
                           " bytes exceed max_message_bytes (" +
                           std::to_string(session_->options.max_message_bytes) + ")");
    }
  }

  TagReceiver& receiver(int tag) {
    std::lock_guard<std::mutex> lock(receivers_mutex_);
    auto& r = receivers_[tag];
    if (!r) r = std::make_unique<TagReceiver>(session_, tag);
    return *r;
  }

  std::shared_ptr<GlooSession> session_;
  std::shared_ptr<SendEngine> engine_;
  std::unique_ptr<GlooGroup> world_;
  std::mutex receivers_mutex_;
  std::map<int, std::unique_ptr<TagReceiver>> receivers_;
  int group_counter_ = 0;
};

}  // namespace

// The store's value for a token: never empty ("v1:" + token), so that "no token" is a value too.
std::vector<std::uint8_t> token_bytes(const std::string& token) {
  const std::string v = "v1:" + token;
  return std::vector<std::uint8_t>(v.begin(), v.end());
}

void check_options(const TransportOptions& options) {
  if (options.max_message_bytes == 0) {
    throw TransportError("torch backend: transport max_message_bytes must be > 0");
  }
  if (!(options.timeout.count() > 0.0)) {
    throw TransportError("torch backend: transport timeout must be > 0 seconds, got " +
                         std::to_string(options.timeout.count()));
  }
  if (!(options.rendezvous_timeout.count() > 0.0)) {
    throw TransportError("torch backend: transport rendezvous timeout must be > 0 seconds, got " +
                         std::to_string(options.rendezvous_timeout.count()));
  }
}

std::chrono::milliseconds rendezvous_millis(const TransportOptions& options) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(options.rendezvous_timeout);
}

std::string rendezvous_hint(const TransportOptions& options, const std::string& what) {
  if (!is_timeout_message(what)) return "";
  return fmt::format(" (waited {:g} s for the other ranks: transport.rendezvous_timeout_s)",
                     options.rendezvous_timeout.count());
}

std::shared_ptr<::gloo::transport::Device> device_for(const std::string& master_addr,
                                                      const std::string& interface) {
  if (!interface.empty()) {
    try {
      return c10d::ProcessGroupGloo::createDeviceForInterface(interface);
    } catch (const std::exception& e) {
      throw TransportError("torch backend: transport.interface '" + interface +
                           "' cannot be used: " + e.what());
    }
  }
  if (master_addr == "127.0.0.1" || master_addr == "localhost") {
    return c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1");
  }
  return c10d::ProcessGroupGloo::createDefaultDevice();
}

void check_job_token(c10d::Store& store, int rank, const std::string& token,
                     const std::string& master_addr) {
  const std::string key = "gfn/job_token";
  const std::vector<std::uint8_t> mine = token_bytes(token);
  if (rank == 0) {
    store.set(key, mine);
    return;
  }
  std::vector<std::uint8_t> theirs;
  try {
    theirs = store.get(key);
  } catch (const std::exception& e) {
    throw TransportError("torch backend: rank " + std::to_string(rank) +
                         " found no job token on the TCPStore at " + master_addr +
                         " (is it another program's, or an older gfn-runtime's?): " + e.what());
  }
  if (theirs != mine) {
    throw TransportError(
        "torch backend: rank " + std::to_string(rank) + " refused the TCPStore at " + master_addr +
        ": it belongs to another job (its job token differs from this rank's launch.job_token / "
        "GFN_JOB_TOKEN). Two jobs on one MASTER_PORT? Give each its own port.");
  }
}

std::unique_ptr<Transport> make_transport_on_store(const TransportOptions& options, int rank,
                                                   int world_size,
                                                   c10::intrusive_ptr<c10d::Store> store,
                                                   const std::string& master_addr,
                                                   std::shared_ptr<void> finalizer) {
  auto session = std::make_shared<GlooSession>();
  session->finalizer = std::move(finalizer);
  session->store = std::move(store);
  session->rank = rank;
  session->world_size = world_size;
  session->options = options;
  check_job_token(*session->store, rank, options.job_token, master_addr);
  session->device = device_for(master_addr, options.interface);
  try {
    auto opts = c10d::ProcessGroupGloo::Options::create(
        std::chrono::duration_cast<std::chrono::milliseconds>(kP2pBackstopTimeout));
    opts->devices.push_back(session->device);
    auto p2p_store = c10::make_intrusive<c10d::PrefixStore>("gfn/p2p/", session->store);
    session->p2p = c10::make_intrusive<c10d::ProcessGroupGloo>(p2p_store, rank, world_size, opts);
  } catch (const std::exception& e) {
    throw TransportError("torch backend: building the point-to-point process group (rank " +
                         std::to_string(rank) + " of " + std::to_string(world_size) + ", master " +
                         master_addr + ") failed: " + e.what() +
                         rendezvous_hint(options, e.what()));
  }
  // The world has formed: from now on a store operation that waits on a peer (a stalled
  // rank 0 serves the store) is bounded like every other wait on a peer.
  session->store->setTimeout(
      std::chrono::duration_cast<std::chrono::milliseconds>(options.timeout));
  return std::make_unique<GlooTransport>(std::move(session));
}

}  // namespace gloo_detail

std::unique_ptr<Transport> make_gloo_transport(const TransportOptions& options,
                                               const GlooRendezvous& rv) {
  gloo_detail::check_options(options);
  if (rv.world_size < 1 || rv.rank < 0 || rv.rank >= rv.world_size) {
    throw TransportError("torch backend: rank " + std::to_string(rv.rank) + " / world size " +
                         std::to_string(rv.world_size) + " invalid (need 0 <= rank < world size)");
  }
  if (rv.master_addr.empty()) throw TransportError("torch backend: empty master address");
  if (rv.master_port < 1 || rv.master_port > 65535) {
    throw TransportError("torch backend: master port " + std::to_string(rv.master_port) +
                         " outside 1..65535");
  }
  c10::intrusive_ptr<c10d::Store> store;
  try {
    c10d::TCPStoreOptions so;
    so.port = static_cast<std::uint16_t>(rv.master_port);
    so.isServer = (rv.rank == 0);
    so.numWorkers = static_cast<std::size_t>(rv.world_size);
    so.waitWorkers = true;
    so.timeout = gloo_detail::rendezvous_millis(options);
    store = c10::make_intrusive<c10d::TCPStore>(rv.master_addr, so);
  } catch (const std::exception& e) {
    const bool in_use = std::string(e.what()).find("Address already in use") != std::string::npos;
    throw TransportError(
        "torch backend: TCPStore rendezvous at " + rv.master_addr + ":" +
        std::to_string(rv.master_port) + " failed (rank " + std::to_string(rv.rank) +
        "): " + e.what() + gloo_detail::rendezvous_hint(options, e.what()) +
        (in_use ? " Another job on this port? Give each job its own MASTER_PORT." : ""));
  }
  return gloo_detail::make_transport_on_store(options, rv.rank, rv.world_size, std::move(store),
                                              rv.master_addr, nullptr);
}

}  // namespace gfn::transport
