#include "tools/gfn-bench-scaling/layouts.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace gfn::bench_scaling {
namespace {

// Where each layout runs within a round: baselines next to the layouts compared with them.
constexpr int kRunOrder[] = {1, 2, 3, 4, 5, 7, 6};

int parse_id(const std::string& item, const std::string& text) {
  std::size_t used = 0;
  int id = 0;
  try {
    id = std::stoi(item, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (item.empty() || used != item.size()) {
    throw std::invalid_argument(
        fmt::format("--layouts '{}': '{}' is not a layout number", text, item));
  }
  layout_by_id(id);  // throws for an unknown id
  return id;
}

}  // namespace

const std::vector<Layout>& all_layouts() {
  static const std::vector<Layout> kLayouts = {
      {1, "1 trainer (world of one)", "1t", "L1-1t", 1, 0, "", 0, false},
      {2, "2 trainers, no manager", "2t", "L2-2t", 2, 0, "", 0, false},
      {3, "2 trainers + 1 manager, sync", "2t+1m sync", "L3-2t1m-sync", 2, 1, "sync", 2, false},
      {4, "2 trainers + 1 manager, async", "2t+1m async", "L4-2t1m-async", 2, 1, "async", 2, false},
      {5, "2 trainers + 1 manager, fire_and_forget", "2t+1m fire_and_forget", "L5-2t1m-ff", 2, 1,
       "fire_and_forget", 2, false},
      {6, "3 trainers + 1 manager (base config)", "3t+1m", "L6-3t1m", 3, 1, "", 7, false},
      {7, "3 trainers, no manager (baseline of 6)", "3t", "L7-3t", 3, 0, "", 0, true},
  };
  return kLayouts;
}

const Layout& layout_by_id(int id) {
  for (const auto& l : all_layouts()) {
    if (l.id == id) return l;
  }
  throw std::invalid_argument(fmt::format("--layouts: {} is not a layout (1-7)", id));
}

std::vector<int> default_layout_ids() {
  std::vector<int> ids;
  for (const auto& l : all_layouts()) {
    if (!l.hidden) ids.push_back(l.id);
  }
  return ids;
}

std::vector<int> parse_layout_list(const std::string& text) {
  std::vector<int> ids;
  std::size_t pos = 0;
  if (text.empty()) throw std::invalid_argument("--layouts: empty list");
  while (pos <= text.size()) {
    const auto comma = std::min(text.find(',', pos), text.size());
    const std::string item = text.substr(pos, comma - pos);
    const auto dash = item.find('-');
    int first = 0, last = 0;
    if (dash != std::string::npos && dash > 0) {
      first = parse_id(item.substr(0, dash), text);
      last = parse_id(item.substr(dash + 1), text);
      if (last < first) {
        throw std::invalid_argument(fmt::format("--layouts '{}': '{}' is empty", text, item));
      }
    } else {
      first = last = parse_id(item, text);
    }
    for (int id = first; id <= last; ++id) {
      if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
    }
    pos = comma + 1;
  }
  return ids;
}

std::vector<int> run_order(const std::vector<int>& selected) {
  std::vector<int> needed;
  for (int id : selected) {
    needed.push_back(id);
    if (const int b = layout_by_id(id).baseline) needed.push_back(b);
  }
  std::vector<int> order;
  for (int id : kRunOrder) {
    if (std::find(needed.begin(), needed.end(), id) != needed.end()) order.push_back(id);
  }
  return order;
}

std::vector<std::string> set_list(const Layout& layout, const RunSettings& settings,
                                  const std::string& output_dir) {
  std::vector<std::string> sets = {
      fmt::format("layout.num_buffers={}", layout.managers),
      "layout.coordinator=false",
      fmt::format("train.n_iterations={}", settings.iterations),
      fmt::format("train.batch_size={}", settings.batch_per_trainer * layout.trainers),
      "validation.enabled=false",
      fmt::format("buffer.capacity={}", settings.capacity),
      fmt::format("buffer.remote_buffer_freq={}", layout.managers > 0 ? settings.submit_every : 1),
  };
  if (!layout.submit_mode.empty()) sets.push_back("buffer.submit_mode=" + layout.submit_mode);
  sets.push_back("output.dir=" + output_dir);
  sets.insert(sets.end(), settings.extra_sets.begin(), settings.extra_sets.end());
  return sets;
}

std::string Command::to_string() const {
  return fmt::format("{} {}", program, fmt::join(args, " "));
}

Command job_command(const Layout& layout, const RunSettings& settings, const std::string& mpirun,
                    const std::string& binary, const std::string& output_dir) {
  Command c;
  c.program = mpirun;
  c.args = {"-np", std::to_string(layout.np()), binary, "--config", settings.config};
  for (const auto& kv : set_list(layout, settings, output_dir)) {
    c.args.push_back("--set");
    c.args.push_back(kv);
  }
  return c;
}

}  // namespace gfn::bench_scaling
