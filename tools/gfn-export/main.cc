// gfn-export: the export of output.export (docs/export.md "Export to PyTorch and torchgfn") for a
// finished run. Rebuilds the model from the run's config.yaml, copies in the trained
// parameters the run left in model.pt (roles/trainer/final_model.h) and writes
// model_state_dict.pt, model.json and model_check.pt (roles/trainer/model_export.h; a Box run's
// under torchgfn's Box estimator names).
//
//   build/bin/gfn-export runs/hypergrid_2d                 # into the run directory
//   build/bin/gfn-export runs/hypergrid_2d --out exported  # elsewhere
//
// Exit codes: 0 success, 2 bad command line, 1 a file that cannot be read or written, or a
// config.yaml that does not describe the model in model.pt (the message names the file).

#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>
#include <string>

#include "roles/experiment/experiment.h"
#include "roles/trainer/final_model.h"
#include "roles/trainer/model_export.h"
#include "runtime/gfn/agent.h"
#include "runtime/gfn/continuous/learner.h"
#include "runtime/gfn/learner.h"
#include "runtime/output/run_output.h"
#include "runtime/process/blas_kernels.h"
#include "runtime/python/python_environment.h"

int main(int argc, char** argv) {
  using namespace gfn;
  std::string run_dir;
  std::string out_dir;
  CLI::App app{"gfn-export: write a finished run's model for PyTorch / torchgfn"};
  app.footer(
      "Writes model_state_dict.pt, model.json and model_check.pt from the run's config.yaml and "
      "model.pt. Exit code 1 when a file cannot be read or written, 2 on a bad command line. "
      "See docs/export.md \"gfn-export\".");
  app.add_option("run_dir", run_dir, "run directory (config.yaml and model.pt)")->required();
  app.add_option("--out", out_dir, "output directory (default: the run directory)");
  CLI11_PARSE(app, argc, argv);
  if (out_dir.empty()) out_dir = run_dir;
  python::install();  // a run of a Python environment (env.python; config.yaml has its path)
  try {
    auto config = roles::load_config(run_dir + "/config.yaml", {});
    // OpenBLAS's kernel set as the run's gfn-train chose it (engine.blas_kernels; may re-exec
    // with OPENBLAS_CORETYPE set), so model_check.pt's forward uses the same kernels as the
    // trainer's and equals its bit for bit (on a CPU whose kernels OpenBLAS 0.3.21 does not
    // recognise, its own guess rounds differently).
    runtime::set_library_environment(config.engine.blas_kernels == core::BlasKernels::kAuto, 1,
                                     false, argc, argv);
    config.output.dir = out_dir;
    config.model.init_from.clear();  // the run's starting point: model.pt supersedes it
    output::ensure_directory(out_dir);
    // A Learner, or a ContinuousLearner for a continuous environment (Box).
    const auto agent = core::make_agent(config.env, config.model, config.train, config.train.seed,
                                        config.replay, config.engine);
    roles::read_final_model(*agent, run_dir + "/" + roles::kFinalModelFile);
    if (agent->continuous()) {
      roles::export_model(*agent->continuous(), config);
    } else {
      roles::export_model(*agent->discrete(), config);
    }
    std::printf("gfn-export: wrote model_state_dict.pt, model.json, model_check.pt into %s\n",
                out_dir.c_str());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gfn-export: error: %s\n", e.what());
    return 1;
  }
}
