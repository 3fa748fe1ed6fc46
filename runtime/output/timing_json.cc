#include "runtime/output/timing_json.h"

namespace gfn::output {

nlohmann::json time_report_json(const timing::TimeReport& report) {
  nlohmann::json ranks = nlohmann::json::array();
  for (const auto& r : report.ranks) {
    nlohmann::json steps = nlohmann::json::object();
    for (const auto& s : r.steps) steps[s.step] = s.total_s;
    ranks.push_back({{"rank", r.rank}, {"steps", steps}});
  }
  nlohmann::json order = nlohmann::json::array();
  for (const auto& a : report.across) order.push_back(a.step);
  return {{"ranks", ranks}, {"step_order", order}};
}

nlohmann::json load_imbalance_json(const timing::LoadImbalanceReport& report) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& s : report.steps) {
    out.push_back({{"step", s.step}, {"useful_s", s.useful_s}, {"waiting_s", s.waiting_s}});
  }
  return out;
}

}  // namespace gfn::output
