#include "runtime/checkpoint/store.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <optional>
#include <stdexcept>

#include "runtime/checkpoint/checksum.h"

namespace gfn::checkpoint {
namespace fs = std::filesystem;
namespace {

constexpr const char* kManifest = "manifest.json";
constexpr const char* kConfig = "config.yaml";
constexpr const char* kPrefix = "iteration_";

/// The iteration of a checkpoint directory name, or nullopt for another name.
std::optional<std::int64_t> iteration_of(const std::string& name) {
  if (name.rfind(kPrefix, 0) != 0) return std::nullopt;
  const auto digits = name.substr(std::string(kPrefix).size());
  if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) {
    return std::nullopt;
  }
  return std::stoll(digits);
}

/// (iteration, complete) of every checkpoint directory under root, ascending.
std::vector<std::pair<std::int64_t, bool>> list(const std::string& root) {
  std::vector<std::pair<std::int64_t, bool>> out;
  std::error_code ec;
  if (!fs::is_directory(root, ec)) return out;
  for (const auto& entry : fs::directory_iterator(root, ec)) {
    if (!entry.is_directory()) continue;
    const auto it = iteration_of(entry.path().filename().string());
    if (it) out.emplace_back(*it, fs::exists(entry.path() / kManifest));
  }
  std::sort(out.begin(), out.end());
  return out;
}

void verify(const std::string& path, const FileEntry& f) {
  const std::string bytes = read_whole_file(path);
  if (bytes.size() != f.bytes) {
    throw CheckpointError("checkpoint file '" + path +
                          "' is truncated or damaged: " + std::to_string(bytes.size()) +
                          " bytes, the manifest says " + std::to_string(f.bytes));
  }
  if (crc32_of(bytes) != f.crc32) {
    throw CheckpointError("checkpoint file '" + path + "' is corrupted: CRC-32 " +
                          hex32(crc32_of(bytes)) + ", the manifest says " + hex32(f.crc32));
  }
}

const FileEntry& entry_of(const OpenedCheckpoint& c, int rank) {
  for (const auto& f : c.manifest.files) {
    if (f.rank == rank) return f;
  }
  throw CheckpointError("checkpoint '" + c.directory + "' has no file for rank " +
                        std::to_string(rank));
}

/// The newest complete checkpoint under the folder of checkpoints `root` whose iteration is
/// below `before` and that opens and verifies; the refused ones are appended to `skipped`.
std::optional<OpenedCheckpoint> newest_valid_before(const std::string& root, std::int64_t before,
                                                    std::vector<std::string>* skipped) {
  const auto all = list(root);
  for (auto it = all.rbegin(); it != all.rend(); ++it) {
    if (!it->second || it->first >= before) continue;  // incomplete: never read
    const std::string dir = root + "/" + checkpoint_dir_name(it->first);
    try {
      return open_checkpoint(dir);
    } catch (const CheckpointError& e) {
      if (skipped) skipped->push_back(dir + ": " + e.what());
    }
  }
  return std::nullopt;
}

/// What follows the refusal of the checkpoint that open_checkpoint(path) chose: the newest
/// older checkpoint that verifies and the --resume that uses it, or that none does; "" when
/// `path` holds no complete checkpoint (the refusal says so).
std::string remedy_after_refusal(const fs::path& path) {
  std::error_code ec;
  fs::path root = path;
  std::optional<std::int64_t> refused;
  if (fs::exists(path / kManifest, ec)) {  // one checkpoint directory
    root = path.parent_path();
    refused = iteration_of(path.filename().string());
  } else {
    if (fs::is_directory(path / "checkpoints", ec)) root = path / "checkpoints";
    for (const auto& [it, complete] : list(root.string())) {
      if (complete) refused = it;
    }
  }
  if (!refused) return "";
  const auto older = newest_valid_before(root.string(), *refused, nullptr);
  if (!older) {
    return "; no older checkpoint under '" + root.string() +
           "' verifies either: start the run again without --resume";
  }
  return "; the newest older checkpoint that verifies (the one an automatic restart would use) "
         "is iteration " +
         std::to_string(older->manifest.iteration) + ": continue from it with --resume " +
         older->directory;
}

}  // namespace

std::string checkpoint_dir_name(std::int64_t iteration) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%s%08lld", kPrefix, static_cast<long long>(iteration));
  return buf;
}

std::string rank_file_name(int rank) { return "rank_" + std::to_string(rank) + ".pt"; }

std::string checkpoints_root(const std::string& output_dir) { return output_dir + "/checkpoints"; }

std::string normal_directory(const std::string& path) {
  auto dir = std::filesystem::absolute(path).lexically_normal();
  if (!dir.has_filename() && dir.has_parent_path() && dir != dir.root_path()) {
    dir = dir.parent_path();  // "a/b/" -> "a/b"
  }
  return dir.string();
}

std::string run_directory_of(const std::string& checkpoint_directory) {
  const std::filesystem::path parent =
      std::filesystem::path(normal_directory(checkpoint_directory)).parent_path();
  if (parent.filename() != "checkpoints") return "";
  return parent.parent_path().string();
}

CheckpointStore::CheckpointStore(std::string root, int keep) : root_(std::move(root)), keep_(keep) {
  if (keep < 1) throw std::invalid_argument("checkpoint.keep must be >= 1");
}

std::string CheckpointStore::directory(std::int64_t iteration) const {
  return root_ + "/" + checkpoint_dir_name(iteration);
}

FileEntry CheckpointStore::write_rank_file(std::int64_t iteration, int rank,
                                           std::string_view bytes) const {
  const auto dir = directory(iteration);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec)
    throw CheckpointError("cannot create checkpoint directory '" + dir + "': " + ec.message());
  FileEntry e;
  e.rank = rank;
  e.name = rank_file_name(rank);
  e.bytes = bytes.size();
  e.crc32 = crc32_of(bytes);
  write_file_atomic(dir + "/" + e.name, bytes);
  return e;
}

std::string CheckpointStore::commit(const Manifest& m) const {
  const auto dir = directory(m.iteration);
  for (const auto& f : m.files) {
    if (!fs::exists(dir + "/" + f.name)) {
      throw CheckpointError("cannot commit checkpoint '" + dir + "': '" + f.name + "' is missing");
    }
  }
  write_file_atomic(dir + "/" + kConfig, m.config_text);
  write_file_atomic(dir + "/" + kManifest, manifest_to_json(m));
  rotate();
  return dir;
}

std::vector<std::int64_t> CheckpointStore::complete_iterations() const {
  std::vector<std::int64_t> out;
  for (const auto& [it, complete] : list(root_)) {
    if (complete) out.push_back(it);
  }
  return out;
}

void CheckpointStore::rotate() const {
  const auto complete = complete_iterations();
  if (complete.empty()) return;
  const std::size_t n_drop =
      complete.size() > static_cast<std::size_t>(keep_) ? complete.size() - keep_ : 0;
  const std::int64_t newest = complete.back();
  for (const auto& [it, is_complete] : list(root_)) {
    const bool old_complete = is_complete && it < complete[n_drop];
    const bool stale_partial = !is_complete && it < newest;
    if (!old_complete && !stale_partial) continue;
    std::error_code ec;
    // The manifest first, so a kill during removal leaves an incomplete (ignored) directory.
    fs::remove(fs::path(directory(it)) / kManifest, ec);
    fs::remove_all(directory(it), ec);
  }
}

std::string OpenedCheckpoint::config_path() const { return directory + "/" + kConfig; }

std::string OpenedCheckpoint::rank_file(int rank) const {
  return directory + "/" + entry_of(*this, rank).name;
}

OpenedCheckpoint open_checkpoint(const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) throw CheckpointError("no checkpoint at '" + path + "': no such path");
  std::string dir = path;
  if (!fs::exists(fs::path(path) / kManifest)) {
    std::string root = path;
    if (fs::is_directory(fs::path(path) / "checkpoints")) root = path + "/checkpoints";
    std::optional<std::int64_t> newest;
    for (const auto& [it, complete] : list(root)) {
      if (complete) newest = it;
    }
    if (!newest) {
      throw CheckpointError("no complete checkpoint under '" + path +
                            "' (a checkpoint directory holds manifest.json)");
    }
    dir = root + "/" + checkpoint_dir_name(*newest);
  }
  OpenedCheckpoint c;
  c.directory = dir;
  const std::string manifest_path = dir + "/" + kManifest;
  c.manifest = parse_manifest(read_whole_file(manifest_path), manifest_path);
  for (const auto& f : c.manifest.files) verify(dir + "/" + f.name, f);
  if (read_whole_file(c.config_path()) != c.manifest.config_text) {
    throw CheckpointError("checkpoint file '" + c.config_path() +
                          "' is corrupted: it differs from the config of the manifest");
  }
  return c;
}

std::optional<OpenedCheckpoint> open_newest_valid_checkpoint(const std::string& path,
                                                             std::vector<std::string>* skipped) {
  std::string root = path;
  if (fs::is_directory(fs::path(path) / "checkpoints")) root = path + "/checkpoints";
  return newest_valid_before(root, std::numeric_limits<std::int64_t>::max(), skipped);
}

OpenedCheckpoint open_checkpoint_to_resume(const std::string& path) {
  std::error_code ec;
  fs::path absolute = fs::absolute(path, ec).lexically_normal();
  if (ec) absolute = path;
  if (!absolute.has_filename()) absolute = absolute.parent_path();  // "runs/x/"
  try {
    return open_checkpoint(absolute.string());
  } catch (const CheckpointError& e) {
    throw CheckpointError(std::string(e.what()) + remedy_after_refusal(absolute));
  }
}

std::string read_rank_file(const OpenedCheckpoint& checkpoint, int rank) {
  const auto& f = entry_of(checkpoint, rank);
  const auto path = checkpoint.directory + "/" + f.name;
  std::string bytes = read_whole_file(path);
  if (bytes.size() != f.bytes || crc32_of(bytes) != f.crc32) verify(path, f);  // throws
  return bytes;
}

}  // namespace gfn::checkpoint
