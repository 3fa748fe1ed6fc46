// gfn-train: the trainer binary. Every rank of a job runs it with the same YAML
// experiment; the role planner decides what each rank does.
//
//   build/bin/gfn-train --config configs/hypergrid_2d.yaml            # world of one
//   tools/mpirun.sh -np 4 build/bin/gfn-train --config configs/hypergrid_demo.yaml
//   ... --set train.batch_size=256 --set output.dir=runs/x            # overrides
//   build/bin/gfn-train --resume runs/hypergrid_2d --set train.n_trajectories=64000
//                                       # continue from the latest checkpoint of a run
//   build/bin/gfn-train --print-schema  # every key (docs/configuration.md)
//   build/bin/gfn-launch -n 4 --max-restarts 3 -- build/bin/gfn-train --config ...
//                # after a restart, continues from the newest valid checkpoint of output.dir
//
// Exit codes: 0 success, 2 bad command line / config / layout / launch environment
// (refused before any communication), 1 any failure while running.

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cstdio>
#include <exception>
#include <optional>

#include "roles/context/distributed_context.h"
#include "roles/experiment/experiment.h"
#include "roles/job/restart.h"
#include "roles/run_job.h"
#include "runtime/checkpoint/store.h"
#include "runtime/config/cli.h"
#include "runtime/gfn/env/environment.h"
#include "runtime/gfn/env/plugin_loader.h"
#include "runtime/gfn/env/registry.h"
#include "runtime/launch/explicit_launch.h"
#include "runtime/launch/hostname.h"
#include "runtime/launch/launch_env.h"
#include "runtime/log/logging.h"
#include "runtime/process/blas_kernels.h"
#include "runtime/process/malloc_tuning.h"
#include "runtime/python/python_environment.h"

int main(int argc, char** argv) {
  using namespace gfn;
  roles::ExperimentConfig config;
  launch::LaunchEnv launch_env;
  std::optional<checkpoint::OpenedCheckpoint> resume;
  std::optional<roles::RestartRecord> restart;
  log::setup_startup_logging("gfn-train");
  python::install();  // env.python, env.reward_python (runtime/python/python_environment.h)
  try {
    const auto cli = config::parse_command_line(argc, argv);
    if (cli.exit_now) return cli.exit_code;  // --help, or a command-line error (printed)
    if (cli.print_schema) {                  // docs/configuration.md
      std::fputs(roles::configuration_reference().c_str(), stdout);
      return 0;
    }
    if (cli.resume.empty()) {
      config = roles::load_config(cli.config_path, cli.overrides);
    } else {
      // docs/checkpoints.md "Checkpoint and resume": the checkpoint (verified) brings the config;
      // --set may change only the resumable options.
      resume = checkpoint::open_checkpoint_to_resume(cli.resume);
      config = roles::resume_config(resume->config_path(), cli.overrides);
      // The run continues in the run directory it is resumed from, wherever it was moved or
      // copied to (not in the output.dir of its config, which may name the original or be
      // relative to another working directory).
      const auto run_dir = checkpoint::run_directory_of(resume->directory);
      if (!run_dir.empty() && run_dir != checkpoint::normal_directory(config.output.dir)) {
        config.output.dir = run_dir;
      }
      // A checkpoint at the last iteration resumes: the job trains nothing and writes its
      // final files and summary (it was stopped before them).
      if (config.iterations() < resume->manifest.iteration) {
        throw config::ConfigError(
            "--resume: the checkpoint is after iteration " +
            std::to_string(resume->manifest.iteration) + " and train.n_trajectories gives " +
            std::to_string(config.iterations()) +
            " iterations: set a larger train.n_trajectories (--set train.n_trajectories=N)");
      }
    }
    // Process set-up from `engine:` (engine_options.h), before MPI or LibTorch start:
    // OpenBLAS's kernel set and OpenMP's wait policy (may re-exec with OPENBLAS_CORETYPE /
    // OMP_WAIT_POLICY or GOMP_SPINCOUNT set, runtime/process/blas_kernels.h), then malloc
    // thresholds that keep tensor buffers in the heap.
    runtime::set_library_environment(
        config.engine.blas_kernels == core::BlasKernels::kAuto, config.train.num_threads,
        core::gemms_on_openmp_threads(config.engine, config.train.num_threads), argc, argv);
    runtime::tune_malloc_for_training(config.engine.malloc_tune);
    // env.plugin, env.reward_model, env.python and env.reward_python: loaded and checked on
    // every rank before any communication (after the set-up, whose re-exec would load them
    // twice); a reward model or Python reward runs on a probe batch of the environment's states.
    core::resolve_environment_plugin(config.env, config.source_file.empty()
                                                     ? "--set"
                                                     : "config file '" + config.source_file + "'");
    python::resolve_python_path(config.env, config.source_file);
    if (!config.env.reward_model.empty() || !config.env.python.empty() ||
        !config.env.reward_python.empty()) {
      core::make_environment(config.env);
    }
    if (cli.print_config) {
      std::printf("%s\n", roles::to_yaml(config).c_str());
      return 0;
    }
    launch_env = launch::detect_launch_env(config.launch);  // `launch:` values first
    log::setup_logging(launch_env.rank, "starting");
    // Which process is which rank: a launcher that cannot tell (Open MPI reports "PID 0" for
    // a rank killed by a signal) reads it here (tools/mpirun-restart.sh).
    spdlog::info("pid {} on host {}", static_cast<long>(getpid()), launch::local_hostname());
    if (!resume && launch_env.restart_count > 0) {
      // docs/checkpoints.md "Automatic restart": the newest valid checkpoint of output.dir.
      restart.emplace();
      resume = roles::restart_checkpoint(config, launch_env, &*restart);
    }
    // Refuse an impossible layout, or a checkpoint of another one, before any communication.
    const auto layout = roles::plan_from_config(config, launch_env.world_size);
    if (resume) {
      roles::check_resumable(*resume, layout,
                             !roles::plan_uses_hostnames(config, launch_env.world_size));
    }
    if (launch_env.rank == 0) {  // docs/checkpoints.md "Automatic restart": restarts.jsonl
      roles::note_restart(config.output.dir, !resume && !restart, restart ? &*restart : nullptr);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gfn-train: error: %s\n", e.what());
    return 2;
  }
  try {
    return roles::run_job(config, launch_env, resume ? &*resume : nullptr);
  } catch (const std::exception& e) {
    spdlog::critical("gfn-train failed on rank {}: {}", launch_env.rank, e.what());
    std::fflush(nullptr);
    return 1;
  }
}
