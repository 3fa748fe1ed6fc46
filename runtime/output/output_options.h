#pragma once
// YAML `output:`: the run directory and what trainer rank 0 shows and writes
// (docs/configuration.md; run_output.h, progress.h, plots.h). Plain value types.

#include <string>

#include "runtime/config/enum_names.h"

namespace gfn::config {
template <class S>
class Fields;
}

namespace gfn::output {

/// output.progress: how trainer rank 0 shows progress (progress.h).
enum class ProgressMode {
  kAuto,   ///< bar on a terminal (stderr is a tty), else lines
  kBar,    ///< one line updated in place
  kLines,  ///< a line every output.progress_every_s seconds
  kOff,
};
inline constexpr config::EnumName<ProgressMode> kProgressModeNames[] = {
    {ProgressMode::kAuto, "auto"},
    {ProgressMode::kBar, "bar"},
    {ProgressMode::kLines, "lines"},
    {ProgressMode::kOff, "off"}};
inline constexpr const auto& enum_names(ProgressMode) { return kProgressModeNames; }

struct OutputOptions {
  std::string dir = "runs/latest";  ///< summary.json, metrics.csv, ... go here
  int log_every = 10;               ///< iterations between progress lines
  /// At the end, trainer rank 0 runs tools/gfn-plot on `dir` (plots.h).
  bool plots = false;
  ProgressMode progress = ProgressMode::kAuto;  ///< trainer rank 0's progress display
  double progress_every_s = 10.0;               ///< seconds between progress lines (lines mode)
  /// At the end, trainer rank 0 writes the trained estimators as a torchgfn state dict
  /// (roles/trainer/model_export.h).
  bool export_model = false;
};

/// The `output:` keys (output_options.cc).
const config::Fields<OutputOptions>& output_fields();

}  // namespace gfn::output
