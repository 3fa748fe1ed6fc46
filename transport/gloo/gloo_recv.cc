#include "transport/gloo/gloo_recv.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "transport/gloo/gloo_transport.h"

namespace gfn::transport::gloo_detail {

namespace {
constexpr std::size_t kSinkWindow = std::size_t{16} << 20;

std::string seconds_text(Seconds s) { return std::to_string(s.count()) + " s"; }

// Waits on a helper-thread future until `deadline`; false on timeout.
bool ready_by(const std::shared_future<void>& f, Clock::time_point deadline) {
  return f.wait_until(deadline) == std::future_status::ready;
}
}  // namespace

DrainSink::DrainSink(std::int64_t length) {
  const std::size_t windows = (static_cast<std::size_t>(length) + kSinkWindow - 1) / kSinkWindow;
  mapped_ = std::max<std::size_t>(windows, 1) * kSinkWindow;
  const int fd = memfd_create("gfn-gloo-drain", MFD_CLOEXEC);
  if (fd < 0) throw MessageError(std::string("drain sink: memfd_create: ") + std::strerror(errno));
  if (ftruncate(fd, static_cast<off_t>(kSinkWindow)) != 0) {
    close(fd);
    throw MessageError(std::string("drain sink: ftruncate: ") + std::strerror(errno));
  }
  base_ = mmap(nullptr, mapped_, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (base_ == MAP_FAILED) {
    base_ = nullptr;
    close(fd);
    throw MessageError(std::string("drain sink: reserving address space: ") + std::strerror(errno));
  }
  for (std::size_t off = 0; off < mapped_; off += kSinkWindow) {
    void* p = mmap(static_cast<char*>(base_) + off, kSinkWindow, PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_FIXED, fd, 0);
    if (p == MAP_FAILED) {
      const int err = errno;
      close(fd);
      munmap(base_, mapped_);
      base_ = nullptr;
      throw MessageError(std::string("drain sink: mapping window: ") + std::strerror(err));
    }
  }
  close(fd);  // the mappings keep the memory file alive
}

DrainSink::~DrainSink() {
  if (base_ != nullptr) munmap(base_, mapped_);
}

TagReceiver::TagReceiver(std::shared_ptr<GlooSession> session, int tag)
    : session_(std::move(session)), tag_(tag) {}

TagReceiver::~TagReceiver() {
  if (listener_) {
    listener_->abort_and_join();
    session_->bury(listener_);
  }
  for (auto& m : inflight_) {
    if (m.payload) {
      m.payload->abort_and_join();
      session_->bury(m.payload);
    }
  }
}

std::string TagReceiver::where(int src) const {
  return (src == kAnySource ? std::string("any rank") : "rank " + std::to_string(src)) +
         " on tag " + std::to_string(tag_);
}

TagReceiver::InFlight TagReceiver::admit(int src, std::int64_t length, Bytes* into) {
  InFlight m;
  m.src = src;
  m.length = length;
  const std::string what = "message of " + std::to_string(length) + " bytes from " + where(src);
  if (poisoned_.count(src) != 0) {
    m.refusal = what +
                " refused: this peer is poisoned on this tag by an earlier message too "
                "large to drain";
    return m;
  }
  const auto cap = static_cast<std::int64_t>(session_->options.max_message_bytes);
  if (length < 0 || length > kMaxDrainBytes) {
    poisoned_.insert(src);
    m.refusal = what + " refused: the length is negative or above the drain limit (" +
                std::to_string(kMaxDrainBytes) +
                " bytes); the payload cannot be consumed, so this peer is now poisoned on "
                "this tag";
    return m;
  }
  auto p = std::make_shared<PendingRecv>();
  if (length > cap) {
    std::shared_ptr<DrainSink> sink;
    try {
      sink = std::make_shared<DrainSink>(length);
    } catch (const MessageError& e) {
      poisoned_.insert(src);
      m.refusal = what + " refused and not drained (" + e.what() +
                  "); this peer is now poisoned on this tag";
      return m;
    }
    p->buffer = at::from_blob(sink->data(), {length}, at::TensorOptions().dtype(at::kByte));
    p->keepalive = sink;
    m.drained = true;
    m.refusal = what + " refused: above max_message_bytes (" + std::to_string(cap) +
                "); the payload was drained and dropped";
  } else {
    m.bytes = std::make_shared<Bytes>();
    const auto n = static_cast<std::size_t>(length);
    if (into != nullptr && n <= into->capacity()) m.bytes->swap(*into);  // caller's storage
    if (into != nullptr) *into = Bytes();  // too small (or swapped out): left empty
    m.bytes->resize(n);                    // no allocation when the storage was the caller's
    p->buffer = at::from_blob(m.bytes->data(), {length}, at::TensorOptions().dtype(at::kByte));
    p->keepalive = m.bytes;
  }
  std::vector<at::Tensor> v{p->buffer};
  p->work = session_->p2p->recv(v, src, 2 * tag_ + 1);
  p->start();
  m.payload = std::move(p);
  return m;
}

Received TagReceiver::recv(int src, Clock::time_point deadline, Seconds timeout) {
  InFlight m = next(src, deadline, timeout, nullptr);
  return Received{m.src, std::move(*m.bytes)};
}

RecvInfo TagReceiver::recv_into(int src, Clock::time_point deadline, Seconds timeout,
                                Bytes& buffer) {
  const std::uint8_t* before = buffer.data();
  const std::size_t capacity = buffer.capacity();
  InFlight m = next(src, deadline, timeout, &buffer);
  Bytes& got = *m.bytes;
  const std::size_t n = got.size();
  const bool own_storage = capacity > 0 && got.data() == before;  // posted into buffer's pages
  if (!own_storage && buffer.capacity() >= n && n > 0) {
    buffer.resize(n);  // a queued message: copy, keeping the caller's storage
    std::memcpy(buffer.data(), got.data(), n);
  } else if (!own_storage && buffer.capacity() >= n) {
    buffer.clear();
  } else {
    buffer.swap(got);
  }
  return RecvInfo{m.src, n};
}

TagReceiver::InFlight TagReceiver::next(int src, Clock::time_point deadline, Seconds timeout,
                                        Bytes* into) {
  std::unique_lock<std::timed_mutex> lock(busy_, std::defer_lock);
  if (!lock.try_lock_until(deadline)) {
    throw TimeoutError("recv from " + where(src) + " timed out after " + seconds_text(timeout) +
                       " (another receive on this tag was waiting)");
  }
  for (;;) {
    // 1. A message from the wanted sender that already announced its length.
    for (auto it = inflight_.begin(); it != inflight_.end(); ++it) {
      if (src != kAnySource && it->src != src) continue;
      if (it->payload && !ready_by(it->payload->done, deadline)) {
        throw TimeoutError("recv from " + where(src) + " timed out after " + seconds_text(timeout) +
                           " waiting for the payload of " + std::to_string(it->length) +
                           " bytes from rank " + std::to_string(it->src));
      }
      InFlight m = std::move(*it);
      inflight_.erase(it);
      if (m.payload) {
        try {
          m.payload->done.get();
        } catch (const std::exception& e) {
          throw TransportError("recv of the payload from " + where(m.src) + " failed: " + e.what());
        }
      }
      if (!m.refusal.empty()) throw MessageError(m.refusal, m.src);
      return m;
    }
    // 2. Learn the next length on this tag, from any sender.
    if (!listener_) {
      auto p = std::make_shared<PendingRecv>();
      p->buffer = at::zeros({1}, at::kLong);
      std::vector<at::Tensor> v{p->buffer};
      p->work = session_->p2p->recvAnysource(v, 2 * tag_);
      p->start();
      listener_ = std::move(p);
    }
    if (!ready_by(listener_->done, deadline)) {
      throw TimeoutError("recv from " + where(src) + " timed out after " + seconds_text(timeout) +
                         " (no message arrived)");
    }
    auto l = std::move(listener_);
    try {
      l->done.get();
    } catch (const std::exception& e) {
      throw TransportError("recv of a length on " + where(kAnySource) + " failed: " + e.what());
    }
    const int from = l->work->sourceRank();
    const std::int64_t length = l->buffer.data_ptr<std::int64_t>()[0];
    // The message this call will return (nothing queued matched above) may use the
    // caller's buffer; messages for other receives get fresh memory.
    const bool mine = into != nullptr && (src == kAnySource || from == src);
    inflight_.push_back(admit(from, length, mine ? into : nullptr));
    if (mine) into = nullptr;  // its storage is handed out at most once
  }
}

}  // namespace gfn::transport::gloo_detail
