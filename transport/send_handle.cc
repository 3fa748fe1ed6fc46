#include "transport/send_handle.h"

#include <spdlog/spdlog.h>

#include <cstdlib>
#include <exception>

#include "transport/errors.h"

namespace gfn::transport {

SendHandle& SendHandle::operator=(SendHandle&& other) noexcept {
  if (this != &other) {
    finish_or_end_rank();
    pending_ = std::move(other.pending_);
    timeout_ = other.timeout_;
    complete_ = other.complete_;
    error_ = std::move(other.error_);
  }
  return *this;
}

SendHandle::~SendHandle() { finish_or_end_rank(); }

template <class F>
auto SendHandle::guarded(F&& call) -> decltype(call()) {
  if (error_) std::rethrow_exception(error_);
  try {
    return call();
  } catch (const TimeoutError&) {
    throw;  // the send is still pending: a later wait may succeed
  } catch (...) {
    error_ = std::current_exception();
    throw;
  }
}

bool SendHandle::is_complete() {
  if (error_) std::rethrow_exception(error_);
  if (complete_ || !pending_) return true;
  complete_ = guarded([&] { return pending_->test(); });
  return complete_;
}

void SendHandle::wait() { wait(timeout_); }

void SendHandle::wait(std::chrono::duration<double> timeout) {
  if (error_) std::rethrow_exception(error_);
  if (complete_ || !pending_) return;
  guarded([&] { pending_->wait(timeout.count()); });
  complete_ = true;
}

void SendHandle::finish_or_end_rank() noexcept {
  if (complete_ || error_ || !pending_) return;
  try {
    pending_->wait(timeout_.count());
    complete_ = true;
  } catch (const TimeoutError& e) {
    // Freeing the payload now could corrupt what the peer receives, and waiting longer
    // could hang the rank forever: end it, naming who does not receive.
    spdlog::critical(
        "async send to rank {} on tag {} did not complete within {} s (transport.timeout_s) "
        "while its handle was destroyed; ending this rank ({})",
        pending_->peer(), pending_->tag(), timeout_.count(), e.what());
    spdlog::default_logger()->flush();
    std::abort();
  } catch (const std::exception& e) {
    spdlog::error("async send to rank {} on tag {} failed while its handle was destroyed: {}",
                  pending_->peer(), pending_->tag(), e.what());
  }
}

}  // namespace gfn::transport
