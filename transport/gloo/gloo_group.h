#pragma once
// Internal: a Group of the torch backend, one c10d ProcessGroupGloo per group over
// a c10d::PrefixStore of the session's TCPStore (collectives only; point-to-point
// traffic has its own process group). Raw memory is wrapped with at::from_blob (no
// copies). A collective is bounded by kCollectiveTimeoutFactor × TransportOptions::timeout
// (transport/transport.h; Gloo's own timeout). One that fails throws TransportError; one that
// times out throws TimeoutError naming the global ranks that did not reach it: each rank
// whose collective times out marks itself on the store (gfn/collective_timed_out/<rank>), and
// the members whose mark is still missing after min(timeout, 10 s) are named (a member stopped
// or hung, or one waiting elsewhere). Either leaves the group unusable. Not thread-safe: one
// collective at a time.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "transport/gloo/gloo_util.h"

namespace gfn::transport::gloo_detail {

class GlooGroup final : public Group {
 public:
  /// Collective over the members (builds the Gloo context when this rank is one);
  /// `prefix` must be unique per group and identical on all ranks.
  GlooGroup(std::shared_ptr<GlooSession> session, std::vector<int> ranks,
            const std::string& prefix);
  /// Waits (at most min(timeout, 60 s)) until every member is destroying the group too,
  /// then closes the Gloo context. Never throws.
  ~GlooGroup() override;

  int rank() const override { return group_rank_; }
  int size() const override { return static_cast<int>(ranks_.size()); }
  const std::vector<int>& global_ranks() const override { return ranks_; }

  void barrier() override;
  void broadcast(void* data, std::size_t count, DType dtype, int root) override;
  void all_reduce(void* data, std::size_t count, DType dtype, ReduceOp op) override;
  void all_gather(const void* in, std::size_t count, DType dtype, void* out) override;

 private:
  void require_member(const char* op) const;
  /// Waits for `work`; throws as the header comment says.
  void run(const char* op, const c10::intrusive_ptr<c10d::Work>& work) const;
  Seconds collective_timeout() const;
  /// Global ranks of the members that did not mark a timed-out collective within the grace;
  /// nullopt when the store cannot be reached.
  std::optional<std::vector<int>> missing_members() const;

  std::shared_ptr<GlooSession> session_;
  std::vector<int> ranks_;
  std::string prefix_;  ///< store prefix of this group ("gfn/group/<n>/")
  int group_rank_ = -1;
  c10::intrusive_ptr<c10d::ProcessGroupGloo> pg_;
};

}  // namespace gfn::transport::gloo_detail
