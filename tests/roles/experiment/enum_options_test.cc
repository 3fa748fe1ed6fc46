// The enumerated options layout.placement, transport.backend, buffer.payload,
// buffer.baseline, buffer.remote_sampler, replay.kind, and env.reward, env.energy,
// env.preprocessor, train.loss and train.subtb_weighting (named in runtime/gfn: loss_kind.h,
// preprocessor_kind.h, env/hypergrid_reward.h, env/discrete_ebm_options.h;
// runtime/config/options.h): every name of each table round-trips name -> enum -> name, through the
// YAML file, --set and config.yaml; an unknown name is refused naming the key, the file and the
// allowed names.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "roles/experiment/experiment.h"
#include "runtime/config/fields.h"
#include "runtime/gfn/env/discrete_ebm_options.h"
#include "runtime/gfn/options.h"
#include "tests/roles/experiment/config_file_test.h"

namespace gfn::roles {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
namespace fs = std::filesystem;

// Every entry of E's table: parse_enum(name) gives the entry's value, enum_name gives the
// name back, names and values are distinct, and enum_choices lists the names in order.
template <class E>
void expect_table_round_trips(const std::string& choices) {
  std::set<std::string> names;
  std::set<E> values;
  for (const auto& entry : enum_names(E{})) {
    E parsed{};
    ASSERT_TRUE(parse_enum(entry.name, parsed)) << entry.name;
    EXPECT_EQ(parsed, entry.value) << entry.name;
    EXPECT_STREQ(enum_name(parsed), entry.name);
    EXPECT_TRUE(names.insert(entry.name).second) << entry.name << " twice";
    EXPECT_TRUE(values.insert(entry.value).second) << entry.name << ": value twice";
  }
  EXPECT_EQ(enum_choices<E>(), choices);
  E unchanged = enum_names(E{})[0].value;
  EXPECT_FALSE(parse_enum("no-such-name", unchanged));
  EXPECT_EQ(unchanged, enum_names(E{})[0].value);
}

TEST(EnumOptionTables, EveryNameRoundTrips) {
  expect_table_round_trips<Placement>("auto, arithmetic, hostname");
  expect_table_round_trips<TransportBackend>("mpi, torch");
  expect_table_round_trips<Payload>("full, scoring_only");
  expect_table_round_trips<BaselineStrategy>("min, percentile, ema");
  expect_table_round_trips<SamplerKind>("prioritized, uniform, rank");
  expect_table_round_trips<ReplayKind>("none, uniform, prioritized, diverse");
  expect_table_round_trips<HyperGridReward>(
      "original, cosine, deceptive, sparse, bitwise_xor, multiplicative_coprime");
  expect_table_round_trips<core::EbmEnergy>("ones, ising_lattice");
  expect_table_round_trips<PreprocessorKind>("khot, onehot, identity");
  expect_table_round_trips<LossKind>("tb, zvar, db, modified_db, subtb, fm");
  expect_table_round_trips<SubTrajectoryWeighting>(
      "geometric_within, geometric, equal, equal_within, TB, DB, ModifiedDB");
}

// The runtime/gfn tables are the ones the config reads (one list per option, found by
// argument-dependent lookup), and a value outside a table is named "?".
TEST(EnumOptionTables, ModuleTablesAreTheConfigTables) {
  EXPECT_EQ(&enum_names(LossKind{}), &core::kLossKindNames);
  EXPECT_EQ(&enum_names(SubTrajectoryWeighting{}), &core::kSubTrajectoryWeightingNames);
  EXPECT_EQ(&enum_names(PreprocessorKind{}), &core::kPreprocessorKindNames);
  EXPECT_EQ(&enum_names(HyperGridReward{}), &core::kHyperGridRewardNames);
  EXPECT_STREQ(enum_name(static_cast<LossKind>(99)), "?");
}

// train.loss's reference text is written from loss_kind.h: every loss, by its YAML name, with
// its one-line description, in table order (docs/configuration.md shows it).
TEST(EnumOptionTables, LossReferenceListsEveryLossWithItsDescription) {
  std::string doc;
  for (const auto& field : core::train_fields().fields()) {
    if (field.name == "loss") doc = field.doc;
  }
  ASSERT_FALSE(doc.empty());
  std::size_t last = 0;
  for (const auto& [kind, name] : core::kLossKindNames) {
    SCOPED_TRACE(name);
    const std::string description = core::loss_description(kind);
    EXPECT_FALSE(description.empty());
    const std::size_t at = doc.find(std::string(name) + ": " + description);
    ASSERT_NE(at, std::string::npos) << doc;
    EXPECT_GE(at, last) << "table order";
    last = at;
  }
  EXPECT_STREQ(core::loss_description(static_cast<LossKind>(99)), "");
}

using EnumOptionsTest = ConfigFileTest;

// One option: its key, section, field name and the names of its table.
struct Option {
  std::string section, name, choices;
  std::vector<std::string> names;
  std::string key() const { return section + "." + name; }
};

std::vector<Option> options() {
  std::vector<Option> out = {
      {"layout", "placement", "auto, arithmetic, hostname", {}},
      {"transport", "backend", "mpi, torch", {}},
      {"buffer", "payload", "full, scoring_only", {}},
      {"buffer", "baseline", "min, percentile, ema", {}},
      {"buffer", "remote_sampler", "prioritized, uniform, rank", {}},
      {"replay", "kind", "none, uniform, prioritized, diverse", {}},
      {"env",
       "reward",
       "original, cosine, deceptive, sparse, bitwise_xor, multiplicative_coprime",
       {}},
      {"env", "energy", "ones, ising_lattice", {}},
      {"env", "preprocessor", "khot, onehot, identity", {}},
      {"train", "loss", "tb, zvar, db, modified_db, subtb, fm", {}},
      {"train",
       "subtb_weighting",
       "geometric_within, geometric, equal, equal_within, TB, DB, ModifiedDB",
       {}},
  };
  for (auto& o : out) {
    std::string rest = o.choices;
    for (std::size_t comma; (comma = rest.find(", ")) != std::string::npos;) {
      o.names.push_back(rest.substr(0, comma));
      rest = rest.substr(comma + 2);
    }
    o.names.push_back(rest);
  }
  return out;
}

// The value of `key` as config.yaml writes it.
std::string emitted(const ExperimentConfig& c, const Option& o) {
  const std::string yaml = "\n" + to_yaml(c);  // every section after a newline
  const std::size_t section = yaml.find("\n" + o.section + ":\n");
  const std::size_t at = yaml.find("\n  " + o.name + ": ", section);
  EXPECT_NE(at, std::string::npos) << o.key();
  const std::size_t begin = at + o.name.size() + 5;
  return yaml.substr(begin, yaml.find('\n', begin) - begin);
}

TEST_F(EnumOptionsTest, EveryNameIsReadFromFileAndSetAndWrittenBackTheSame) {
  int i = 0;
  for (const Option& o : options()) {
    for (const std::string& name : o.names) {
      const std::string p = write("ok" + std::to_string(i++) + ".yaml",
                                  o.section + ":\n  " + o.name + ": " + name + "\n");
      const ExperimentConfig from_file = load_config(p);
      EXPECT_EQ(emitted(from_file, o), name) << o.key();
      const ExperimentConfig from_set = load_config("", {o.key() + "=" + name});
      EXPECT_EQ(emitted(from_set, o), name) << o.key();
      // config.yaml reads back to the same configuration.
      const std::string back = write("back" + std::to_string(i) + ".yaml", to_yaml(from_file));
      EXPECT_EQ(to_yaml(load_config(back)), to_yaml(from_file)) << o.key() << "=" << name;
    }
  }
}

TEST_F(EnumOptionsTest, UnknownNamesNameKeyFileAndAllowedValues) {
  int i = 0;
  for (const Option& o : options()) {
    const std::string p = write("bad" + std::to_string(i++) + ".yaml",
                                "\n" + o.section + ":\n  " + o.name + ": bogus\n");
    EXPECT_THAT(error_of(p),
                AllOf(HasSubstr(p), HasSubstr("line 3"),
                      HasSubstr(o.key() + " = bogus is invalid: must be one of: " + o.choices)))
        << o.key();
    // Names are case-sensitive.
    std::string upper = o.names.front();
    upper[0] = static_cast<char>(upper[0] - 'a' + 'A');
    EXPECT_THAT(error_of("", {o.key() + "=" + upper}),
                AllOf(HasSubstr("--set " + o.key() + "=" + upper), HasSubstr("no config file"),
                      HasSubstr("must be one of: " + o.choices)))
        << o.key();
    const std::string ok = write("ok" + std::to_string(i) + ".yaml", "train:\n  batch_size: 8\n");
    EXPECT_THAT(error_of(ok, {o.key() + "=bogus"}),
                AllOf(HasSubstr("--set " + o.key() + "=bogus"), HasSubstr(ok),
                      HasSubstr(o.key() + " = bogus is invalid: must be one of: " + o.choices)))
        << o.key();
    // A mapping where a name is expected.
    const std::string map =
        write("map" + std::to_string(i) + ".yaml", o.section + ":\n  " + o.name + ": {a: 1}\n");
    EXPECT_THAT(error_of(map), AllOf(HasSubstr(map), HasSubstr(o.key()),
                                     HasSubstr("must be one of: " + o.choices)))
        << o.key();
  }
}

}  // namespace
}  // namespace gfn::roles
