#include "runtime/checkpoint/manifest.h"

#include <nlohmann/json.hpp>

#include "runtime/checkpoint/atomic_file.h"
#include "runtime/checkpoint/checksum.h"

namespace gfn::checkpoint {

Manifest make_manifest(std::int64_t iteration, const std::string& config_text, int world_size,
                       std::vector<std::string> roles) {
  Manifest m;
  m.iteration = iteration;
  m.config_text = config_text;
  m.config_hash = hex32(crc32_of(config_text));
  m.world_size = world_size;
  m.roles = std::move(roles);
  return m;
}

std::string manifest_to_json(const Manifest& m) {
  nlohmann::json files = nlohmann::json::array();
  for (const auto& f : m.files) {
    files.push_back(
        {{"rank", f.rank}, {"name", f.name}, {"bytes", f.bytes}, {"crc32", hex32(f.crc32)}});
  }
  const nlohmann::json j = {{"format_version", m.format_version},
                            {"iteration", m.iteration},
                            {"config_hash", m.config_hash},
                            {"config", m.config_text},
                            {"world_size", m.world_size},
                            {"roles", m.roles},
                            {"files", files}};
  return j.dump(2) + "\n";
}

Manifest parse_manifest(const std::string& text, const std::string& path) {
  Manifest m;
  try {
    const auto j = nlohmann::json::parse(text);
    m.format_version = j.at("format_version").get<int>();
    if (m.format_version != kFormatVersion) {
      throw CheckpointError("checkpoint manifest '" + path + "' has format version " +
                            std::to_string(m.format_version) + ", this build reads version " +
                            std::to_string(kFormatVersion));
    }
    m.iteration = j.at("iteration").get<std::int64_t>();
    m.config_hash = j.at("config_hash").get<std::string>();
    m.config_text = j.at("config").get<std::string>();
    m.world_size = j.at("world_size").get<int>();
    m.roles = j.at("roles").get<std::vector<std::string>>();
    for (const auto& f : j.at("files")) {
      FileEntry e;
      e.rank = f.at("rank").get<int>();
      e.name = f.at("name").get<std::string>();
      e.bytes = f.at("bytes").get<std::uint64_t>();
      e.crc32 =
          static_cast<std::uint32_t>(std::stoul(f.at("crc32").get<std::string>(), nullptr, 16));
      if (e.name.empty() || e.name.find('/') != std::string::npos) {
        throw CheckpointError("checkpoint manifest '" + path + "': bad file name '" + e.name + "'");
      }
      m.files.push_back(std::move(e));
    }
  } catch (const CheckpointError&) {
    throw;
  } catch (const std::exception& e) {
    throw CheckpointError("checkpoint manifest '" + path + "' is not valid: " + e.what());
  }
  if (hex32(crc32_of(m.config_text)) != m.config_hash) {
    throw CheckpointError("checkpoint manifest '" + path +
                          "' is corrupted: its config does not match config_hash");
  }
  return m;
}

}  // namespace gfn::checkpoint
