// The generic schema (runtime/config/schema.h) over a root of this test's own: sections bound
// to structs, a section extended by two variants that share a key and are validated only
// when selected (as environments share env.ndim), rules, renamed keys, cross-checks, YAML
// round trips, resumable keys and the Markdown reference. No module of the project is used:
// the loader knows none.

#include "runtime/config/schema.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "runtime/config/resume.h"

namespace gfn::config::schema_testing {

enum class Color { kRed, kBlue };
inline constexpr EnumName<Color> kColorNames[] = {{Color::kRed, "red"}, {Color::kBlue, "blue"}};
inline constexpr const auto& enum_names(Color) { return kColorNames; }

struct Alpha {
  int count = 3;
  double rate = 0.5;
  Color color = Color::kRed;
  std::string name = "a";
  bool flag = false;
  std::uint64_t seed = 1;
  IntRange range{1, 2};
  OptionMap extra;
};

struct Select {
  std::string kind = "one";
};

struct Variant {
  int size = 4;
  double scale = 1.0;
};

struct Root {
  Alpha alpha;
  Select select;
  Variant one;
  Variant two{9, 2.0};
};

const Fields<Alpha>& alpha_fields() {
  static const auto fields =
      Fields<Alpha>()
          .add("count", &Alpha::count, "How many.", at_least(1), {"items", true})
          .add("rate", &Alpha::rate, "A rate.", in_unit_interval())
          .add("color", &Alpha::color, "A color.", AsInvalid{})
          .add("name", &Alpha::name, "A name | with a pipe.", non_empty())
          .add("flag", &Alpha::flag, "A flag.")
          .add("seed", &Alpha::seed, "A seed.")
          .add("range", &Alpha::range, "A range.", ordered_range(1))
          .add("extra", &Alpha::extra, "Options someone else checks.")
          .renamed("old_count", "alpha.count: the same number");
  return fields;
}

const Fields<Variant>& one_fields() {
  static const auto fields = Fields<Variant>()
                                 .add("size", &Variant::size, "Size of one.", at_least(1))
                                 .add("scale", &Variant::scale, "Scale.", positive(), {"m"});
  return fields;
}

const Fields<Variant>& two_fields() {
  static const auto fields =
      Fields<Variant>().add("size", &Variant::size, "Size of two.", at_least(5));
  return fields;
}

TypedSchema<Root> make_schema() {
  TypedSchema<Root> s;
  s.section("alpha", "The alpha section.", &Root::alpha, alpha_fields());
  static const auto select_fields =
      Fields<Select>().add("kind", &Select::kind, "one or two.", one_of({"one", "two"}));
  s.section("variant", "Variants sharing a key.", &Root::select, select_fields);
  s.extend_fields(
      "variant", one_fields().fields(), one_fields().renamed(),
      [](Root& r) -> void* { return &r.one; }, [](const Root& r) { return r.select.kind == "one"; },
      "one");
  s.extend_fields(
      "variant", two_fields().fields(), two_fields().renamed(),
      [](Root& r) -> void* { return &r.two; }, [](const Root& r) { return r.select.kind == "two"; },
      "two");
  s.cross_check("alpha.flag", [](const Root& r) -> std::string {
    return r.alpha.flag && r.alpha.count < 2 ? "needs alpha.count >= 2" : "";
  });
  return s;
}

class SchemaTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("gfn_schema_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& text) {
    const auto p = dir_ / name;
    std::ofstream(p) << text;
    return p.string();
  }

  std::string error_of(const std::string& path, const std::vector<std::string>& sets = {}) {
    try {
      schema_.load(path, sets);
    } catch (const ConfigError& e) {
      return e.what();
    }
    ADD_FAILURE() << "no ConfigError for " << path;
    return "";
  }

  TypedSchema<Root> schema_ = make_schema();
  std::filesystem::path dir_;
};

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

TEST_F(SchemaTest, DefaultsThenFileThenOverridesInOrder) {
  const Root d = schema_.load("");
  EXPECT_EQ(d.alpha.count, 3);
  EXPECT_EQ(d.two.size, 9);  // the root's own default, not the struct's
  const auto path = write("a.yaml",
                          "alpha:\n  count: 5\n  color: blue\n  range: [2, 4]\n  seed: 7\n"
                          "variant:\n  size: 6\n");
  const Root r = schema_.load(path, {"alpha.rate=0.25", "alpha.count=8", "alpha.count=9"});
  EXPECT_EQ(r.alpha.count, 9);  // the last --set wins
  EXPECT_EQ(r.alpha.color, Color::kBlue);
  EXPECT_EQ(r.alpha.range, (IntRange{2, 4}));
  EXPECT_EQ(r.alpha.seed, 7u);
  EXPECT_DOUBLE_EQ(r.alpha.rate, 0.25);
  // A key shared by two variants is assigned to both.
  EXPECT_EQ(r.one.size, 6);
  EXPECT_EQ(r.two.size, 6);
  EXPECT_EQ(schema_.load("", {"alpha.range=[3, 3]"}).alpha.range, (IntRange{3, 3}));
}

// An OptionMap (option_map.h): a mapping of scalars in a file, one entry by
// `--set section.key.entry=value` (over the file's), the whole map by `--set section.key={..}`;
// written back as a flow mapping that loads to the same map.
TEST_F(SchemaTest, OptionMapsFromFilesAndOverrides) {
  const auto path = write("m.yaml", "alpha:\n  extra: {size: 6, beta: 0.5}\n");
  const Root r = schema_.load(path, {"alpha.extra.flag=true", "alpha.extra.size=7"});
  EXPECT_EQ(r.alpha.extra, (OptionMap{{"beta", "0.5"}, {"flag", "true"}, {"size", "7"}}));
  EXPECT_EQ(schema_.load(path, {"alpha.extra={only: 1}"}).alpha.extra, (OptionMap{{"only", "1"}}));
  EXPECT_TRUE(schema_.load(path, {"alpha.extra={}"}).alpha.extra.empty());
  EXPECT_TRUE(schema_.load(write("n.yaml", "alpha:\n  extra:\n")).alpha.extra.empty());
  const Root back = schema_.load(write("back.yaml", schema_.to_yaml(r)));
  EXPECT_EQ(back.alpha.extra, r.alpha.extra);
  EXPECT_THAT(schema_.to_yaml(r), HasSubstr("extra: {beta: 0.5, flag: true, size: 7}"));
  EXPECT_THAT(schema_.differing_keys(r, schema_.load(path)), ElementsAre("alpha.extra"));
  // Not a mapping of scalars: refused naming the key.
  EXPECT_THAT(error_of(write("bad.yaml", "alpha:\n  extra: [1, 2]\n")),
              HasSubstr("alpha.extra must be a mapping of names to values"));
  EXPECT_THAT(error_of(write("deep.yaml", "alpha:\n  extra: {a: {b: 1}}\n")),
              HasSubstr("alpha.extra must be a mapping of names to values"));
  // An entry of a key that is not a map is still an unknown key.
  EXPECT_THAT(error_of("", {"alpha.count.x=1"}), HasSubstr("unknown key 'alpha.count.x'"));
}

TEST_F(SchemaTest, UnknownSectionsAndKeysNameTheKeyAndTheFile) {
  const auto p1 = write("s.yaml", "alpah:\n  count: 1\n");
  EXPECT_THAT(error_of(p1), AllOf(HasSubstr("unknown section 'alpah'"), HasSubstr(p1),
                                  HasSubstr("line 1"), HasSubstr("alpha, variant")));
  const auto p2 = write("k.yaml", "alpha:\n  cont: 1\n");
  EXPECT_THAT(error_of(p2), AllOf(HasSubstr("unknown key 'alpha.cont'"), HasSubstr(p2),
                                  HasSubstr("line 2"), HasSubstr("count, rate, color")));
  EXPECT_THAT(error_of("", {"alpha.cont=1"}),
              AllOf(HasSubstr("--set alpha.cont=1"), HasSubstr("unknown key"),
                    HasSubstr("no config file")));
  EXPECT_THAT(error_of("", {"count"}), HasSubstr("expected section.key=value"));
  // --set names the nearest keys (a typo, the key in another section), not every key.
  EXPECT_THAT(error_of("", {"alpha.cont=1"}),
              AllOf(HasSubstr("did you mean alpha.count?"), Not(HasSubstr("alpha.seed")),
                    Not(HasSubstr("variant.scale"))));
  EXPECT_THAT(error_of("", {"variant.count=1"}), HasSubstr("did you mean alpha.count?"));
  EXPECT_THAT(error_of("", {"alpha.rates=1"}), HasSubstr("did you mean alpha.rate?"));
  EXPECT_THAT(error_of("", {"alpha.sise=1"}),
              HasSubstr("did you mean alpha.rate, alpha.name or alpha.seed?"));
  // None near: the keys of its section, or the sections.
  EXPECT_THAT(error_of("", {"alpha.quantity=1"}),
              AllOf(HasSubstr("keys of 'alpha': count, rate, color"), Not(HasSubstr("did you"))));
  EXPECT_THAT(error_of("", {"omega.quantity=1"}), HasSubstr("sections: alpha, variant"));
  // The keys of a section are listed once, though two variants register `size`.
  EXPECT_THAT(error_of(write("v.yaml", "variant:\n  sise: 1\n")),
              AllOf(HasSubstr("(keys of 'variant': kind, size, scale)"),
                    HasSubstr("did you mean variant.size")));
}

TEST_F(SchemaTest, WrongTypesAndImpossibleValuesNameKeyWhereAndValue) {
  EXPECT_THAT(error_of(write("t.yaml", "alpha:\n  count: many\n")),
              AllOf(HasSubstr("line 2"), HasSubstr("alpha.count must be an integer, got 'many'")));
  EXPECT_THAT(error_of("", {"alpha.seed=-1"}),
              HasSubstr("alpha.seed must be a non-negative integer, got '-1'"));
  EXPECT_THAT(error_of("", {"alpha.flag=maybe"}), HasSubstr("must be a boolean"));
  EXPECT_THAT(error_of("", {"alpha.range=[3]"}),
              HasSubstr("must be a list of two integers [min, max]"));
  // An unknown name of an enumeration (AsInvalid) reads as an impossible value.
  EXPECT_THAT(error_of("", {"alpha.color=green"}),
              HasSubstr("alpha.color = green is invalid: must be one of: red, blue"));
  EXPECT_THAT(error_of(write("r.yaml", "alpha:\n  rate: 2\n")),
              AllOf(HasSubstr("r.yaml' line 2"), HasSubstr("alpha.rate = 2 is invalid"),
                    HasSubstr("must be in [0, 1]")));
  EXPECT_THAT(error_of("", {"alpha.count=0"}),
              AllOf(HasSubstr("--set alpha.count=0"), HasSubstr("must be >= 1")));
  EXPECT_THAT(error_of("", {"alpha.range=[3, 2]"}),
              HasSubstr("must be [min, max] with 1 <= min <= max"));
  EXPECT_THAT(error_of("", {"alpha.name="}), HasSubstr("must not be empty"));
}

TEST_F(SchemaTest, OnlyTheSelectedVariantIsValidated) {
  // size 3 breaks two's rule (>= 5) but not one's: fine while one is selected.
  EXPECT_EQ(schema_.load("", {"variant.size=3"}).two.size, 3);
  EXPECT_THAT(error_of("", {"variant.size=3", "variant.kind=two"}),
              AllOf(HasSubstr("variant.size = 3 is invalid: must be >= 5")));
  EXPECT_THAT(error_of("", {"variant.kind=three"}),
              HasSubstr("variant.kind = three is invalid: must be one of: one, two"));
}

TEST_F(SchemaTest, RenamedKeysNameWhatToWriteInstead) {
  const auto p = write("old.yaml", "alpha:\n  old_count: 4\n");
  EXPECT_THAT(error_of(p), AllOf(HasSubstr("key 'alpha.old_count' was renamed"),
                                 HasSubstr("use alpha.count: the same number"), HasSubstr(p)));
  EXPECT_THAT(error_of("", {"alpha.old_count=4"}), HasSubstr("was renamed"));
}

TEST_F(SchemaTest, CrossChecksNameTheirKeyAndItsOrigin) {
  EXPECT_THAT(error_of("", {"alpha.count=1", "alpha.flag=true"}),
              AllOf(HasSubstr("--set alpha.flag=true"),
                    HasSubstr("alpha.flag = true is invalid: needs alpha.count >= 2")));
  EXPECT_NO_THROW(schema_.load("", {"alpha.count=2", "alpha.flag=true"}));
}

TEST_F(SchemaTest, YamlRoundTripsAndWritesTheSelectedVariant) {
  Root r = schema_.load("", {"variant.kind=two", "alpha.rate=0.1", "alpha.color=blue"});
  r.one.size = 1;  // one is not selected: its values are not written
  const std::string yaml = schema_.to_yaml(r);
  EXPECT_THAT(yaml, AllOf(HasSubstr("rate: 0.1\n"), HasSubstr("size: 9"), Not(HasSubstr("0.10"))));
  const Root again = schema_.load(write("again.yaml", yaml));
  EXPECT_EQ(schema_.to_yaml(again), yaml);
  EXPECT_EQ(again.two.size, 9);
  EXPECT_THAT(schema_.keys(), ElementsAre("alpha.count", "alpha.rate", "alpha.color", "alpha.name",
                                          "alpha.flag", "alpha.seed", "alpha.range", "alpha.extra",
                                          "variant.kind", "variant.size", "variant.scale"));
  EXPECT_THAT(schema_.differing_keys(r, again), ElementsAre());
  // The selected variants' sizes differ (two's 9, one's 4).
  EXPECT_THAT(schema_.differing_keys(r, schema_.load("")),
              ElementsAre("alpha.rate", "alpha.color", "variant.kind", "variant.size"));
}

TEST_F(SchemaTest, OnlyResumableKeysMayChangeOnResume) {
  EXPECT_THAT(schema_.resumable_keys(), ElementsAre("alpha.count"));
  const auto saved = write("saved.yaml", schema_.to_yaml(schema_.load("")));
  EXPECT_EQ(load_for_resume(schema_, saved, {"alpha.count=7"}).alpha.count, 7);
  try {
    load_for_resume(schema_, saved, {"alpha.rate=0.9", "alpha.count=7"});
    FAIL() << "a non-resumable change was accepted";
  } catch (const ConfigError& e) {
    EXPECT_THAT(e.what(), AllOf(HasSubstr("differs in alpha.rate;"), HasSubstr(saved),
                                HasSubstr("may change only alpha.count")));
  }
}

TEST_F(SchemaTest, ReferenceHasARowPerKeyWithTypeDefaultUnitRuleAndVariants) {
  const std::string md = schema_.reference();
  EXPECT_THAT(md, HasSubstr("## `alpha`\n\nThe alpha section.\n"));
  EXPECT_THAT(md, HasSubstr("| `alpha.count` | integer | `3` | items | >= 1 | How many. |"));
  EXPECT_THAT(md, HasSubstr("| `alpha.color` | choice | `red` |  | red, blue | A color. |"));
  EXPECT_THAT(md, HasSubstr("A name \\| with a pipe."));
  EXPECT_THAT(md, HasSubstr("| `alpha.range` | [min, max] | `[1, 2]` |"));
  // A key of two variants: one row, the selected variant's default, both named.
  EXPECT_THAT(md, HasSubstr("| `variant.size` | integer | `4` |  | >= 1 | *one:* Size of one. "
                            "*two:* Size of two. |"));
  EXPECT_THAT(md, HasSubstr("| `variant.scale` | number | `1` | m | > 0 | *one:* Scale. |"));
  EXPECT_EQ(md.find("`variant.size`"), md.rfind("`variant.size`"));
}

}  // namespace gfn::config::schema_testing
