// The protocol's channel overview (protocol::channel_overview(), message_table.h): it names
// every channel and every message of the table on the right tag and direction, and the
// copies in docs/protocol.md are current: the "Tags" overview between its markers, and the
// "Messages" table, which lists every message of the table by wire value and name.
#include <gtest/gtest.h>

#include <cctype>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "roles/protocol/message_table.h"

namespace gfn::protocol {
namespace {

// One line of the overview: its tag (the last one named above it), direction and entries.
struct OverviewRow {
  int tag = -1;
  std::string direction;  ///< "trainer → buffer manager"
  std::string entries;
};

std::vector<std::string> cells(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream in(line);
  std::string cell;
  std::getline(in, cell, '|');  // before the first bar
  while (std::getline(in, cell, '|')) {
    const auto b = cell.find_first_not_of(' ');
    const auto e = cell.find_last_not_of(' ');
    out.push_back(b == std::string::npos ? "" : cell.substr(b, e - b + 1));
  }
  if (!out.empty() && out.back().empty()) out.pop_back();  // after the last bar
  return out;
}

std::vector<OverviewRow> overview_rows(const std::string& overview) {
  std::vector<OverviewRow> rows;
  std::stringstream in(overview);
  std::string line;
  int tag = -1;
  for (int n = 0; std::getline(in, line); ++n) {
    if (n < 2) continue;  // the header and its rule
    const auto c = cells(line);
    EXPECT_EQ(c.size(), 4u) << line;
    if (c.size() != 4) continue;
    if (!c[0].empty()) tag = std::stoi(c[0]);
    rows.push_back({tag, c[2], c[3]});
  }
  return rows;
}

std::string direction(Role from, Role to) { return std::string(name(from)) + " → " + name(to); }

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "cannot read " << path;
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(ChannelOverview, NamesEveryChannelWithWhatTravelsThere) {
  const std::string overview = channel_overview();
  std::set<int> tags_seen;
  for (const auto& row : overview_rows(overview)) tags_seen.insert(row.tag);
  for (const auto& c : kChannels) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(tags_seen.count(c.tag), 1u);
    EXPECT_NE(overview.find("| " + std::to_string(c.tag) + " `" + c.name + "` | " + c.what + " |"),
              std::string::npos);
  }
  EXPECT_EQ(tags_seen.size(), std::size(kChannels));
  // The tags the protocol's code names, among them the spawn policy's.
  EXPECT_EQ(kChannels[tags::kSpawn].tag, 6);
  EXPECT_STREQ(kChannels[tags::kSpawn].name, "kSpawn");
  EXPECT_STREQ(kChannels[tags::kCheckpoint].name, "kCheckpoint");
}

TEST(ChannelOverview, ListsEveryMessageOnItsTagAndDirection) {
  const auto rows = overview_rows(channel_overview());
  for (const auto& m : kMessages) {
    if (m.type == MessageType::kError) continue;
    SCOPED_TRACE(m.name);
    int found = 0;
    for (const auto& row : rows) {
      if (row.entries.find(std::string(m.name) + " (`" + m.payload + "`") == std::string::npos) {
        continue;
      }
      ++found;
      EXPECT_EQ(row.tag, m.tag);
      EXPECT_EQ(row.direction, direction(m.from, m.to));
      if (m.reply != MessageType::kNone) {
        EXPECT_NE(row.entries.find(std::string("reply ") + name(m.reply) + " on " +
                                   std::to_string(m.reply_tag)),
                  std::string::npos);
      }
    }
    EXPECT_EQ(found, 1);
  }
  // MANAGER_ALIVE and the spawn policy's messages are there, like every other row.
  std::string all;
  for (const auto& row : rows) all += row.entries;
  for (const char* n : {"MANAGER_ALIVE", "SPAWN_METRIC", "SPAWN_PARAMS", "CHECKPOINT_DONE"}) {
    EXPECT_NE(all.find(n), std::string::npos) << n;
  }
}

TEST(ChannelOverview, ErrorsGoWhereErrorTagSendsThem) {
  // Refusers answer exactly the roles that send them requests.
  EXPECT_TRUE(answers_with_error(Role::kManager, Role::kTrainer));
  EXPECT_TRUE(answers_with_error(Role::kCoordinator, Role::kTrainer));
  EXPECT_TRUE(answers_with_error(Role::kCoordinator, Role::kManager));
  EXPECT_FALSE(answers_with_error(Role::kManager, Role::kCoordinator));
  EXPECT_FALSE(answers_with_error(Role::kTrainer, Role::kManager));
  EXPECT_FALSE(answers_with_error(Role::kTrainer, Role::kTrainer));
  const auto rows = overview_rows(channel_overview());
  // Every request refused by its receiver: the ERROR is on error_tag() toward the requester.
  for (const auto& m : kMessages) {
    if (m.reply == MessageType::kNone) continue;
    SCOPED_TRACE(m.name);
    const int tag = error_tag(static_cast<std::uint16_t>(m.type), m.to, m.from);
    bool listed = false;
    for (const auto& row : rows) {
      if (row.tag != tag || row.direction != direction(m.to, m.from)) continue;
      const auto at = row.entries.find("ERROR (`ErrorReply`) refusing ");
      listed =
          listed || (at != std::string::npos && row.entries.find(m.name, at) != std::string::npos);
    }
    EXPECT_TRUE(listed);
  }
  // Nobody sends ERROR to the coordinator or between trainers.
  for (const auto& row : rows) {
    if (row.direction == direction(Role::kManager, Role::kCoordinator) ||
        row.direction == direction(Role::kTrainer, Role::kTrainer)) {
      EXPECT_EQ(row.entries.find("ERROR"), std::string::npos) << row.entries;
    }
  }
}

TEST(ProtocolDoc, TagsOverviewIsCurrent) {
  const std::string doc = read_file(GFN_PROTOCOL_DOC);
  const auto begin = doc.find(std::string(kChannelOverviewBegin) + "\n");
  const auto end = doc.find(kChannelOverviewEnd);
  ASSERT_NE(begin, std::string::npos) << GFN_PROTOCOL_DOC << ": no " << kChannelOverviewBegin;
  ASSERT_NE(end, std::string::npos) << GFN_PROTOCOL_DOC << ": no " << kChannelOverviewEnd;
  const auto from = begin + std::string(kChannelOverviewBegin).size() + 1;
  ASSERT_LE(from, end);
  EXPECT_EQ(doc.substr(from, end - from), channel_overview())
      << GFN_PROTOCOL_DOC << " is stale; put this between its markers:\n"
      << channel_overview();
}

// The "Messages" table of docs/protocol.md: rows "| 3 / 4 | GET_METADATA / METADATA | ...".
std::set<std::pair<int, std::string>> documented_messages(const std::string& doc) {
  std::set<std::pair<int, std::string>> out;
  const auto start = doc.find("\n## Messages\n");
  EXPECT_NE(start, std::string::npos) << "no \"## Messages\" section";
  if (start == std::string::npos) return out;
  std::stringstream in(doc.substr(start + 1, doc.find("\n## ", start + 1) - start));
  std::string line;
  while (std::getline(in, line)) {
    const auto c = cells(line);
    if (c.size() < 2 || c[0].empty() || !std::isdigit(static_cast<unsigned char>(c[0][0]))) {
      continue;
    }
    std::stringstream values(c[0]);
    std::stringstream names(c[1]);
    std::string value;
    std::string type;
    while (std::getline(values, value, '/') && std::getline(names, type, '/')) {
      const auto b = type.find_first_not_of(' ');
      const auto e = type.find_last_not_of(' ');
      out.emplace(std::stoi(value), type.substr(b, e - b + 1));
    }
  }
  return out;
}

TEST(ProtocolDoc, MessagesTableListsEveryMessageOfTheTable) {
  std::set<std::pair<int, std::string>> table;
  for (const auto& m : kMessages) table.emplace(static_cast<int>(m.type), m.name);
  EXPECT_EQ(documented_messages(read_file(GFN_PROTOCOL_DOC)), table)
      << GFN_PROTOCOL_DOC << " \"Messages\": one row per message of message_table.h";
}

}  // namespace
}  // namespace gfn::protocol
