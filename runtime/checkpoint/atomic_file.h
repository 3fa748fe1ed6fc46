#pragma once
// Whole-file reads and atomic writes for checkpoints (runtime/checkpoint/store.h).
//
// write_file_atomic: the bytes go to `<path>.tmp` in the same directory, which is fsynced,
// renamed over `path` (rename(2) is atomic within a file system) and the directory fsynced,
// so a process killed at any point leaves either the old file, or the new one complete —
// never a partial `path` (a stale `.tmp` may remain; it is never read).
//
// Errors: CheckpointError (store.h is not needed: declared here) naming the path and the
// failing system call. Blocking (disk I/O); thread-compatible (distinct paths per thread).
// Cost: O(bytes) plus two fsyncs.

#include <stdexcept>
#include <string>
#include <string_view>

namespace gfn::checkpoint {

/// Any checkpoint failure: an unreadable, truncated or corrupted file, a missing
/// checkpoint, a write error. what() names the file.
class CheckpointError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Writes `bytes` to `path` atomically (see above). Throws CheckpointError.
void write_file_atomic(const std::string& path, std::string_view bytes);
/// The whole content of `path`. Throws CheckpointError if it cannot be opened or read.
std::string read_whole_file(const std::string& path);

}  // namespace gfn::checkpoint
