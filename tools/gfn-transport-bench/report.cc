#include "tools/gfn-transport-bench/report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

#include "tools/gfn-transport-bench/sizes.h"

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
  return fmt::format(" {:8.1f} {:8.1f} {:6.3f}", m->rtt.median, m->rtt.p99,
                     one_way_gbps(m->ping_bytes, m->rtt.median));
}

// "ours / raw" median round-trip ratio and bandwidth share of two methods.
std::string ratio_cells(const Measurement* ours, const Measurement* raw) {
  if (ours == nullptr || raw == nullptr) return fmt::format(" {:>6} {:>6}", "-", "-");
  return fmt::format(" {:5.2f}x {:5.0f}%", ours->rtt.median / raw->rtt.median,
                     100.0 * raw->rtt.median / ours->rtt.median);
}

}  // namespace

std::string format_bytes(std::size_t bytes) {
  if (bytes >= (1u << 20) && bytes % (1u << 20) == 0) return fmt::format("{} MiB", bytes >> 20);
  if (bytes >= (1u << 10) && bytes % (1u << 10) == 0) return fmt::format("{} KiB", bytes >> 10);
  return fmt::format("{} B", bytes);
}

harness::Method run_method(harness::Method base, const LoopOptions& loop) {
  return base.describe(
      "rank 0 times each round trip with steady_clock: t0; send `size` bytes to rank 1; rank 1 "
      "receives them and sends `size` bytes back; rank 0 receives; t1",
      loop.warmup, loop.iters, "round trips per size and method",
      {"per size, the methods take turns in chunks of 10 timed round trips, each chunk after one "
       "untimed settling round trip",
       "payloads are filled (pattern of size, iteration, direction, method) before t0 and checked "
       "after t1 on both ranks",
       "med, p99 = median and 99th percentile (nearest rank) of t1 - t0, in microseconds",
       "GB/s = size / (med / 2) / 1e9 (one-way bytes over half the median round trip)",
       "ours/raw: lat = med(ours) / med(raw), bw = GB/s(ours) / GB/s(raw)",
       "#wrong = received payloads (both ranks, warm-up included) with a wrong length or content"});
}

void print_header(const RunInfo& info) {
  fmt::print(
      "# gfn-transport-bench: nRanks 2 minBytes {} maxBytes {} step: {}(factor) warmup "
      "iters: {} iters: {} validation: {}\n",
      info.min_bytes, info.max_bytes, info.factor, info.loop.warmup, info.loop.iters,
      info.loop.check ? 1 : 0);
  fmt::print("{}# MPI       {}\n#\n# Methods:\n", harness::method_statement(info.method), info.mpi);
  for (const auto& name : kSweepMethods) {
    const auto it = info.descriptions.find(name);
    if (it != info.descriptions.end()) fmt::print("#   {:<9} {}\n", name, it->second);
  }
  fmt::print("#\n");
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
            : fmt::format("{:.2f}x {}", it->second.rtt.median / base->second.rtt.median, baseline);
    fmt::print("  {:<18} {:>8} {:8.1f} {:8.1f} {:>6} {:>10}\n", name, it->second.ping_bytes,
               it->second.rtt.median, it->second.rtt.p99, it->second.wrong, vs);
  };
  print_row(kRawMpi, kRawMpi);
  print_row(kOursMpi, kRawMpi);
  print_row(kSubmissionMpi, kRawMpi);
  print_row(kRawGloo, kRawGloo);
  print_row(kOursTorch, kRawGloo);
  print_row(kSubmissionTorch, kRawGloo);
  std::fflush(stdout);
}

namespace {

// The worst ratio of ours to raw (median round trips) over the sweep sizes `in_range`
// accepts: the largest ours / raw when `latency`, else the smallest raw / ours (the
// bandwidth share). Fills goal.value and goal.detail; nullopt-valued when no size has both.
template <class InRange>
void worst_ratio(harness::Goal& goal, const std::map<std::size_t, SizeRow>& sweep,
                 const std::string& ours_name, const std::string& raw_name, bool latency,
                 InRange in_range) {
  for (const auto& [bytes, row] : sweep) {
    const Measurement* ours = find(row, ours_name);
    const Measurement* raw = find(row, raw_name);
    if (ours == nullptr || raw == nullptr || !in_range(bytes)) continue;
    const double ratio =
        latency ? ours->rtt.median / raw->rtt.median : raw->rtt.median / ours->rtt.median;
    if (goal.value && (latency ? ratio <= *goal.value : ratio >= *goal.value)) continue;
    goal.value = ratio;
    goal.detail = latency ? fmt::format("worst {:.2f}x at {}", ratio, format_bytes(bytes))
                          : fmt::format("worst {:.1f}% at {}", 100 * ratio, format_bytes(bytes));
  }
}

harness::Goal submission_goal(const std::map<std::string, Measurement>& submission) {
  harness::Goal g{"submission pattern",
                  fmt::format("submission/mpi / raw-mpi (same bytes) median round trip <= {:.1f}x",
                              kMaxLatencyRatio),
                  std::nullopt,
                  "ratio",
                  harness::Verdict::kNotMeasured,
                  ""};
  const auto s = submission.find(kSubmissionMpi);
  const auto r = submission.find(kRawMpi);
  if (s != submission.end() && r != submission.end()) {
    g.value = s->second.rtt.median / r->second.rtt.median;
    g.detail = fmt::format("{:.2f}x ({:.1f} us vs {:.1f} us)", *g.value, s->second.rtt.median,
                           r->second.rtt.median);
  }
  g.verdict = harness::judge_at_most(g.value, kMaxLatencyRatio);
  return g;
}

}  // namespace

std::vector<harness::Goal> evaluate_goals(const std::map<std::size_t, SizeRow>& sweep,
                                          const std::map<std::string, Measurement>& submission) {
  const auto small_size = [](std::size_t bytes) { return bytes <= kSmallMax; };
  const auto large_size = [](std::size_t bytes) { return bytes >= kLargeMin; };
  harness::Goal small{"small messages",
                      fmt::format("mpi / raw-mpi median round trip <= {:.1f}x, every size <= {}",
                                  kMaxLatencyRatio, format_bytes(kSmallMax)),
                      std::nullopt,
                      "ratio",
                      harness::Verdict::kNotMeasured,
                      ""};
  worst_ratio(small, sweep, kOursMpi, kRawMpi, true, small_size);
  small.verdict = harness::judge_at_most(small.value, kMaxLatencyRatio);
  harness::Goal large{"bandwidth",
                      fmt::format("mpi GB/s >= {:.0f}% of raw-mpi GB/s, every size >= {}",
                                  100 * kMinBandwidthRatio, format_bytes(kLargeMin)),
                      std::nullopt,
                      "ratio",
                      harness::Verdict::kNotMeasured,
                      ""};
  worst_ratio(large, sweep, kOursMpi, kRawMpi, false, large_size);
  large.verdict = harness::judge_at_least(large.value, kMinBandwidthRatio);
  harness::Goal fresh{"bandwidth, recv",
                      fmt::format("mpi-fresh (plain recv) GB/s vs raw-mpi, every size >= {}",
                                  format_bytes(kLargeMin)),
                      std::nullopt,
                      "ratio",
                      harness::Verdict::kNotMeasured,
                      ""};
  worst_ratio(fresh, sweep, kOursMpiFresh, kRawMpi, false, large_size);
  if (fresh.value) fresh.verdict = harness::Verdict::kInfo;
  return {small, large, submission_goal(submission), fresh};
}

void print_goals(const std::vector<harness::Goal>& goals, std::int64_t wrong,
                 std::int64_t checked) {
  fmt::print("#\n# Transport goals (figures of this run):\n");
  for (const auto& g : goals) {
    fmt::print("#   {:<4} {:<19} {:<66} {}\n", harness::verdict_name(g.verdict), g.name,
               g.criterion, g.value ? g.detail : "not measured in this run");
  }
  fmt::print("#\n# Out of bounds values : {} {} ({} payloads checked)\n", wrong,
             wrong == 0 ? "OK" : "FAILED", checked);
  std::fflush(stdout);
}

namespace {

harness::Case measurement_case(const std::string& name, const std::string& method,
                               const Measurement& m) {
  harness::Case c;
  c.name = name;
  c.parameters = {{"method", method}, {"ping_bytes", m.ping_bytes}, {"pong_bytes", m.pong_bytes}};
  if (m.rtt.n > 0) c.add("round_trip_us", m.rtt, "us");
  c.add("wrong", static_cast<double>(m.wrong), "payloads");
  c.add("checked", static_cast<double>(m.checked), "payloads");
  return c;
}

}  // namespace

std::vector<harness::Case> report_cases(const std::map<std::size_t, SizeRow>& sweep,
                                        const std::map<std::string, Measurement>& submission) {
  std::vector<harness::Case> cases;
  for (const auto& [bytes, row] : sweep) {
    for (const auto& name : kSweepMethods) {
      const Measurement* m = find(row, name);
      if (m == nullptr) continue;
      cases.push_back(measurement_case(fmt::format("{}/{}", name, bytes), name, *m));
      cases.back().add("gb_per_s", one_way_gbps(m->ping_bytes, m->rtt.median), "GB/s");
    }
  }
  for (const auto& [name, m] : submission) {
    const bool pattern = name == kSubmissionMpi || name == kSubmissionTorch;
    cases.push_back(measurement_case(pattern ? name : "submission-bytes/" + name, name, m));
  }
  return cases;
}

}  // namespace gfn::tbench
