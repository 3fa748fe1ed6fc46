#pragma once
// Experiment configuration: a YAML file (yaml-cpp) read into the typed structs of
// runtime/config/options.h, then `--set section.key=value` overrides, then
// validation (README "Configuration"). Precedence: defaults < file < overrides (in
// command-line order; the last --set of a key wins).
//
// The loader is table-driven: config.cc holds one registry line per field (YAML
// key, member pointer, validation rule); a field added to options.h needs one
// line there.

#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/config/options.h"

namespace gfn::config {

/// A configuration that cannot be used. The message names the key, where it came
/// from (the file, with its line, or the `--set` assignment) and the offending
/// value: unknown section or key, wrong type, impossible value, unreadable file,
/// YAML syntax error, malformed override.
class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The defaults of options.h (the demo's), validated.
ExperimentConfig default_config();

/// Reads `path` (empty: no file, defaults only), applies `overrides` (each
/// "section.key=value"; the value is read as a YAML scalar of the field's type),
/// validates, and sets source_file = path. Throws ConfigError.
ExperimentConfig load_config(const std::string& path,
                             const std::vector<std::string>& overrides = {});

/// Checks every field's rule (e.g. train.batch_size > 0, env.height >= 2,
/// transport.backend in {mpi, torch}). Throws ConfigError naming the first bad key
/// and value, and `source` (e.g. the file) in the message.
void validate_config(const ExperimentConfig& config, const std::string& source = "");

/// The effective configuration as YAML (every key, in registry order), for the run
/// directory. load_config of this text gives back an equal configuration.
std::string to_yaml(const ExperimentConfig& config);

/// Every known key ("layout.num_buffers", ...), in registry order.
std::vector<std::string> config_keys();

}  // namespace gfn::config
