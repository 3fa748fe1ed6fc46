// gfn-bench-manager: how fast one replay-buffer manager serves submissions, in the style
// of nccl-tests (sweep, warm-up, measured iterations, every reply checked).
//
// Method. Rank 0 runs the real manager (roles::run_buffer_manager, default scorer); ranks
// 1..K are synthetic trainers (feeder.h) sending full-payload DATA as fast as the manager
// answers, `--window` submissions in flight each. The submissions are the batches of a
// real training Learner on each environment (pool.h), whose median iteration time is the
// "full-speed trainer". Per environment and capacity: a warm-up of ceil(capacity / batch)
// + --warmup (20) submissions fills the buffer, then `--iters` measured submissions per trainer.
// The manager's own per-message timing (recv, score = decode + checks + modes + score,
// add, reply) gives median and p99 per phase and of their sum, the service time;
// trainers served = trainer iteration time / median service time.
//   tools/mpirun.sh -np 2 build/bin/gfn-bench-manager
// --role coordinator measures the coordinator instead, fed by K synthetic managers
// (coordinator_bench.h): reports per second with every report and mode checked.
//   tools/mpirun.sh -np 64 build/bin/gfn-bench-manager --role coordinator
// Shared benchmark flags (tools/common/harness/front.h): --json FILE, --quick, --warmup,
// and --repeats for --iters.
#include <mpi.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <numeric>

#include "roles/buffer_manager/buffer_manager.h"
#include "roles/buffer_manager/mode_predicate.h"
#include "roles/experiment/experiment.h"
#include "runtime/buffer/scorer.h"
#include "runtime/gfn/env/environment.h"
#include "runtime/gfn/env/registry.h"
#include "runtime/timing/timing_table.h"
#include "tools/common/harness/front.h"
#include "tools/gfn-bench-manager/coordinator_bench.h"
#include "tools/gfn-bench-manager/feeder.h"
#include "tools/gfn-bench-manager/pool.h"
#include "transport/factory.h"

namespace gfn::mbench {
namespace {

struct Options {
  std::vector<std::string> configs = {"configs/bench/hypergrid_2d_b128.yaml",
                                      "configs/bench/hypergrid_4d_b128.yaml",
                                      "configs/bench/hypergrid_8d_b128.yaml"};
  std::vector<std::int64_t> capacities = {1000, 10000, 100000};
  std::vector<std::string> novelty = {"index"};
  std::vector<std::string> modes = {"memoized"};
  int iters = 1000;
  int warmup = 20;  // submissions beyond those that fill the buffer
  int window = 8;
  int pool = 0;                  // 0: as many distinct submissions as are sent
  std::string role = "manager";  // or "coordinator" (coordinator_bench.h)
  int reports = 2000;            // per synthetic manager (--role coordinator)
  int modes_per_report = 4;
};

/// The last `n` values of a manager timing step (seconds).
std::vector<double> last(const timing::TimingTable& t, const std::string& step, int n) {
  const auto& d = t.durations(step);
  return {d.end() - std::min<std::size_t>(d.size(), n), d.end()};
}

struct Row {
  std::string env, novelty, modes;
  std::int64_t capacity = 0;
  int ndim = 0;
  int warmup = 0;                                     // submissions per trainer
  harness::Summary recv, score, add, reply, service;  // microseconds
  double subs_per_s = 0, trainer_ms = 0, served = 0;
  bool pass = false;
};

harness::Method run_method(harness::Method base, const Options& o, int trainers) {
  return base.describe(
      "the manager's own timing of each DATA message (roles::run_buffer_manager's timing "
      "table, steady_clock): recv, score (decode, checks, modes, score), add, reply; service = "
      "their sum",
      std::nullopt, o.iters,
      fmt::format("submissions per trainer ({} synthetic trainer(s), {} in flight each)", trainers,
                  o.window),
      {fmt::format("warm-up per row: ceil(capacity / batch) + {} submissions in all (fills the "
                   "buffer), split among the trainers",
                   o.warmup),
       "submissions: full payloads from a training Learner (one per iteration)",
       "served = median trainer iteration time / median service time"});
}

harness::Method coordinator_method(harness::Method base, const Options& o, int managers) {
  return base.describe(
      "the coordinator's wall time (roles::run_coordinator, steady_clock) from its start to "
      "the last MANAGER_EXIT_ACK; reports/s = reports received / that time",
      std::nullopt, o.reports,
      fmt::format("reports per synthetic manager ({} manager(s), blocking sends)", managers),
      {fmt::format("MODE_REPORTs of {} new modes alternate with rising BASELINE_REPORTs (every "
                   "one moves the global baseline: a BASELINE_SYNC to every manager)",
                   o.modes_per_report),
       "every report and mode is checked at the end"});
}

void print_header(const harness::Method& method) {
  std::printf(
      "%s# phases are in us (median / p99)\n"
      "# goal: served >= 10 (and on ndim 2: service median <= 100 us, p99 <= 500 us)\n",
      harness::method_statement(method).c_str());
  std::printf("%-18s %8s %-11s %-9s %15s %15s %15s %15s %17s %9s %10s %8s %s\n", "env", "capacity",
              "novelty", "modes", "recv", "score", "add", "reply", "service", "subs/s",
              "trainer_ms", "served", "goal");
}

void print_row(const Row& r) {
  auto mp = [](const harness::Summary& s) { return fmt::format("{:.1f}/{:.1f}", s.median, s.p99); };
  std::printf("%-18s %8lld %-11s %-9s %15s %15s %15s %15s %17s %9.0f %10.3f %8.1f %s\n",
              r.env.c_str(), static_cast<long long>(r.capacity), r.novelty.c_str(), r.modes.c_str(),
              mp(r.recv).c_str(), mp(r.score).c_str(), mp(r.add).c_str(), mp(r.reply).c_str(),
              mp(r.service).c_str(), r.subs_per_s, r.trainer_ms, r.served,
              r.pass ? "PASS" : "FAIL");
  std::fflush(stdout);
}

Row manager_side(transport::Transport& t, const roles::ExperimentConfig& cfg,
                 const roles::ModePredicate& is_mode, std::int64_t capacity,
                 const std::string& novelty, int measured) {
  std::vector<int> trainers(t.world_size() - 1);
  std::iota(trainers.begin(), trainers.end(), 1);
  roles::BufferManagerOptions o;
  o.capacity = capacity;
  o.n_actions = core::make_environment(cfg.env)->n_actions();
  buffer::ModesScorerOptions so;
  so.novelty = buffer::parse_novelty_method(novelty);
  o.scorer = std::make_shared<buffer::ModesScorer>(so);
  timing::TimingTable table{0};  // every message's phases: no compaction
  const auto result = roles::run_buffer_manager(t, trainers, o, is_mode, &table);
  if (result.exit_mismatches != 0 || result.rejected_messages != 0) {
    throw std::runtime_error(
        fmt::format("manager: {} TRAINER_EXIT mismatches, {} rejected messages",
                    result.exit_mismatches, result.rejected_messages));
  }
  Row r;
  r.capacity = capacity;
  r.novelty = novelty;
  r.ndim = static_cast<int>(cfg.env.get<core::HyperGridOptions>().ndim);
  const int n = measured * static_cast<int>(trainers.size());
  const auto recv = last(table, "recv", n), score = last(table, "score", n),
             add = last(table, "add", n), reply = last(table, "reply", n);
  std::vector<double> service(recv.size());
  for (std::size_t i = 0; i < service.size(); ++i) {
    service[i] = recv[i] + score[i] + add[i] + reply[i];
  }
  r.recv = harness::summarize(recv).scaled(1e6);
  r.score = harness::summarize(score).scaled(1e6);
  r.add = harness::summarize(add).scaled(1e6);
  r.reply = harness::summarize(reply).scaled(1e6);
  r.service = harness::summarize(service).scaled(1e6);
  return r;
}

/// Every (novelty, modes) pair, novelty outermost.
std::vector<std::pair<std::string, std::string>> grid(const std::vector<std::string>& novelty,
                                                      const std::vector<std::string>& modes) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& n : novelty) {
    for (const auto& m : modes) out.emplace_back(n, m);
  }
  return out;
}

void add_options(CLI::App& app, harness::Front& front, Options& o) {
  app.add_option("--configs", o.configs, "experiment YAML per environment")
      ->check(CLI::ExistingFile);
  app.add_option("--capacities", o.capacities, "replay-buffer capacities (items)");
  app.add_option("--novelty", o.novelty, "novelty methods compared (index, brute_force)");
  app.add_option("--modes", o.modes,
                 "mode predicates compared (memoized: the manager's; reference: "
                 "Environment::is_mode on every submission)")
      ->check(CLI::IsMember({"memoized", "reference"}));
  front.add_repetitions(o.iters, "--iters", "measured submissions per trainer");
  front.add_warmup(o.warmup, "--warmup",
                   "warm-up submissions (in all) beyond the ceil(capacity / batch) that fill "
                   "the buffer");
  app.add_option("--window", o.window, "submissions in flight per trainer")
      ->check(CLI::PositiveNumber);
  app.add_option("--pool", o.pool, "distinct submissions per trainer (0: one per submission sent)");
  app.add_option("--role", o.role,
                 "what rank 0 runs: manager (fed by synthetic trainers) or coordinator (fed by "
                 "synthetic managers)")
      ->check(CLI::IsMember({"manager", "coordinator"}));
  app.add_option("--reports", o.reports, "--role coordinator: reports per synthetic manager")
      ->check(CLI::PositiveNumber);
  app.add_option("--modes-per-report", o.modes_per_report,
                 "--role coordinator: new modes in each MODE_REPORT")
      ->check(CLI::PositiveNumber);
}

// --role coordinator: one round, one row.
void run_coordinator_role(transport::Transport& t, harness::Front& front, harness::Report report,
                          const Options& o) {
  const auto row = bench_coordinator(t, o.reports, o.modes_per_report);
  if (t.rank() != 0) return;
  std::printf("%s# the coordinator's wall time from start to the last MANAGER_EXIT_ACK\n",
              harness::method_statement(report.method).c_str());
  std::printf("%8s %10s %10s %10s %10s %12s\n", "senders", "reports", "modes", "syncs", "wall_s",
              "reports/s");
  std::printf("%8d %10lld %10lld %10lld %10.3f %12.0f\n", row.senders,
              static_cast<long long>(row.reports), static_cast<long long>(row.modes),
              static_cast<long long>(row.syncs), row.wall_s, row.reports_per_s);
  harness::Case c;
  c.name = fmt::format("coordinator/{}", row.senders);
  c.parameters = {{"senders", row.senders},
                  {"reports_per_sender", o.reports},
                  {"modes_per_report", o.modes_per_report}};
  c.add("reports_per_s", row.reports_per_s, "1/s").add("wall_s", row.wall_s, "s");
  report.cases.push_back(c);
  front.write_json(report);
}

// The JSON case and the goal of one row.
harness::Case row_case(const Row& r) {
  harness::Case c;
  c.name = fmt::format("{}/{}/{}/{}", r.env, r.capacity, r.novelty, r.modes);
  c.parameters = {{"env", r.env},     {"capacity", r.capacity}, {"novelty", r.novelty},
                  {"modes", r.modes}, {"ndim", r.ndim},         {"warmup_submissions", r.warmup}};
  c.add("recv_us", r.recv, "us").add("score_us", r.score, "us").add("add_us", r.add, "us");
  c.add("reply_us", r.reply, "us").add("service_us", r.service, "us");
  c.add("submissions_per_s", r.subs_per_s, "1/s").add("trainer_ms", r.trainer_ms, "ms");
  c.add("trainers_served", r.served, "trainers");
  return c;
}

harness::Goal row_goal(const Row& r) {
  return {fmt::format("{}/{}/{}/{}", r.env, r.capacity, r.novelty, r.modes),
          r.ndim == 2 ? "served >= 10, service median <= 100 us and p99 <= 500 us" : "served >= 10",
          r.served,
          "trainers",
          r.pass ? harness::Verdict::kPass : harness::Verdict::kFail,
          fmt::format("service {:.1f}/{:.1f} us (median/p99)", r.service.median, r.service.p99)};
}

// One row: the manager (rank 0) serves `warmup` + o.iters submissions of every trainer.
// The figures on rank 0; the other ranks return an empty row.
Row measure_row(transport::Transport& t, const roles::ExperimentConfig& cfg, const Pool& pool,
                std::int64_t capacity, const std::string& novelty, const std::string& modes,
                int warmup, const Options& o) {
  // A fresh predicate per row: a memoized one starts with an empty cache.
  roles::ModePredicate is_mode;
  if (t.rank() == 0) {
    is_mode = modes == "memoized" ? roles::environment_mode_predicate(cfg.env)
                                  : roles::environment_mode_predicate_reference(cfg.env);
  }
  t.world().barrier();
  double measured_s = 0;
  Row r;
  if (t.rank() == 0) {
    r = manager_side(t, cfg, is_mode, capacity, novelty, o.iters);
  } else {
    measured_s =
        feed_manager(t, 0, pool.submissions, warmup, o.iters, o.window, capacity).measured_s;
  }
  t.world().all_reduce(&measured_s, 1, transport::DType::kFloat64, transport::ReduceOp::kMax);
  r.modes = modes;
  r.warmup = warmup;
  r.subs_per_s = (t.world_size() - 1) * o.iters / measured_s;
  return r;
}

int run(int argc, char** argv) {
  Options o;
  CLI::App app("One buffer manager fed by synthetic trainers at their maximum rate.",
               "gfn-bench-manager");
  app.footer("Method and figures: docs/performance.md \"Buffer manager throughput\".");
  harness::Front front(app, "gfn-bench-manager",
                       "--configs configs/bench/hypergrid_2d_b128.yaml --capacities 1000 --iters "
                       "100");
  add_options(app, front, o);
  CLI11_PARSE(app, argc, argv);
  front.quick_default("--configs", o.configs,
                      std::vector<std::string>{"configs/bench/hypergrid_2d_b128.yaml"});
  front.quick_default("--capacities", o.capacities, std::vector<std::int64_t>{1000});
  front.quick_default("--iters", o.iters, 100);

  auto transport =
      transport::make_transport(transport::Backend::kMpi, transport::TransportOptions{});
  const int rank = transport->rank(), world = transport->world_size();
  if (world < 2) throw std::invalid_argument("gfn-bench-manager needs >= 2 ranks (mpirun -np 2)");
  const int trainers = world - 1;
  harness::Report report{front.tool(),
                         o.role == "coordinator"
                             ? coordinator_method(front.method(argc, argv), o, trainers)
                             : run_method(front.method(argc, argv), o, trainers),
                         {},
                         {}};
  if (o.role == "coordinator") {
    run_coordinator_role(*transport, front, report, o);
    return 0;
  }
  if (rank == 0) print_header(report.method);
  for (const auto& path : o.configs) {
    auto cfg = roles::load_config(path, {});
    cfg.train.seed += static_cast<std::uint64_t>(rank);
    const auto batch = cfg.train.batch_size;
    int needed = 0;
    for (auto c : o.capacities) {
      needed =
          std::max<int>(needed, static_cast<int>((c + batch - 1) / batch) + o.warmup + o.iters);
    }
    Pool pool;
    double trainer_ms = 0;
    if (rank > 0) {
      pool = sample_pool(cfg, o.pool > 0 ? std::min(o.pool, needed) : needed);
      trainer_ms = pool.trainer_ms;
    }
    transport->world().broadcast(&trainer_ms, 1, transport::DType::kFloat64, 1);
    for (auto capacity : o.capacities) {
      const int warmup =
          static_cast<int>((capacity + batch - 1) / batch + o.warmup + trainers - 1) / trainers;
      for (const auto& [novelty, modes] : grid(o.novelty, o.modes)) {
        Row r = measure_row(*transport, cfg, pool, capacity, novelty, modes, warmup, o);
        if (rank != 0) continue;
        r.env = std::filesystem::path(path).stem().string();
        r.trainer_ms = trainer_ms;
        r.served = trainer_ms * 1e3 / r.service.median;
        r.pass =
            r.served >= 10 && (r.ndim != 2 || (r.service.median <= 100 && r.service.p99 <= 500));
        print_row(r);
        report.cases.push_back(row_case(r));
        report.goals.push_back(row_goal(r));
      }
    }
  }
  if (rank == 0) front.write_json(report);
  return 0;
}

}  // namespace
}  // namespace gfn::mbench

int main(int argc, char** argv) {
  int provided = 0;
  if (MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS) return 1;
  int rc = 1;
  try {
    rc = gfn::mbench::run(argc, argv);
  } catch (const std::exception& e) {
    spdlog::error("gfn-bench-manager: {}", e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Finalize();
  return rc;
}
