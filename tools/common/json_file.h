#pragma once
// Reading the JSON files gfn-train writes (summary.json, buffer_manager_<rank>.json;
// roles/run_job.cc) for the tools that run it (tools/quality-matrix,
// tools/gfn-bench-scaling): every error names the file and the key.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace gfn::tools {

/// Parses the JSON file `path`. Throws std::runtime_error naming the file when it cannot
/// be opened or is not valid JSON.
nlohmann::json read_json_file(const std::string& path);

/// j[key] as a number. Throws std::runtime_error "<path>: key '<key>' is missing or not a
/// number" when it is absent, null or not a number (`path` only names the file).
double number_at(const nlohmann::json& j, const std::string& key, const std::string& path);

/// j[key] as a number, or nullopt when the key is absent or null (a field older gfn-train
/// binaries do not write). Throws like number_at when it is present but not a number.
std::optional<double> optional_number_at(const nlohmann::json& j, const std::string& key,
                                         const std::string& path);

}  // namespace gfn::tools
