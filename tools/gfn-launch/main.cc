// gfn-launch: start N local processes torchrun-style (standalone mode).
//   gfn-launch -n 4 [--master-port P] [--max-restarts N] -- build/bin/gfn-train --config x.yaml
// See tools/gfn-launch/launcher.h for the environment, output and exit-code rules.

#include <CLI/CLI.hpp>
#include <iostream>

#include "tools/gfn-launch/launcher.h"

int main(int argc, char** argv) {
  gfn::launch_tool::LaunchOptions opts;
  CLI::App app{
      "Start N local processes with RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, "
      "MASTER_ADDR and MASTER_PORT set (like torchrun --standalone)."};
  app.footer(
      "Example: gfn-launch -n 4 -- build/bin/gfn-train --config configs/hypergrid_demo.yaml "
      "--set transport.backend=torch. See docs/launchers.md \"gfn-launch\".");
  std::string hosts;
  auto* nproc = app.add_option("-n,--nproc-per-node", opts.nproc, "number of processes")
                    ->check(CLI::Range(1, 4096));
  app.add_option("--hosts", hosts,
                 "simulated hosts NAME:RANKS,... (e.g. a:8,b:8): per host LOCAL_RANK, "
                 "LOCAL_WORLD_SIZE, GROUP_RANK and GFN_HOSTNAME; -n defaults to their sum")
      ->group("Options");
  app.add_option("--master-port", opts.master_port, "MASTER_PORT (default: a free port)")
      ->check(CLI::Range(1, 65535));
  app.add_option("--master-addr", opts.master_addr, "MASTER_ADDR")->capture_default_str();
  app.add_option("--kill-grace", opts.kill_grace_s,
                 "seconds between SIGTERM and SIGKILL when stopping the other ranks")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--max-restarts", opts.max_restarts,
                 "restart the whole world this many times after a failure; gfn-train then "
                 "continues from its newest valid checkpoint (docs/checkpoints.md)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option(
         "--restart-backoff", opts.restart_backoff_s,
         "seconds before the first restart, doubled for each next one after an attempt shorter "
         "than 60 s (at most 60)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--restart-reset", opts.restart_reset_s,
                 "an attempt that ran this many seconds starts the backoff's doubling again")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--job-token", opts.job_token,
                 "GFN_JOB_TOKEN of every rank, checked at the torch backend's rendezvous "
                 "(default: a random one; docs/security.md)");
  app.add_option("command", opts.command, "program and its arguments (after --)")->required();
  CLI11_PARSE(app, argc, argv);
  try {
    if (!hosts.empty()) {
      opts.hosts = gfn::launch_tool::parse_hosts(hosts);
      int total = 0;
      for (const auto& h : opts.hosts) total += h.ranks;
      if (nproc->count() > 0 && opts.nproc != total) {
        throw std::invalid_argument("gfn-launch: -n " + std::to_string(opts.nproc) +
                                    " differs from the " + std::to_string(total) +
                                    " ranks of --hosts");
      }
      opts.nproc = total;
    } else if (nproc->count() == 0) {
      throw std::invalid_argument("gfn-launch: -n (or --hosts) is required");
    }
    return gfn::launch_tool::run(opts);
  } catch (const std::exception& e) {
    std::cerr << e.what() << '\n';
    return 2;
  }
}
