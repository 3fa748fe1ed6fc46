#include "roles/protocol/message_table.h"

#include <iterator>
#include <string>
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

// The channels are the tags 0, 1, ... in order; every message but ERROR travels on one of
// them, every reply is awaited on one, and every channel carries a message.
constexpr bool is_channel(int tag) {
  return tag >= 0 && tag < static_cast<int>(std::size(kChannels));
}

constexpr bool channels_consistent() {
  for (std::size_t i = 0; i < std::size(kChannels); ++i) {
    if (kChannels[i].tag != static_cast<int>(i)) return false;
    bool used = false;
    for (const auto& m : kMessages) used = used || m.tag == kChannels[i].tag;
    if (!used) return false;
  }
  for (const auto& m : kMessages) {
    if (m.type == MessageType::kError) continue;
    if (!is_channel(m.tag)) return false;
    if (m.reply != MessageType::kNone && !is_channel(m.reply_tag)) return false;
  }
  return true;
}
static_assert(channels_consistent(),
              "messages.h GFN_PROTOCOL_TAGS: tags 0, 1, ... in order, each carrying a message of "
              "the table, and every message's tag one of them");

constexpr Role kRoles[] = {Role::kTrainer, Role::kManager, Role::kCoordinator};

// "DATA (`Submission`; reply SCORE on 0)".
std::string message_entry(const MessageInfo& m) {
  std::string out = std::string(m.name) + " (`" + m.payload + "`";
  if (m.reply != MessageType::kNone) {
    out += std::string("; reply ") + name(m.reply) + " on " + std::to_string(m.reply_tag);
  }
  return out + ")";
}

// The ERROR `refuser` sends `sender` on `tag` (error_tag()), "" if none there: "ERROR
// (`ErrorReply`) refusing GET_METADATA", "... refusing DATA or any other message".
std::string error_entry(int tag, Role refuser, Role sender) {
  if (!answers_with_error(refuser, sender)) return "";
  std::string refused;
  for (const auto& m : kMessages) {
    if (m.from != sender || m.to != refuser || m.reply == MessageType::kNone) continue;
    if (m.reply_tag != tag) continue;
    refused += (refused.empty() ? "" : ", ") + std::string(m.name);
  }
  if (channel(refuser, sender) == tag) {
    refused += refused.empty() ? "any message without a reply of its own" : " or any other message";
  }
  if (refused.empty()) return "";
  return std::string("ERROR (`") + find(MessageType::kError)->payload + "`) refusing " + refused;
}

// The entries `from` sends `to` on `tag`: its messages in table order, then the ERROR.
std::string entries_on(int tag, Role from, Role to) {
  std::string out;
  for (const auto& m : kMessages) {
    if (m.tag != tag || m.from != from || m.to != to) continue;
    out += (out.empty() ? "" : ", ") + message_entry(m);
  }
  const std::string error = error_entry(tag, from, to);
  if (!error.empty()) out += (out.empty() ? "" : ", ") + error;
  return out;
}

}  // namespace

std::string channel_overview() {
  std::string out =
      "| tag | what travels there | from → to | messages (payload; the reply it expects, on "
      "its tag) |\n| --- | --- | --- | --- |\n";
  for (const auto& c : kChannels) {
    bool first = true;
    for (const Role from : kRoles) {
      for (const Role to : kRoles) {
        const std::string entries = entries_on(c.tag, from, to);
        if (entries.empty()) continue;
        out += first ? "| " + std::to_string(c.tag) + " `" + c.name + "` | " + c.what + " | "
                     : std::string("| | | ");
        out += std::string(name(from)) + " → " + name(to) + " | " + entries + " |\n";
        first = false;
      }
    }
  }
  return out;
}

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
