// Trains a Learner for a few iterations and exports it with roles::export_model
// (roles/trainer/model_export.h), for the Python check of run_export_check.sh:
//   export_example CONFIG OUT_DIR ITERATIONS [key=value ...]   (--set overrides)
// Exit code 0 when the three files are written, 1 on an error (printed).

#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "roles/experiment/experiment.h"
#include "roles/trainer/model_export.h"
#include "runtime/gfn/learner.h"
#include "runtime/output/run_output.h"

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: export_example CONFIG OUT_DIR ITERATIONS [key=value ...]\n");
    return 2;
  }
  try {
    const std::vector<std::string> sets(argv + 4, argv + argc);
    auto config = gfn::roles::load_config(argv[1], sets);
    config.output.dir = argv[2];
    gfn::output::ensure_directory(config.output.dir);
    gfn::core::Learner learner(config.env, config.model, config.train, config.train.seed,
                               config.replay, config.engine);
    for (int i = 0; i < std::stoi(argv[3]); ++i) learner.train_iteration(config.train.batch_size);
    gfn::roles::export_model(learner, config);
    std::printf("export_example: exported to %s\n", config.output.dir.c_str());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "export_example: error: %s\n", e.what());
    return 1;
  }
}
