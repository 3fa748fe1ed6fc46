#include "roles/protocol/message_table.h"

#include <iterator>
#include <string_view>
#include <vector>

namespace gfn::protocol {
namespace {

// Compile-time checks of the table's invariants (tests/roles/protocol tests them with
// readable messages too): type values unique and non-zero, and every reply a row of the
// table that goes back the other way on the reply tag.
constexpr bool values_unique() {
  for (std::size_t i = 0; i < std::size(kMessages); ++i) {
    if (kMessages[i].type == MessageType::kNone) return false;
    for (std::size_t j = i + 1; j < std::size(kMessages); ++j) {
      if (kMessages[i].type == kMessages[j].type) return false;
    }
  }
  return true;
}
static_assert(values_unique(), "message_table.h: type values must be unique and non-zero");

constexpr bool replies_consistent() {
  for (const auto& m : kMessages) {
    if (m.reply == MessageType::kNone) {
      if (m.reply_tag != kNoTag) return false;
      continue;
    }
    // By index, not find()'s pointer: GCC's -fsanitize=undefined (tools/run_sanitizers.sh)
    // makes a pointer's null test non-constant.
    bool found = false;
    for (const auto& r : kMessages) {
      if (r.type != m.reply) continue;
      if (r.tag != m.reply_tag || r.from != m.to || r.to != m.from) return false;
      found = true;
    }
    if (!found) return false;
  }
  return true;
}
static_assert(replies_consistent(),
              "message_table.h: a reply must be a row sent back to the requester on the reply tag");

}  // namespace

const char* name(Role role) noexcept {
  switch (role) {
    case Role::kTrainer:
      return "trainer";
    case Role::kManager:
      return "buffer manager";
    case Role::kCoordinator:
      return "coordinator";
    case Role::kAny:
      return "any role";
  }
  return "unknown role";
}

std::string names_on(int tag, Role from, Role to) {
  std::vector<std::string_view> names;
  for (const auto& m : kMessages) {
    if (m.tag == tag && m.from == from && m.to == to) names.emplace_back(m.name);
  }
  if (names.empty()) return "nothing";
  std::string out(names.front());
  for (std::size_t i = 1; i < names.size(); ++i) {
    out += i + 1 == names.size() ? " or " : ", ";
    out += names[i];
  }
  return out;
}

}  // namespace gfn::protocol
