// One model request over HTTP (agent/model/model_http.h) against a scripted
// endpoint on loopback: 429 and 5xx retried honouring Retry-After, at most
// three tries; other answers not retried; a timeout; an answer too large.
#include "agent/model/model_http.h"

#include <gtest/gtest.h>

#include "tests/cpp/agent/model_test_server.h"

namespace pulse {
namespace {

using testing::ModelTestServer;
using testing::ScriptedAnswer;

ModelHttpRequest Request(const ModelTestServer& s, double timeout = 5) {
  ModelHttpRequest r;
  r.url = s.Base() + "/v1/chat/completions";
  r.headers = {{"Authorization", "Bearer sk-secret-never-in-errors"}};
  r.body = R"({"model":"m","messages":[]})";
  r.timeout = timeout;
  return r;
}

TEST(ModelHttp, A429IsTriedAgainAfterItsRetryAfter) {
  ModelTestServer s;
  s.Push({429, R"({"error":{"message":"Rate limit reached"}})", {{"Retry-After", "1"}}, 0});
  s.Push({200, R"({"ok":true})", {}, 0});
  Result<ModelHttpAnswer> a = PostModelRequest(Request(s), ModelHttpOptions{});
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(a->body, R"({"ok":true})");
  EXPECT_EQ(a->tries, 2);
  ASSERT_EQ(a->retried.size(), 1u);
  EXPECT_EQ(a->retried[0], "429 (Retry-After 1 s)");
  std::vector<testing::SeenRequest> seen = s.Seen();
  ASSERT_EQ(seen.size(), 2u);
  // The second try came after the second the server asked for.
  EXPECT_GE(seen[1].at - seen[0].at, std::chrono::milliseconds(950));
  EXPECT_EQ(seen[1].headers.find("Authorization")->second, "Bearer sk-secret-never-in-errors");
}

TEST(ModelHttp, ThreeTriesAtMostThenTheErrorInOneLine) {
  ModelTestServer s;
  for (int i = 0; i < 4; ++i) s.Push({503, R"({"error":{"message":"overloaded"}})", {{"Retry-After", "0"}}, 0});
  Result<ModelHttpAnswer> a = PostModelRequest(Request(s), ModelHttpOptions{});
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().message(), "the model at " + s.Base() + "/v1/chat/completions answered 503 overloaded (3 tries)");
  EXPECT_EQ(s.Seen().size(), 3u);
}

TEST(ModelHttp, OtherErrorsAreNotRetriedAndNeverCarryTheKey) {
  ModelTestServer s;
  s.Push({401, R"({"error":{"message":"Incorrect API key provided","code":"invalid_api_key"}})", {}, 0});
  Result<ModelHttpAnswer> a = PostModelRequest(Request(s), ModelHttpOptions{});
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().code(), Code::kRefused);
  EXPECT_NE(a.status().message().find("answered 401 Incorrect API key provided"), std::string::npos);
  EXPECT_EQ(a.status().message().find("sk-secret"), std::string::npos);
  EXPECT_EQ(s.Seen().size(), 1u);
}

TEST(ModelHttp, ASilentModelTimesOut) {
  ModelTestServer s;
  s.Push({200, "{}", {}, 700});
  Result<ModelHttpAnswer> a = PostModelRequest(Request(s, 0.2), ModelHttpOptions{});
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().message(), "the model at " + s.Base() + "/v1/chat/completions did not answer within 0.2 s (--model-timeout)");
}

TEST(ModelHttp, AnAnswerOverTheBoundIsRefused) {
  ModelTestServer s;
  s.Push({200, std::string(10 << 20, 'x'), {}, 0});
  ModelHttpOptions o;
  Result<ModelHttpAnswer> a = PostModelRequest(Request(s), o);
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().message(), "the model at " + s.Base() + "/v1/chat/completions answered more than 4194304 bytes; the answer was refused");
}

TEST(ModelHttp, TheServerStoppingEndsTheWait) {
  ModelTestServer s;
  s.Push({429, "{}", {{"Retry-After", "30"}}, 0});
  std::atomic<bool> stopping{false};
  ModelHttpOptions o;
  o.stopping = &stopping;
  std::thread stop([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    stopping = true;
  });
  Result<ModelHttpAnswer> a = PostModelRequest(Request(s), o);
  stop.join();
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.status().message().find("the server is shutting down"), std::string::npos) << a.status().message();
}

TEST(ModelHttp, NoServerIsAOneLineError) {
  ModelHttpRequest r;
  r.url = "http://127.0.0.1:1/v1/chat/completions";
  r.timeout = 2;
  Result<ModelHttpAnswer> a = PostModelRequest(r, ModelHttpOptions{});
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().message().find("the model at http://127.0.0.1:1/v1/chat/completions: request failed: "), 0u)
      << a.status().message();
}

TEST(ModelHttp, RetryAfterIsSecondsOrAnHttpDate) {
  EXPECT_EQ(RetryAfterSeconds("2", 0), 2);
  EXPECT_EQ(RetryAfterSeconds(" 0 ", 0), 0);
  // Wed, 21 Oct 2015 07:28:00 GMT is 1445412480.
  EXPECT_EQ(RetryAfterSeconds("Wed, 21 Oct 2015 07:28:00 GMT", 1445412470), 10);
  EXPECT_EQ(RetryAfterSeconds("Wed, 21 Oct 2015 07:28:00 GMT", 1445412490), 0);
  EXPECT_EQ(RetryAfterSeconds("soon", 0), -1);
  EXPECT_EQ(RetryAfterSeconds("", 0), -1);
  EXPECT_EQ(RetryAfterSeconds("-5", 0), -1);
}

}  // namespace
}  // namespace pulse
