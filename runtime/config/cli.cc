#include "runtime/config/cli.h"

#include <CLI/CLI.hpp>

namespace gfn::config {

void add_config_options(CLI::App& app, CommandLine& cl) {
  app.add_option("--config", cl.config_path, "YAML experiment file (default: built-in defaults)")
      ->check(CLI::ExistingFile);
  app.add_option("--set", cl.overrides,
                 "Override one key, e.g. --set train.batch_size=64 (repeatable; last wins)")
      ->take_all()
      ->allow_extra_args(false)
      ->check(
          [](const std::string& s) -> std::string {
            const auto eq = s.find('=');
            if (eq == std::string::npos || eq == 0 || s.find('.') > eq) {
              return "expected section.key=value, got '" + s + "'";
            }
            return "";
          },
          "section.key=value");
  app.add_flag("--print-config", cl.print_config, "Print the effective configuration and exit");
  app.add_flag("--print-schema", cl.print_schema,
               "Print the reference of every configuration key (Markdown, as "
               "docs/configuration.md) and exit");
}

CommandLine parse_command_line(int argc, const char* const* argv, const std::string& program,
                               std::ostream& out, std::ostream& err) {
  CommandLine cl;
  CLI::App app("Trains a GFlowNet across trainer, buffer-manager and coordinator ranks.", program);
  app.footer(
      "Without a launcher: a world of one (one trainer). Several ranks: tools/mpirun.sh -np N "
      "build/bin/gfn-train ... (docs/launchers.md \"Backends\"). Every key: "
      "docs/configuration.md \"Configuration reference\" (--print-schema); what a run writes: "
      "docs/outputs.md \"The run directory\".");
  add_config_options(app, cl);
  app.add_option("--resume", cl.resume,
                 "Continue from a checkpoint: a run directory (its latest checkpoint) or one "
                 "checkpoint directory; the config comes from it, --set may change only the "
                 "resumable options (docs/checkpoints.md \"Resume\")")
      ->check(CLI::ExistingDirectory)
      ->excludes("--config");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    cl.exit_now = true;
    cl.exit_code = app.exit(e, out, err);
  }
  return cl;
}

}  // namespace gfn::config
