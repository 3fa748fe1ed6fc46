#include "runtime/config/resume.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace gfn::config {

void refuse_non_resumable(const std::vector<std::string>& differing,
                          const std::vector<std::string>& resumable,
                          const std::string& checkpoint_config_path) {
  std::vector<std::string> refused;
  for (const auto& key : differing) {
    if (std::find(resumable.begin(), resumable.end(), key) == resumable.end()) {
      refused.push_back(key);
    }
  }
  if (refused.empty()) return;
  throw ConfigError(fmt::format(
      "--resume: the checkpoint's config '{}' differs in {}; a resumed run may change only {}",
      checkpoint_config_path, fmt::join(refused, ", "), fmt::join(resumable, ", ")));
}

}  // namespace gfn::config
