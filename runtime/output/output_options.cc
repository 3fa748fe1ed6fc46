#include "runtime/output/output_options.h"

#include "runtime/config/fields.h"

namespace gfn::output {

const config::Fields<OutputOptions>& output_fields() {
  using O = OutputOptions;
  static const auto fields =
      config::Fields<O>()
          .add("dir", &O::dir,
               "The run directory: summary.json, config.yaml, metrics.csv, the model and the "
               "plots go here.",
               config::non_empty())
          .add("log_every", &O::log_every,
               "Iterations between progress log lines and training.csv rows.", config::at_least(1),
               {"iterations", true})
          .add("plots", &O::plots,
               "At the end, trainer rank 0 draws the run's figures with tools/gfn-plot "
               "(matplotlib).")
          .add("progress", &O::progress,
               "Trainer rank 0's progress display: bar (one line redrawn on stderr), lines (a "
               "log line every output.progress_every_s), auto (bar on a terminal, else lines; "
               "bar off a terminal is lines too), off.",
               config::AsInvalid{}, {"", true})
          .add("progress_every_s", &O::progress_every_s,
               "Seconds between progress lines (progress: lines).", config::positive(), {"s", true})
          .add("export", &O::export_model,
               "At the end, trainer rank 0 writes the trained estimators for PyTorch / torchgfn "
               "(model_state_dict.pt, model.json, model_check.pt).");
  return fields;
}

}  // namespace gfn::output
