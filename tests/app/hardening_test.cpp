// Regression tests for issue 14's classes of bad input: each must end in an
// error that names its cause, never a signal, exhausted memory or
// "internal error".
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "sim/core/errors.h"
#include "sim/scenario/config_tree.h"

namespace flashsim {
namespace {

using ::testing::HasSubstr;

std::string yaml_error(const std::string& text) {
  try {
    parse_yaml_text(text, "s.yaml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(Hardening, YamlAliasBombIsRefusedBeforeItIsExpanded) {
  // "Billion laughs": 9^10 scalars if expanded.
  std::string text = "a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n";
  for (int i = 1; i < 10; ++i) {
    text += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int j = 0; j < 9; ++j) text += (j ? ", *a" : "*a") + std::to_string(i - 1);
    text += "]\n";
  }
  const std::string e = yaml_error(text);
  EXPECT_THAT(e, HasSubstr("s.yaml:"));
  EXPECT_THAT(e, HasSubstr("expands to more than 1000000 nodes"));
}

TEST(Hardening, YamlAliasOfLongStringsIsBoundedByText) {
  std::string text = "a: &a \"" + std::string(1 << 20, 'x') + "\"\nb: [";
  for (int j = 0; j < 100; ++j) text += j ? ", *a" : "*a";
  text += "]\n";
  EXPECT_THAT(yaml_error(text), HasSubstr("more than 64 MiB of text"));
}

TEST(Hardening, YamlAliasOfItsOwnAncestorIsAnError) {
  EXPECT_THAT(yaml_error("a: &x [1, *x]\n"), HasSubstr("nests deeper than 256 levels"));
}

TEST(Hardening, YamlAliasesWithinBoundsAreExpanded) {
  const ConfigNode n = parse_yaml_text("base: &b {x: 1}\nuse: *b\n", "s.yaml");
  ASSERT_NE(n.find("use"), nullptr);
  ASSERT_NE(n.find("use")->find("x"), nullptr);
  EXPECT_EQ(n.find("use")->find("x")->scalar, "1");
}

}  // namespace
}  // namespace flashsim
