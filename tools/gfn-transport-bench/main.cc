// gfn-transport-bench: latency and bandwidth of the transport backends against raw MPI
// and raw Gloo, and of the trainer -> manager submission pattern, in the style of
// nccl-tests (size sweep, warm-up and timed iterations, every payload checked, one
// table row per size). docs/performance.md "Transport benchmark".
//
//   OMPI_MCA_mpi_yield_when_idle=1 mpirun --allow-run-as-root --oversubscribe
//       --bind-to none -np 2 build/bin/gfn-transport-bench -b 1 -e 64M -f 2 -w 5 -n 100
//
// Methods: raw-mpi, mpi (recv_into, one reused buffer), mpi-fresh (plain recv), raw-gloo,
// torch (recv_into), and the submission pattern.
//
// Shared benchmark flags (tools/common/harness/front.h): --json FILE (every figure, the
// method and the goals), --quick, and --warmup / --repeats for -w / -n.
//
// Exactly 2 ranks on one host. Exit codes: 0 success; 1 a payload was wrong or a
// method failed; 2 bad command line; 3 a transport goal failed (with --require-goals).

#include <fmt/format.h>
#include <mpi.h>
#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tools/common/harness/front.h"
#include "tools/gfn-transport-bench/raw_gloo.h"
#include "tools/gfn-transport-bench/raw_mpi.h"
#include "tools/gfn-transport-bench/report.h"
#include "tools/gfn-transport-bench/sizes.h"
#include "tools/gfn-transport-bench/submission.h"
#include "tools/gfn-transport-bench/sweep.h"
#include "tools/gfn-transport-bench/transport_method.h"
#include "transport/factory.h"

namespace {

using namespace gfn::tbench;
namespace harness = gfn::harness;

const std::string kSubmission = "submission";

struct Options {
  std::size_t min_bytes = 1;
  std::size_t max_bytes = std::size_t{64} << 20;
  std::size_t factor = 2;
  LoopOptions loop;
  SubmissionShape shape;
  std::vector<std::string> methods = {kRawMpi,  kOursMpi,   kOursMpiFresh,
                                      kRawGloo, kOursTorch, kSubmission};
  double timeout_s = 120;
  bool require_goals = false;
};

void add_options(CLI::App& app, harness::Front& front, Options& o) {
  app.add_option("-b,--minbytes", o.min_bytes, "Smallest message size (bytes; K/M suffixes = 1024)")
      ->transform(CLI::AsSizeValue(false))
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 30))
      ->capture_default_str();
  app.add_option("-e,--maxbytes", o.max_bytes, "Largest message size (bytes; K/M suffixes = 1024)")
      ->transform(CLI::AsSizeValue(false))
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 30))
      ->capture_default_str();
  app.add_option("-f,--stepfactor", o.factor, "Multiplication factor between sizes")
      ->check(CLI::Range(std::size_t{2}, std::size_t{1} << 20))
      ->capture_default_str();
  front.add_warmup(o.loop.warmup, "-w,--warmup_iters", "Untimed round trips per size and method");
  front.add_repetitions(o.loop.iters, "-n,--iters", "Timed round trips per size and method");
  app.add_option("-c,--check", o.loop.check, "Check every received payload (0/1)")
      ->capture_default_str();
  app.add_option("-m,--methods", o.methods, "Methods to run (comma-separated)")
      ->delimiter(',')
      ->check(CLI::IsMember({kRawMpi, kOursMpi, kOursMpiFresh, kRawGloo, kOursTorch, kSubmission}))
      ->capture_default_str();
  app.add_option("--submission-states", o.shape.states, "Terminating states per Submission")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  app.add_option("--submission-ndim", o.shape.ndim, "Dimensions of each state")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  app.add_option("--timeout", o.timeout_s, "Receive timeout of every method (seconds)")
      ->check(CLI::Range(0.001, 86400.0))
      ->capture_default_str();
  app.add_flag("--require-goals", o.require_goals, "Exit 3 when a transport goal fails");
}

bool wants(const Options& o, const std::string& method) {
  return std::find(o.methods.begin(), o.methods.end(), method) != o.methods.end();
}

// The MPI library and how its waiting calls wait.
std::string mpi_line() {
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = {0};
  int len = 0;
  MPI_Get_library_version(version, &len);
  std::string v(version, static_cast<std::size_t>(len));
  v = v.substr(0, v.find_first_of(",\n"));
  const char* yield = std::getenv("OMPI_MCA_mpi_yield_when_idle");
  const std::string y = yield ? yield : "unset";
  return fmt::format(
      "{}; OMPI_MCA_mpi_yield_when_idle={} ({})", v, y,
      y == "1" ? "waiting MPI calls yield the core: raw-mpi latency is higher than busy-polling"
               : "waiting MPI calls busy-poll");
}

// Parses the command line into `o`; the exit code when the run must stop there (help, a
// bad command line, a world of another size than 2).
std::optional<int> parse(CLI::App& app, const harness::Front& front, Options& o, int argc,
                         char** argv, int rank, int size) {
  try {
    app.parse(argc, argv);
    front.quick_default("--maxbytes", o.max_bytes, std::size_t{64} << 10);
    front.quick_default("--warmup_iters", o.loop.warmup, 2);
    front.quick_default("--iters", o.loop.iters, 20);
    if (o.max_bytes < o.min_bytes) {
      throw CLI::ValidationError("--maxbytes", fmt::format("--maxbytes {} is below --minbytes {}",
                                                           o.max_bytes, o.min_bytes));
    }
  } catch (const CLI::ParseError& e) {
    if (rank == 0) app.exit(e);  // prints the help or the error naming the option
    return e.get_exit_code() == 0 ? 0 : 2;
  }
  if (size != 2) {
    if (rank == 0) {
      spdlog::error("gfn-transport-bench needs exactly 2 ranks (mpirun -np 2), got {}", size);
    }
    return 2;
  }
  return std::nullopt;
}

// The transports and raw baselines the chosen methods need, and the sweep's methods in
// table order. Members are destroyed in reverse order: the Gloo objects before MPI's.
struct Methods {
  std::unique_ptr<RawMpiMethod> raw_mpi;
  std::unique_ptr<gfn::transport::Transport> mpi_transport;
  std::unique_ptr<RawGlooMethod> raw_gloo;
  std::unique_ptr<gfn::transport::Transport> torch_transport;
  std::vector<std::pair<int, std::unique_ptr<PingPongMethod>>> owned;
  std::vector<MethodSlot> sweep;
};

// Builds what was asked for (each is collective, same order on both ranks).
Methods build_methods(const Options& o) {
  gfn::transport::TransportOptions topts;
  topts.timeout = gfn::transport::Seconds(o.timeout_s);
  topts.max_message_bytes = std::max(topts.max_message_bytes, o.max_bytes);
  const bool need_mpi = wants(o, kOursMpi) || wants(o, kOursMpiFresh) || wants(o, kSubmission);
  const bool need_torch = wants(o, kOursTorch);  // the submission rows use what exists
  Methods m;
  if (wants(o, kRawMpi) || wants(o, kSubmission)) m.raw_mpi = std::make_unique<RawMpiMethod>();
  if (need_mpi)
    m.mpi_transport = gfn::transport::make_transport(gfn::transport::Backend::kMpi, topts);
  if (wants(o, kRawGloo)) m.raw_gloo = std::make_unique<RawGlooMethod>(o.timeout_s);
  if (need_torch)
    m.torch_transport = gfn::transport::make_transport(gfn::transport::Backend::kTorch, topts);

  // Sweep methods in table order, with a fixed id each (part of the payload pattern).
  const auto own = [&m](int id, gfn::transport::Transport& t, Receive receive) {
    m.owned.emplace_back(id, std::make_unique<TransportMethod>(t, receive));
    m.sweep.push_back({id, m.owned.back().second.get()});
  };
  if (wants(o, kRawMpi)) m.sweep.push_back({0, m.raw_mpi.get()});
  if (wants(o, kOursMpi)) own(1, *m.mpi_transport, Receive::kInto);
  if (wants(o, kOursMpiFresh)) own(4, *m.mpi_transport, Receive::kFresh);
  if (wants(o, kRawGloo)) m.sweep.push_back({2, m.raw_gloo.get()});
  if (wants(o, kOursTorch)) own(3, *m.torch_transport, Receive::kInto);
  return m;
}

RunInfo run_info(const Options& o, const Methods& m, harness::Method method) {
  RunInfo info;
  info.min_bytes = o.min_bytes;
  info.max_bytes = o.max_bytes;
  info.factor = o.factor;
  info.loop = o.loop;
  info.method = run_method(std::move(method), o.loop);
  info.mpi = mpi_line();
  if (m.raw_mpi) info.descriptions[kRawMpi] = m.raw_mpi->description();
  if (m.raw_gloo) info.descriptions[kRawGloo] = m.raw_gloo->description();
  for (const auto& slot : m.sweep) {
    info.descriptions[slot.method->name()] = slot.method->description();
  }
  return info;
}

// Payloads checked and wrong, over every measurement.
struct Checks {
  std::int64_t wrong = 0;
  std::int64_t checked = 0;
  void count(const Measurement& m) {
    wrong += m.wrong;
    checked += m.checked;
  }
};

// The size sweep of the sweep methods, a table row per size printed by rank 0.
std::map<std::size_t, SizeRow> run_sweep(const Options& o, const std::vector<std::size_t>& sizes,
                                         const Methods& m, int rank, Buffers& buffers,
                                         Checks& checks) {
  std::map<std::size_t, SizeRow> sweep;
  if (m.sweep.empty()) return sweep;
  if (rank == 0) print_sweep_head();
  for (std::size_t bytes : sizes) {
    SizeRow& row = sweep[bytes];
    const auto figures = measure(m.sweep, bytes, bytes, o.loop, buffers);
    for (std::size_t j = 0; j < figures.size(); ++j) {
      checks.count(figures[j]);
      row[m.sweep[j].method->name()] = figures[j];
    }
    if (rank == 0) print_sweep_row(bytes, row);
  }
  return sweep;
}

// The submission pattern over each transport, and transport-only round trips of the same
// bytes that split framing from transport cost (torch rows only when the torch backend
// and raw Gloo were asked for too); printed by rank 0.
std::map<std::string, Measurement> run_submission(const Options& o, const Methods& m, int rank,
                                                  const SubmissionBytes& sub_bytes,
                                                  Buffers& buffers, Checks& checks) {
  std::map<std::string, Measurement> submission;
  const auto pattern = [&](gfn::transport::Transport& t) {
    const Measurement measured = measure_submission(t, o.shape, o.loop);
    checks.count(measured);
    return measured;
  };
  TransportMethod mpi_bytes(*m.mpi_transport, Receive::kInto);
  std::unique_ptr<TransportMethod> torch_bytes;
  std::vector<MethodSlot> plain_methods = {{10, m.raw_mpi.get()}, {11, &mpi_bytes}};
  std::vector<std::string> names = {kRawMpi, kOursMpi};
  if (m.raw_gloo) {
    plain_methods.push_back({12, m.raw_gloo.get()});
    names.push_back(kRawGloo);
  }
  if (m.torch_transport) {
    torch_bytes = std::make_unique<TransportMethod>(*m.torch_transport, Receive::kInto);
    plain_methods.push_back({13, torch_bytes.get()});
    names.push_back(kOursTorch);
  }
  const auto plain = measure(plain_methods, sub_bytes.submission, sub_bytes.score, o.loop, buffers);
  for (std::size_t j = 0; j < plain.size(); ++j) {
    checks.count(plain[j]);
    submission[names[j]] = plain[j];
  }
  submission[kSubmissionMpi] = pattern(*m.mpi_transport);
  if (m.torch_transport) submission[kSubmissionTorch] = pattern(*m.torch_transport);
  if (rank == 0) print_submission(o.shape, sub_bytes, submission);
  return submission;
}

int run(int argc, char** argv) {
  int rank = 0;
  int size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  CLI::App app("Transport latency / bandwidth benchmark (nccl-tests style), 2 ranks.",
               "gfn-transport-bench");
  app.footer("Method and figures: docs/performance.md \"Transport benchmark\".");
  Options o;
  harness::Front front(app, "gfn-transport-bench", "--maxbytes 64K --warmup_iters 2 --iters 20");
  add_options(app, front, o);
  if (const auto exit_code = parse(app, front, o, argc, argv, rank, size)) return *exit_code;

  const auto sizes = sweep_sizes(o.min_bytes, o.max_bytes, o.factor);
  const SubmissionBytes sub_bytes = submission_bytes(o.shape);
  Methods methods = build_methods(o);
  const RunInfo info = run_info(o, methods, front.method(argc, argv));
  Checks checks;
  Buffers buffers(std::max({o.max_bytes, sub_bytes.submission, sub_bytes.score}));
  if (rank == 0) print_header(info);
  const auto sweep = run_sweep(o, sizes, methods, rank, buffers, checks);
  std::map<std::string, Measurement> submission;
  if (wants(o, kSubmission))
    submission = run_submission(o, methods, rank, sub_bytes, buffers, checks);

  const auto goals = evaluate_goals(sweep, submission);
  bool goals_pass = true;
  for (const auto& g : goals) goals_pass = goals_pass && g.verdict != harness::Verdict::kFail;
  if (rank == 0) {
    print_goals(goals, checks.wrong, checks.checked);
    const auto load = harness::load_averages();
    fmt::print("# load average at end: {}\n",
               load.size() == 3 ? fmt::format("{:.2f} {:.2f} {:.2f}", load[0], load[1], load[2])
                                : "unknown");
    front.write_json({front.tool(), info.method, report_cases(sweep, submission), goals});
  }

  // Gloo objects go before MPI is finalized (by the caller): `methods`, when run returns.
  if (checks.wrong != 0) return 1;
  if (o.require_goals && !goals_pass) return 3;
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  if (MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS) {
    spdlog::error("gfn-transport-bench: MPI_Init_thread failed");
    return 1;
  }
  int rc = 1;
  try {
    rc = run(argc, argv);
  } catch (const std::exception& e) {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    spdlog::error("gfn-transport-bench rank {}: {}", rank, e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Finalize();
  return rc;
}
