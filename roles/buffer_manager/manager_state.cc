// BufferManager::save_state / restore_state (manager.h): the manager's part of a checkpoint
// (docs/checkpoints.md "Checkpoint and resume"), as cereal portable binary bytes.
#include <cereal/types/map.hpp>
#include <cereal/types/optional.hpp>
#include <cereal/types/set.hpp>
#include <cereal/types/string.hpp>
#include <cereal/types/tuple.hpp>
#include <cereal/types/vector.hpp>

#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "roles/buffer_manager/manager.h"
#include "runtime/buffer/table_state.h"
#include "runtime/checkpoint/versioned_state.h"
#include "runtime/timing/timing_table.h"

namespace gfn::roles {

// cereal finds these by argument-dependent lookup (namespace of the types).
template <class Archive>
void serialize(Archive& ar, SenderStats& s) {
  ar(s.requests, s.bytes_in, s.bytes_out, s.submissions, s.items, s.errors, s.samples, s.recv_s,
     s.add_s, s.score_s, s.send_s);
}

template <class Archive>
void serialize(Archive& ar, ManagerModesPoint& p) {
  ar(p.elapsed_s, p.items_received, p.modes_found);
}

template <class Archive>
void serialize(Archive& ar, BufferManagerResult& r) {
  ar(r.per_sender, r.submissions, r.items_received, r.items_filtered_by_trainers, r.buffer_size,
     r.modes_found, r.rejected_messages, r.errors_sent, r.exit_mismatches, r.sample_requests,
     r.sample_requests_refused, r.samples_served, r.baseline_reports, r.baseline_syncs,
     r.baseline_pushes, r.alive_messages, r.trajectories_received, r.trajectories_served,
     r.has_baseline, r.baseline);
}

namespace {

// 1: the first layout (still read: a checkpoint of an older build resumes, with an empty
//    mode-discovery timeline and its elapsed time counted from the resume).
// 2: adds, at the end, the elapsed time, the mode-discovery timeline and the timing table (a
//    restarted manager continues all three).
constexpr std::uint32_t kOldestFormatVersion = 1;
constexpr std::uint32_t kFormatVersion = 2;

/// The manager's state apart from the objects that save themselves.
struct ManagerState {
  std::string table;   ///< buffer::encode_table_state
  std::string scorer;  ///< Scorer::save_state
  std::optional<double> baseline_ema;
  std::optional<float> baseline_global;
  std::int64_t limiter_inserts = 0, limiter_samples = 0;
  std::set<std::vector<std::int64_t>> modes_seen;
  /// Baseline feeds: (trainer rank, last value pushed, updates).
  std::vector<std::tuple<int, std::optional<float>, std::int64_t>> feeds;
  std::optional<float> last_reported;
  std::int64_t last_report_at = 0;
  BufferManagerResult result;
  // Version 2:
  double elapsed_s = 0;  ///< seconds served, this attempt's and the earlier ones'
  // result.modes_timeline is serialized here, after the version-1 fields.
  std::string timing;  ///< the timing table (encode_versioned), empty without one

  std::uint32_t format_version = kFormatVersion;  ///< not serialized: the layout read
  template <class Archive>
  void serialize(Archive& ar) {
    ar(table, scorer, baseline_ema, baseline_global, limiter_inserts, limiter_samples, modes_seen,
       feeds, last_reported, last_report_at, result);
    if (format_version >= 2) ar(elapsed_s, result.modes_timeline, timing);
  }
};

}  // namespace

std::string BufferManager::save_state() const {
  ManagerState s;
  s.table = buffer::encode_table_state(replay_.save_state());
  s.scorer = scorer_->save_state();
  const auto baseline = baseline_.state();
  s.baseline_ema = baseline.ema;
  s.baseline_global = baseline.global;
  s.limiter_inserts = limiter_.inserts();
  s.limiter_samples = limiter_.samples();
  s.modes_seen = modes_seen_;
  for (const auto& [rank, feed] : feeds_) s.feeds.emplace_back(rank, feed.last, feed.updates);
  s.last_reported = last_reported_;
  s.last_report_at = last_report_at_;
  s.elapsed_s = elapsed_before_ + seconds_since(started_);
  s.result = result_;
  if (timing_)
    s.timing = checkpoint::encode_versioned(timing::TimingTable::kFormatVersion, *timing_);
  return checkpoint::encode_versioned(kFormatVersion, s);
}

void BufferManager::restore_state(const std::string& bytes) {
  const std::string what = "buffer manager rank " + std::to_string(me_) + " state";
  ManagerState s;
  checkpoint::decode_versioned_between(bytes, kOldestFormatVersion, kFormatVersion, what, s);
  for (const auto& feed : s.feeds) {
    if (!assigned_.count(std::get<0>(feed))) {
      throw std::invalid_argument(what + ": a baseline feed of rank " +
                                  std::to_string(std::get<0>(feed)) +
                                  ", which this manager does not serve");
    }
  }
  replay_.restore_state(buffer::decode_table_state(s.table, what));
  scorer_->restore_state(s.scorer);
  baseline_.restore({s.baseline_ema, s.baseline_global});
  limiter_.restore_counts(s.limiter_inserts, s.limiter_samples);
  modes_seen_ = std::move(s.modes_seen);
  feeds_.clear();
  for (const auto& [rank, last, updates] : s.feeds) feeds_[rank] = Feed{last, updates};
  last_reported_ = s.last_reported;
  last_report_at_ = s.last_report_at;
  elapsed_before_ = s.elapsed_s - seconds_since(started_);
  result_ = std::move(s.result);
  if (timing_ && !s.timing.empty()) {
    checkpoint::decode_versioned(s.timing, timing::TimingTable::kFormatVersion,
                                 what + " (timing table)", *timing_);
  }
}

}  // namespace gfn::roles
