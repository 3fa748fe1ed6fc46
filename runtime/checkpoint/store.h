#pragma once
// The checkpoints of one run on disk (docs/checkpoints.md "Checkpoint and resume"):
//
//   <output.dir>/checkpoints/iteration_00000250/rank_0.pt   one file per rank with state
//                                              rank_1.pt
//                                              config.yaml    the manifest's config text
//                                              manifest.json  written last (manifest.h)
//
// Writing: every rank writes its own file with write_rank_file (atomic: atomic_file.h) and
// reports the FileEntry; then ONE process (rank 0) commits the manifest, which makes the
// checkpoint exist, and rotates: only the latest checkpoint.keep complete checkpoints stay,
// and incomplete directories older than the newest complete one (a job killed between rank
// files and manifest) are removed. A kill at any point therefore leaves the previous
// complete checkpoint readable.
//
// Reading: open_checkpoint accepts a run directory (its checkpoints/ folder), a folder of
// checkpoints, or one checkpoint directory; it takes the complete checkpoint with the highest
// iteration, parses its manifest and verifies every listed file (size and CRC-32), so a
// truncated or corrupted file is refused before anything is restored, naming the file.
//
// Errors: CheckpointError (atomic_file.h) naming the file or directory. Blocking (disk I/O).
// Thread-compatible. Cost: O(bytes of the checkpoint) per write or open.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/checkpoint/atomic_file.h"
#include "runtime/checkpoint/manifest.h"

namespace gfn::checkpoint {

/// "iteration_00000250".
std::string checkpoint_dir_name(std::int64_t iteration);
/// "rank_3.pt".
std::string rank_file_name(int rank);
/// `<output_dir>/checkpoints`.
std::string checkpoints_root(const std::string& output_dir);
/// `path` absolute (against the current directory), lexically normal, without a trailing
/// slash: two names of one directory compare equal (symbolic links aside).
std::string normal_directory(const std::string& path);
/// The run directory a checkpoint directory belongs to (`<run>/checkpoints/iteration_N` ->
/// normal_directory(`<run>`)), or "" when its parent folder is not named "checkpoints".
/// Path arithmetic only.
std::string run_directory_of(const std::string& checkpoint_directory);

class CheckpointStore {
 public:
  /// `root`: the folder of checkpoints (checkpoints_root); `keep` >= 1 (std::invalid_argument).
  CheckpointStore(std::string root, int keep);
  /// The directory of the checkpoint at `iteration` (may not exist yet).
  std::string directory(std::int64_t iteration) const;
  /// Writes rank `rank`'s bytes for `iteration` atomically (the directory is created).
  /// Returns its manifest entry. Throws CheckpointError.
  FileEntry write_rank_file(std::int64_t iteration, int rank, std::string_view bytes) const;
  /// Writes manifest.json of `m.iteration` (atomically, after the rank files), then rotates.
  /// Returns the checkpoint directory. Throws CheckpointError.
  std::string commit(const Manifest& m) const;
  /// Iterations of the complete checkpoints under root, ascending.
  std::vector<std::int64_t> complete_iterations() const;

 private:
  void rotate() const;
  std::string root_;
  int keep_;
};

/// A checkpoint whose manifest was parsed and whose files were verified.
struct OpenedCheckpoint {
  std::string directory;
  Manifest manifest;
  /// The path of rank `rank`'s file; CheckpointError if the manifest lists none.
  std::string rank_file(int rank) const;
  /// `<directory>/config.yaml`: the manifest's config text as a file (verified equal).
  std::string config_path() const;
};

/// See the header comment. Throws CheckpointError when `path` holds no complete checkpoint,
/// or its manifest or a listed file is missing, truncated or corrupted (naming the file).
OpenedCheckpoint open_checkpoint(const std::string& path);
/// open_checkpoint for `--resume <path>` (docs/checkpoints.md "Checkpoint and resume"):
/// `path` made absolute (so are the paths of its messages), and a refusal of a damaged
/// checkpoint names the remedy: the newest older checkpoint under the same folder that
/// verifies (the one open_newest_valid_checkpoint, an automatic restart, would take) and
/// "--resume <its directory>", or that no older one verifies. Throws CheckpointError. Cost:
/// open_checkpoint's, plus opening the older checkpoints until one verifies after a refusal.
OpenedCheckpoint open_checkpoint_to_resume(const std::string& path);
/// Rank `rank`'s file, read and verified again against the manifest (size and CRC-32: a
/// file changed after open_checkpoint is refused too). Throws CheckpointError.
std::string read_rank_file(const OpenedCheckpoint& checkpoint, int rank);

/// The newest complete checkpoint under `path` (a run directory or a folder of checkpoints)
/// that opens and verifies, for an automatic restart (docs/checkpoints.md "Automatic
/// restart"): a newest one that is refused (a rank file truncated, corrupted or missing, a
/// manifest unreadable) is skipped for the previous one, and each skipped checkpoint is
/// appended to `skipped` as "<directory>: <why>". nullopt when `path` holds no complete
/// checkpoint that verifies (or does not exist). Never throws CheckpointError.
std::optional<OpenedCheckpoint> open_newest_valid_checkpoint(const std::string& path,
                                                             std::vector<std::string>* skipped);

}  // namespace gfn::checkpoint
