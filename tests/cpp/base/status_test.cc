#include "core/base/status.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace pulse {
namespace {

TEST(Status, DefaultIsOkWithNoMessage) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.code(), Code::kOk);
  EXPECT_EQ(s.message(), "");
  EXPECT_TRUE(Status::OK().ok());
}

TEST(Status, EachFactoryCarriesItsCodeAndMessage) {
  struct Case {
    Status s;
    Code code;
    const char* name;
  };
  const std::vector<Case> cases = {
      {Status::InvalidArgument("m"), Code::kInvalidArgument, "invalid_argument"},
      {Status::NotFound("m"), Code::kNotFound, "not_found"},
      {Status::Refused("m"), Code::kRefused, "refused"},
      {Status::Conflict("m"), Code::kConflict, "conflict"},
      {Status::IoError("m"), Code::kIoError, "io_error"},
      {Status::Corruption("m"), Code::kCorruption, "corruption"},
      {Status::Busy("m"), Code::kBusy, "busy"},
      {Status::Internal("m"), Code::kInternal, "internal"},
      {Status::Unauthenticated("m"), Code::kUnauthenticated, "unauthenticated"},
  };
  for (const Case& c : cases) {
    EXPECT_FALSE(c.s.ok()) << c.name;
    EXPECT_EQ(c.s.code(), c.code) << c.name;
    EXPECT_EQ(c.s.message(), "m") << c.name;
    EXPECT_STREQ(CodeName(c.code), c.name);
  }
  EXPECT_STREQ(CodeName(Code::kOk), "ok");
  EXPECT_STREQ(CodeName(static_cast<Code>(99)), "unknown");
}

TEST(Status, WithContextPrefixesErrorsAndLeavesOkAlone) {
  Status s = Status::NotFound("no such file").WithContext("workflow.json");
  EXPECT_EQ(s.code(), Code::kNotFound);
  EXPECT_EQ(s.message(), "workflow.json: no such file");
  EXPECT_EQ(s.WithContext("demo").message(), "demo: workflow.json: no such file");
  Status ok = Status::OK().WithContext("ignored");
  EXPECT_TRUE(ok.ok());
  EXPECT_EQ(ok.message(), "");
}

TEST(Result, HoldsAValueOrAnError) {
  Result<std::string> v = std::string("value");
  ASSERT_TRUE(v.ok());
  EXPECT_TRUE(v.status().ok());
  EXPECT_EQ(*v, "value");
  EXPECT_EQ(v->size(), 5u);
  std::string moved = std::move(v).value();
  EXPECT_EQ(moved, "value");

  Result<int> e = Status::Busy("locked");
  EXPECT_FALSE(e.ok());
  EXPECT_EQ(e.status().code(), Code::kBusy);
  EXPECT_EQ(e.status().message(), "locked");
}

TEST(Result, AnOkStatusWithoutAValueIsAnInternalError) {
  Result<int> r = Status::OK();
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kInternal);
  EXPECT_NE(r.status().message().find("without a value"), std::string::npos);
}

TEST(Result, CarriesMoveOnlyValues) {
  Result<std::unique_ptr<int>> r = std::make_unique<int>(7);
  ASSERT_TRUE(r.ok());
  std::unique_ptr<int> p = std::move(r).value();
  EXPECT_EQ(*p, 7);
}

Status FailWhen(bool fail, int* reached) {
  PULSE_RETURN_IF_ERROR(fail ? Status::Conflict("first") : Status::OK());
  ++*reached;
  return Status::OK();
}

Result<int> Half(int n) {
  if (n % 2) return Status::InvalidArgument(std::to_string(n) + " is odd");
  return n / 2;
}

Result<int> Quarter(int n) {
  PULSE_ASSIGN_OR_RETURN(int h, Half(n));
  PULSE_ASSIGN_OR_RETURN(int q, Half(h));  // two in one scope: distinct temporaries
  return q;
}

TEST(Status, MacrosReturnTheFirstErrorAndOtherwiseGoOn) {
  int reached = 0;
  EXPECT_TRUE(FailWhen(false, &reached).ok());
  EXPECT_EQ(reached, 1);
  Status s = FailWhen(true, &reached);
  EXPECT_EQ(s.message(), "first");
  EXPECT_EQ(reached, 1);

  EXPECT_EQ(*Quarter(12), 3);
  EXPECT_EQ(Quarter(7).status().message(), "7 is odd");
  EXPECT_EQ(Quarter(6).status().message(), "3 is odd");
}

}  // namespace
}  // namespace pulse
