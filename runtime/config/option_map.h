#pragma once
// A mapping of option names to values, the value type of an option whose keys are defined
// by someone else than the program (env.options: an environment plugin's options, checked
// by the plugin's own schema, runtime/gfn/env/plugin_loader.h). Each value is kept as the
// text of its YAML scalar ("4", "0.5", "true", "abc"), ordered by key. In a file:
// `options: {size: 6, beta: 2}`; on the command line `--set env.options.size=6` sets one
// entry and `--set 'env.options={size: 6}'` replaces the whole map. Header-only.

#include <map>
#include <string>

namespace gfn::config {

using OptionMap = std::map<std::string, std::string>;

}  // namespace gfn::config
