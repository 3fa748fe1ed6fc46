#include "tools/gfn-transport-bench/report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

namespace gfn::tbench {

namespace {

constexpr std::size_t kSmallMax = 4096;     // goal 1: sizes <= 4 KiB
constexpr std::size_t kLargeMin = 1 << 20;  // goal 2: sizes >= 1 MiB
constexpr double kMaxLatencyRatio = 2.0;    // goals 1 and 3
constexpr double kMinBandwidthRatio = 0.9;  // goal 2

const Measurement* find(const SizeRow& row, const std::string& method) {
  const auto it = row.find(method);
  return it == row.end() ? nullptr : &it->second;
}

std::string method_cells(const Measurement* m) {
  if (m == nullptr) return fmt::format(" {:>8} {:>8} {:>6}", "-", "-", "-");
  return fmt::format(" {:8.1f} {:8.1f} {:6.3f}", m->rtt.median_us, m->rtt.p99_us,
                     one_way_gbps(m->ping_bytes, m->rtt.median_us));
}

// "ours / raw" median round-trip ratio and bandwidth share of two methods.
std::string ratio_cells(const Measurement* ours, const Measurement* raw) {
  if (ours == nullptr || raw == nullptr) return fmt::format(" {:>6} {:>6}", "-", "-");
  return fmt::format(" {:5.2f}x {:5.0f}%", ours->rtt.median_us / raw->rtt.median_us,
                     100.0 * raw->rtt.median_us / ours->rtt.median_us);
}

}  // namespace

std::string format_bytes(std::size_t bytes) {
  if (bytes >= (1u << 20) && bytes % (1u << 20) == 0) return fmt::format("{} MiB", bytes >> 20);
  if (bytes >= (1u << 10) && bytes % (1u << 10) == 0) return fmt::format("{} KiB", bytes >> 10);
  return fmt::format("{} B", bytes);
}

void print_header(const RunInfo& info) {
  fmt::print(
      "# gfn-transport-bench: nRanks 2 minBytes {} maxBytes {} step: {}(factor) warmup "
      "iters: {} iters: {} validation: {}\n",
      info.min_bytes, info.max_bytes, info.factor, info.loop.warmup, info.loop.iters,
      info.loop.check ? 1 : 0);
  fmt::print("# command: {}\n", info.command_line);
  for (const auto& line : info.environment) fmt::print("# {}\n", line);
  fmt::print("#\n");
  fmt::print(
      "# Methods (same run; per size, the methods take turns in chunks of 10 timed round "
      "trips, each chunk after one untimed settling round trip):\n");
  for (const auto& name : kSweepMethods) {
    const auto it = info.descriptions.find(name);
    if (it != info.descriptions.end()) fmt::print("#   {:<9} {}\n", name, it->second);
  }
  fmt::print(
      "# Measurement: rank 0 times each round trip with steady_clock: t0; send `size` bytes "
      "to rank 1;\n"
      "#   rank 1 receives them and sends `size` bytes back; rank 0 receives; t1. Payloads "
      "are filled\n"
      "#   (pattern of size, iteration, direction, method) before t0 and checked after t1 "
      "on both ranks.\n"
      "# Formulas: med, p99 = median and 99th percentile (nearest rank) of t1 - t0 over the "
      "{} timed\n"
      "#   round trips, in microseconds; GB/s = size / (med / 2) / 1e9 (one-way bytes over "
      "half the\n"
      "#   median round trip); ours/raw: lat = med(ours) / med(raw), bw = GB/s(ours) / "
      "GB/s(raw).\n"
      "#   #wrong = received payloads (both ranks, warm-up included) with a wrong length or "
      "content.\n#\n",
      info.loop.iters);
}

void print_sweep_head() {
  fmt::print("# {:>10} {:^24} {:^24} {:^24} {:^24} {:^24} {:>6} {:^13} {:^13} {:^13}\n", "",
             "raw-mpi", "mpi (ours)", "mpi-fresh (ours)", "raw-gloo", "torch (ours)", "",
             "mpi/raw-mpi", "fresh/raw-mpi", "torch/rawgloo");
  const int n = static_cast<int>(kSweepMethods.size());
  fmt::print("# {:>10}", "size");
  for (int i = 0; i < n; ++i) fmt::print(" {:>8} {:>8} {:>6}", "med", "p99", "GB/s");
  fmt::print(" {:>6} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6}\n", "#wrong", "lat", "bw", "lat", "bw",
             "lat", "bw");
  fmt::print("# {:>10}", "(B)");
  for (int i = 0; i < n; ++i) fmt::print(" {:>8} {:>8} {:>6}", "(us)", "(us)", "");
  fmt::print("\n");
}

void print_sweep_row(std::size_t bytes, const SizeRow& row) {
  std::int64_t wrong = 0;
  for (const auto& [name, m] : row) wrong += m.wrong;
  std::string line = fmt::format("  {:>10}", bytes);
  for (const auto& name : kSweepMethods) line += method_cells(find(row, name));
  line += fmt::format(" {:>6}", wrong);
  line += ratio_cells(find(row, kOursMpi), find(row, kRawMpi));
  line += ratio_cells(find(row, kOursMpiFresh), find(row, kRawMpi));
  line += ratio_cells(find(row, kOursTorch), find(row, kRawGloo));
  fmt::print("{}\n", line);
  std::fflush(stdout);
}

void print_submission(const SubmissionShape& shape, const SubmissionBytes& bytes,
                      const std::map<std::string, Measurement>& rows) {
  fmt::print(
      "#\n# Trainer -> manager pattern: Submission of {} states x ndim {} (DATA message {} B "
      "with its envelope),\n"
      "#   reply Score (SCORE message {} B). Timed on the trainer (rank 0) from encode_message "
      "to decode_payload<Score>;\n"
      "#   the manager (rank 1) does recv(any source) + decode_envelope + "
      "decode_payload<Submission> + sum exp(log_reward)\n"
      "#   + encode_message + send. Baselines: raw-mpi / raw-gloo round trips of the same "
      "byte counts ({} B out, {} B back);\n"
      "#   mpi / torch: our transport alone at the same byte counts (no encode / decode).\n",
      shape.states, shape.ndim, bytes.submission, bytes.score, bytes.submission, bytes.score);
  fmt::print("# {:<18} {:>8} {:>8} {:>8} {:>6} {:>10}\n", "method", "out(B)", "med(us)", "p99(us)",
             "#wrong", "vs raw");
  const auto print_row = [&](const std::string& name, const std::string& baseline) {
    const auto it = rows.find(name);
    if (it == rows.end()) return;
    const auto base = rows.find(baseline);
    const std::string vs =
        base == rows.end() || name == baseline
            ? std::string("-")
            : fmt::format("{:.2f}x {}", it->second.rtt.median_us / base->second.rtt.median_us,
                          baseline);
    fmt::print("  {:<18} {:>8} {:8.1f} {:8.1f} {:>6} {:>10}\n", name, it->second.ping_bytes,
               it->second.rtt.median_us, it->second.rtt.p99_us, it->second.wrong, vs);
  };
  print_row(kRawMpi, kRawMpi);
  print_row(kOursMpi, kRawMpi);
  print_row(kSubmissionMpi, kRawMpi);
  print_row(kRawGloo, kRawGloo);
  print_row(kOursTorch, kRawGloo);
  print_row(kSubmissionTorch, kRawGloo);
  std::fflush(stdout);
}

std::vector<GoalResult> evaluate_goals(const std::map<std::size_t, SizeRow>& sweep,
                                       const std::map<std::string, Measurement>& submission) {
  std::vector<GoalResult> goals(4);
  GoalResult& small = goals[0];
  small.name = "small messages";
  small.criterion = fmt::format("mpi / raw-mpi median round trip <= {:.1f}x, every size <= {}",
                                kMaxLatencyRatio, format_bytes(kSmallMax));
  GoalResult& large = goals[1];
  large.name = "bandwidth";
  large.criterion = fmt::format("mpi GB/s >= {:.0f}% of raw-mpi GB/s, every size >= {}",
                                100 * kMinBandwidthRatio, format_bytes(kLargeMin));
  double worst_small = 0;
  double worst_large = 1e300;
  for (const auto& [bytes, row] : sweep) {
    const Measurement* ours = find(row, kOursMpi);
    const Measurement* raw = find(row, kRawMpi);
    if (ours == nullptr || raw == nullptr) continue;
    const double ratio = ours->rtt.median_us / raw->rtt.median_us;
    if (bytes <= kSmallMax && (!small.evaluated || ratio > worst_small)) {
      small.evaluated = true;
      worst_small = ratio;
      small.worst = fmt::format("worst {:.2f}x at {}", ratio, format_bytes(bytes));
    }
    const double share = raw->rtt.median_us / ours->rtt.median_us;
    if (bytes >= kLargeMin && (!large.evaluated || share < worst_large)) {
      large.evaluated = true;
      worst_large = share;
      large.worst = fmt::format("worst {:.1f}% at {}", 100 * share, format_bytes(bytes));
    }
  }
  GoalResult& fresh = goals[3];
  fresh.name = "bandwidth, recv";
  fresh.informational = true;
  fresh.criterion = fmt::format("mpi-fresh (plain recv) GB/s vs raw-mpi, every size >= {}",
                                format_bytes(kLargeMin));
  double worst_fresh = 1e300;
  for (const auto& [bytes, row] : sweep) {
    const Measurement* ours = find(row, kOursMpiFresh);
    const Measurement* raw = find(row, kRawMpi);
    if (ours == nullptr || raw == nullptr || bytes < kLargeMin) continue;
    const double share = raw->rtt.median_us / ours->rtt.median_us;
    if (!fresh.evaluated || share < worst_fresh) {
      fresh.evaluated = true;
      worst_fresh = share;
      fresh.worst = fmt::format("worst {:.1f}% at {}", 100 * share, format_bytes(bytes));
    }
  }
  fresh.pass = fresh.evaluated && worst_fresh >= kMinBandwidthRatio;
  small.pass = small.evaluated && worst_small <= kMaxLatencyRatio;
  large.pass = large.evaluated && worst_large >= kMinBandwidthRatio;

  GoalResult& sub = goals[2];
  sub.name = "submission pattern";
  sub.criterion = fmt::format("submission/mpi / raw-mpi (same bytes) median round trip <= {:.1f}x",
                              kMaxLatencyRatio);
  const auto s = submission.find(kSubmissionMpi);
  const auto r = submission.find(kRawMpi);
  if (s != submission.end() && r != submission.end()) {
    sub.evaluated = true;
    const double ratio = s->second.rtt.median_us / r->second.rtt.median_us;
    sub.pass = ratio <= kMaxLatencyRatio;
    sub.worst = fmt::format("{:.2f}x ({:.1f} us vs {:.1f} us)", ratio, s->second.rtt.median_us,
                            r->second.rtt.median_us);
  }
  return goals;
}

void print_goals(const std::vector<GoalResult>& goals, std::int64_t wrong, std::int64_t checked) {
  fmt::print("#\n# Transport goals (figures of this run):\n");
  for (const auto& g : goals) {
    const char* verdict = !g.evaluated      ? "n/a"
                          : g.informational ? "info"
                          : g.pass          ? "PASS"
                                            : "FAIL";
    fmt::print("#   {:<4} {:<19} {:<66} {}\n", verdict, g.name, g.criterion,
               g.evaluated ? g.worst : "not measured in this run");
  }
  fmt::print("#\n# Out of bounds values : {} {} ({} payloads checked)\n", wrong,
             wrong == 0 ? "OK" : "FAILED", checked);
  std::fflush(stdout);
}

}  // namespace gfn::tbench
