#pragma once
// The manifest of one checkpoint (docs/checkpoints.md "Checkpoint and resume"): `manifest.json` in
// the checkpoint's directory, written LAST (runtime/checkpoint/store.h), so a directory without one
// is an incomplete checkpoint and is never read.
//
//   {"format_version": 1, "iteration": 250, "config_hash": "<crc32 of config>",
//    "config": "<the effective YAML experiment>", "world_size": 4,
//    "roles": ["trainer", "trainer", "manager", "coordinator"],
//    "files": [{"rank": 0, "name": "rank_0.pt", "bytes": 12345, "crc32": "0a1b2c3d"}, ...]}
//
// Thread-safe (pure functions); errors are CheckpointError (atomic_file.h) naming the file.

#include <cstdint>
#include <string>
#include <vector>

namespace gfn::checkpoint {

/// Bumped when the content of a manifest or of a rank file changes meaning; a checkpoint of
/// another version is refused.
inline constexpr int kFormatVersion = 1;

/// One rank's file of a checkpoint.
struct FileEntry {
  int rank = 0;
  std::string name;         ///< file name inside the checkpoint directory
  std::uint64_t bytes = 0;  ///< size
  std::uint32_t crc32 = 0;  ///< checksum.h
};

struct Manifest {
  int format_version = kFormatVersion;
  std::int64_t iteration = 0;  ///< iterations completed when the checkpoint was taken
  std::string config_text;     ///< the effective YAML experiment (config::to_yaml)
  std::string config_hash;     ///< hex32(crc32_of(config_text))
  int world_size = 1;
  std::vector<std::string> roles;  ///< per rank: "trainer", "manager", "coordinator"
  std::vector<FileEntry> files;    ///< one per rank that has state, ascending rank
};

/// A manifest for `config_text` at `iteration` (hash filled in, no files yet).
Manifest make_manifest(std::int64_t iteration, const std::string& config_text, int world_size,
                       std::vector<std::string> roles);
/// JSON text of `m` (indented, trailing newline).
std::string manifest_to_json(const Manifest& m);
/// Parses manifest JSON read from `path` (named in errors). Throws CheckpointError for
/// invalid JSON, a missing or mistyped field, another format version, or a config text
/// whose hash differs from config_hash.
Manifest parse_manifest(const std::string& text, const std::string& path);

}  // namespace gfn::checkpoint
