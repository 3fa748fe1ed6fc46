#pragma once
// Errors raised by the transport layer. Every error message names the peer
// rank and the tag involved where there is one.

#include <stdexcept>
#include <string>

namespace gfn::transport {

/// Base class of every transport failure (backend error, peer gone, bad use).
class TransportError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A blocking wait (recv, SendHandle::wait) ran past its timeout.
class TimeoutError : public TransportError {
 public:
  using TransportError::TransportError;
};

/// A message was refused: above the size cap, truncated, wrong magic/version,
/// unknown type. The receiver keeps running; nothing beyond the cap or beyond the
/// bytes actually received was allocated.
class MessageError : public TransportError {
 public:
  /// `source`: the global rank that sent the refused message, when the refusal is about
  /// a received message whose sender is known (a receive that dropped an oversized
  /// message names it); -1 otherwise.
  explicit MessageError(const std::string& what, int source = -1)
      : TransportError(what), source_(source) {}
  /// The sender of the refused message, or -1 if unknown.
  int source() const { return source_; }

 private:
  int source_ = -1;
};

}  // namespace gfn::transport
