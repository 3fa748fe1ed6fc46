#pragma once
// An in-process transport::Group whose members are threads of one process (as c10d's
// ProcessGroupGloo tests run ranks as threads, /work/shared/STYLE.md), for the spawn
// policies' unit tests: ThreadWorld(n).run(fn) runs fn(r) on n threads, member(r) being
// group rank r. barrier, broadcast, all_reduce (every ReduceOp; kAvg divides by the size,
// integer division for integer dtypes) and all_gather block until every member has called
// the same collective, at most 30 s (then transport::TimeoutError naming the collective).
// Members' global ranks: 0..n-1 unless given.
//
// Thread-safety: every member from its own thread; the world is shared.

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "transport/transport.h"

namespace gfn::roles::spawn_test {

class ThreadWorld {
 public:
  explicit ThreadWorld(int size, std::vector<int> global_ranks = {});
  ~ThreadWorld();
  ThreadWorld(const ThreadWorld&) = delete;
  ThreadWorld& operator=(const ThreadWorld&) = delete;

  int size() const;
  transport::Group& member(int rank);
  /// Runs fn(rank) for every rank, one thread each, and joins them; rethrows the first
  /// exception a thread threw.
  void run(const std::function<void(int rank)>& fn);
  /// Collectives completed so far (each counted once, not once per member).
  std::int64_t collectives() const;

  struct State;

 private:
  std::shared_ptr<State> state_;
  std::vector<std::unique_ptr<transport::Group>> members_;
};

}  // namespace gfn::roles::spawn_test
