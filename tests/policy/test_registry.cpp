// The policy registry: all ten policies, their declared parameters, and the
// errors for unknown names, unknown keys and bad values.
#include <gtest/gtest.h>

#include "sim/core/errors.h"
#include "tests/policy/policy_test_util.h"

namespace flashsim::test {
namespace {

TEST(PolicyRegistry, ListsAllPolicies) {
  EXPECT_EQ(all_policy_names(),
            (std::vector<std::string>{"2q", "activation_aware", "arc", "belady", "belady_bypass", "clock", "clock_pro",
                                      "fifo", "gdsf", "lecar", "lfru", "lfu", "lirs", "lru", "lru_k", "mlru",
                                      "resident_first", "s3fifo", "sieve", "static_fraction", "w_tinylfu"}));
}

TEST(PolicyRegistry, EveryPolicyBuildsWithDefaultsAndKnowsItsName) {
  for (const auto* e : PolicyRegistry::instance().entries()) {
    EXPECT_FALSE(e->summary.empty()) << e->name;
    for (const ParamSpec& p : e->params) EXPECT_FALSE(p.doc.empty()) << e->name << "." << p.name;
    const auto policy = make_policy(e->name, 1000);
    EXPECT_EQ(policy->name(), e->name);
    EXPECT_EQ(policy->size(), 0u);
    EXPECT_FALSE(policy->evict(0, EvictionFilter{}).has_value()) << e->name;
  }
}

TEST(PolicyRegistry, DeclaredParameters) {
  const auto names = [](const std::string& policy) {
    std::vector<std::string> out;
    for (const ParamSpec& p : PolicyRegistry::instance().find(policy).params) out.push_back(p.name + "=" + p.default_value);
    return out;
  };
  EXPECT_EQ(names("mlru"),
            (std::vector<std::string>{"age_window=500ms", "history=100", "reading=intent", "epsilon=0.05"}));
  EXPECT_EQ(names("2q"), (std::vector<std::string>{"kin=0.25", "kout=0.5"}));
  EXPECT_EQ(names("s3fifo"),
            (std::vector<std::string>{"small_ratio=0.1", "ghost_ratio=0.9", "move_to_main_threshold=2"}));
  EXPECT_EQ(names("clock"), (std::vector<std::string>{"bits=1"}));
  EXPECT_TRUE(names("lru").empty());
}

TEST(PolicyRegistry, RejectsUnknownName) {
  try {
    make_policy("lru2", 100);
    FAIL() << "no error";
  } catch (const UnknownNameError& e) {
    EXPECT_NE(std::string(e.what()).find("'lru2'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("sieve"), std::string::npos) << e.what();
  }
}

TEST(PolicyRegistry, RejectsUnknownParameter) {
  try {
    make_policy("mlru", 100, {{"histroy", "10"}});
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("histroy"), std::string::npos) << e.what();
  }
  EXPECT_THROW(make_policy("lru", 100, {{"bits", "2"}}), InputError);
}

TEST(PolicyRegistry, RejectsBadValues) {
  EXPECT_THROW(make_policy("mlru", 100, {{"history", "0"}}), InputError);
  EXPECT_THROW(make_policy("mlru", 100, {{"history", "1001"}}), InputError);
  EXPECT_THROW(make_policy("mlru", 100, {{"reading", "both"}}), InputError);
  EXPECT_THROW(make_policy("mlru", 100, {{"age_window", "5 parsecs"}}), InputError);
  EXPECT_THROW(make_policy("mlru", 100, {{"epsilon", "-0.1"}}), InputError);
  EXPECT_THROW(make_policy("clock", 100, {{"bits", "x"}}), InputError);
  EXPECT_THROW(make_policy("clock", 100, {{"bits", "8"}}), InputError);
  EXPECT_THROW(make_policy("2q", 100, {{"kin", "1.5"}}), InputError);
  EXPECT_THROW(make_policy("s3fifo", 100, {{"move_to_main_threshold", "4"}}), InputError);
  EXPECT_NO_THROW(make_policy("mlru", 100, {{"history", "1000"}, {"reading", "literal"}, {"age_window", "2s"}}));
}

}  // namespace
}  // namespace flashsim::test
