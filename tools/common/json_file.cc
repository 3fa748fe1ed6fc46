#include "tools/common/json_file.h"

#include <fmt/format.h>

#include <fstream>
#include <stdexcept>

namespace gfn::tools {

nlohmann::json read_json_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(fmt::format("{}: cannot open", path));
  nlohmann::json j;
  try {
    in >> j;
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(fmt::format("{}: not valid JSON: {}", path, e.what()));
  }
  return j;
}

double number_at(const nlohmann::json& j, const std::string& key, const std::string& path) {
  if (!j.is_object() || !j.contains(key) || !j.at(key).is_number()) {
    throw std::runtime_error(fmt::format("{}: key '{}' is missing or not a number", path, key));
  }
  return j.at(key).get<double>();
}

std::optional<double> optional_number_at(const nlohmann::json& j, const std::string& key,
                                         const std::string& path) {
  if (!j.is_object() || !j.contains(key) || j.at(key).is_null()) return std::nullopt;
  return number_at(j, key, path);
}

}  // namespace gfn::tools
