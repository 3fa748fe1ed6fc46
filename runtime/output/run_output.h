#pragma once
// Files a run writes into its output directory (`output.dir`): summary.json
// (final metrics, nlohmann::json) and metrics.csv (one row per validation).
// Not thread-safe; written by trainer rank 0 of the trainer group only.

#include <nlohmann/json.hpp>

#include <fstream>
#include <string>
#include <vector>

namespace gfn::output {

/// Creates `dir` (and parents) if needed. Throws std::runtime_error naming the
/// directory if it cannot be created.
void ensure_directory(const std::string& dir);

/// Writes `value` pretty-printed to `path` (overwrites). Throws
/// std::runtime_error naming the path on failure.
void write_json(const std::string& path, const nlohmann::json& value);

/// Writes `text` to `path` (overwrites). Throws std::runtime_error naming the path.
void write_text(const std::string& path, const std::string& text);

/// A CSV file with a fixed header; each append() writes one row and flushes.
class CsvWriter {
 public:
  /// Truncates `path` and writes the header; with `append` (a resumed run, README
  /// "Checkpoint and resume") keeps an existing file's rows and appends after them (the
  /// header only if the file is new or empty). Throws std::runtime_error on failure.
  CsvWriter(const std::string& path, std::vector<std::string> columns, bool append = false);
  /// `values` must have one entry per column (std::invalid_argument otherwise);
  /// an empty string leaves the cell empty.
  void append(const std::vector<std::string>& values);
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::vector<std::string> columns_;
  std::ofstream out_;
};

}  // namespace gfn::output
