// A scripted model endpoint on loopback for the model tests (cpp-httplib's
// server, in this process): each request is recorded and answered by the
// next scripted answer; past the script, 500. The Node suites use the full
// two-format server, tests/server/model_server.mjs.
#pragma once

#include <httplib.h>

#include <chrono>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

namespace pulse::testing {

struct ScriptedAnswer {
  int status = 200;
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
  int delay_ms = 0;
};

struct SeenRequest {
  std::string path;
  std::string body;
  httplib::Headers headers;
  std::chrono::steady_clock::time_point at;
  nlohmann::json Json() const { return nlohmann::json::parse(body, nullptr, false); }
};

class ModelTestServer {
 public:
  ModelTestServer() {
    auto handle = [this](const httplib::Request& req, httplib::Response& res) {
      ScriptedAnswer a{500, R"({"error":{"message":"script exhausted"}})", {}, 0};
      {
        std::lock_guard<std::mutex> l(mu_);
        seen_.push_back({req.path, req.body, req.headers, std::chrono::steady_clock::now()});
        if (!script_.empty()) {
          a = script_.front();
          script_.pop_front();
        }
      }
      if (a.delay_ms) std::this_thread::sleep_for(std::chrono::milliseconds(a.delay_ms));
      res.status = a.status;
      for (const auto& [k, v] : a.headers) res.set_header(k, v);
      res.set_content(a.body, "application/json");
    };
    server_.Post("/v1/chat/completions", handle);
    server_.Post("/v1/messages", handle);
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~ModelTestServer() {
    server_.stop();
    thread_.join();
  }

  std::string Base() const { return "http://127.0.0.1:" + std::to_string(port_); }
  void Push(ScriptedAnswer a) {
    std::lock_guard<std::mutex> l(mu_);
    script_.push_back(std::move(a));
  }
  void PushJson(const nlohmann::json& body) { Push({200, body.dump(), {}, 0}); }
  std::vector<SeenRequest> Seen() {
    std::lock_guard<std::mutex> l(mu_);
    return seen_;
  }

  // An OpenAI answer: text, or tool calls [{id, name, arguments (text)}].
  static nlohmann::json OpenAi(const std::string& text,
                               const std::vector<std::vector<std::string>>& calls = {}, int in = 1000, int out = 100) {
    nlohmann::json msg = {{"role", "assistant"}, {"content", calls.empty() ? nlohmann::json(text) : nlohmann::json(nullptr)}};
    if (!calls.empty()) {
      nlohmann::json list = nlohmann::json::array();
      for (const auto& c : calls) {
        list.push_back({{"id", c[0]}, {"type", "function"}, {"function", {{"name", c[1]}, {"arguments", c[2]}}}});
      }
      msg["tool_calls"] = list;
    }
    return {{"id", "chatcmpl-1"}, {"object", "chat.completion"}, {"model", "m"},
            {"choices", {{{"index", 0}, {"message", msg}, {"finish_reason", calls.empty() ? "stop" : "tool_calls"}}}},
            {"usage", {{"prompt_tokens", in}, {"completion_tokens", out}}}};
  }

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  std::mutex mu_;
  std::deque<ScriptedAnswer> script_;
  std::vector<SeenRequest> seen_;
};

}  // namespace pulse::testing
