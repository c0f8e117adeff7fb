#include "agent/model/model_history.h"

#include <algorithm>

#include "core/base/json_limits.h"
#include "core/base/time_util.h"
#include "core/base/utf8.h"

namespace pulse {

using nlohmann::json;

namespace {

constexpr size_t kReplayTextBytes = 4000;

// Created on first use by a model turn: a database no model ever thought in
// has no such table, and the schema versions every open compares stay the
// core's own.
Status EnsureStepsTable(Db& db) {
  return db.Exec(
      "CREATE TABLE IF NOT EXISTS pulse_model_steps ("
      " turn_id INTEGER PRIMARY KEY,"  // pulse_conversation_turns.id
      " model TEXT NOT NULL,"
      " steps TEXT NOT NULL,"          // JSON array of ModelMessage
      " at TEXT NOT NULL)");
}

std::string Cut(const std::string& text, size_t max) {
  if (text.size() <= max) return text;
  return std::string(Utf8Prefix(text, max)) + "… (cut)";
}

size_t Bytes(const ModelMessage& m) {
  size_t n = m.text.size() + 16;
  for (const ModelToolCall& c : m.calls) n += c.name.size() + c.arguments.dump().size() + 32;
  for (const ModelToolResult& r : m.results) n += r.content.size() + 32;
  return n;
}

size_t Bytes(const std::vector<ModelMessage>& ms) {
  size_t n = 0;
  for (const ModelMessage& m : ms) n += Bytes(m);
  return n;
}

std::string Field(const json& item, const char* key) {
  auto it = item.find(key);
  return it != item.end() && it->is_string() ? it->get<std::string>() : "";
}

ModelMessage Text(ModelMessage::Role role, const std::string& text) {
  ModelMessage m;
  m.role = role;
  m.text = text;
  return m;
}

// A turn as the model lived it (with its steps) or only as text and reply.
std::vector<ModelMessage> TurnMessages(const json& item, const std::vector<ModelMessage>* steps) {
  std::vector<ModelMessage> out;
  out.push_back(Text(ModelMessage::Role::kUser, Cut(Field(item, "text"), kReplayTextBytes)));
  if (steps) {
    for (ModelMessage m : *steps) {
      for (ModelToolResult& r : m.results) r.content = Cut(r.content, kReplayToolResultBytes);
      out.push_back(std::move(m));
    }
  }
  const std::string state = Field(item, "state");
  std::string reply = Cut(Field(item, "reply"), kReplayTextBytes);
  if (state != "completed") {
    const std::string error = Field(item, "error");
    reply = "(this turn ended " + state + (error.empty() ? "" : ": " + Cut(error, 500)) + ")" +
            (reply.empty() ? "" : "\n" + reply);
  }
  out.push_back(Text(ModelMessage::Role::kAssistant, reply.empty() ? "(no reply)" : reply));
  return out;
}

}  // namespace

Status SaveModelSteps(Db& db, int64_t turn_id, const std::string& model_id, const std::vector<ModelMessage>& steps,
                      int64_t now) {
  PULSE_RETURN_IF_ERROR(EnsureStepsTable(db));
  json list = json::array();
  for (const ModelMessage& m : steps) list.push_back(m.ToJson());
  PULSE_ASSIGN_OR_RETURN(Statement put, db.Prepare(
      "INSERT INTO pulse_model_steps(turn_id, model, steps, at) VALUES(?, ?, ?, ?)"
      " ON CONFLICT(turn_id) DO UPDATE SET model = excluded.model, steps = excluded.steps, at = excluded.at"));
  put.Bind(1, turn_id).Bind(2, model_id).Bind(3, list.dump()).Bind(4, FormatTime(now));
  return put.Run();
}

Result<std::map<int64_t, std::vector<ModelMessage>>> LoadModelSteps(Db& db, const std::vector<int64_t>& turn_ids) {
  std::map<int64_t, std::vector<ModelMessage>> out;
  if (turn_ids.empty()) return out;
  PULSE_RETURN_IF_ERROR(EnsureStepsTable(db));
  PULSE_ASSIGN_OR_RETURN(Statement get, db.Prepare("SELECT steps FROM pulse_model_steps WHERE turn_id = ?"));
  for (int64_t id : turn_ids) {
    get.Bind(1, id);
    PULSE_ASSIGN_OR_RETURN(bool row, get.Step());
    if (row) {
      const json list = ParseJsonOrDiscarded(get.Text(0));
      std::vector<ModelMessage> steps;
      if (list.is_array()) {
        for (const json& m : list) {
          Result<ModelMessage> msg = ModelMessage::FromJson(m);
          if (msg.ok()) steps.push_back(std::move(msg).value());
        }
      }
      if (!steps.empty()) out[id] = std::move(steps);
    }
    get.Reset();
  }
  return out;
}

std::vector<ModelMessage> ReplayMessages(const json& transcript, const std::map<int64_t, std::vector<ModelMessage>>& steps,
                                         size_t budget) {
  std::vector<std::vector<ModelMessage>> taken;  // newest first
  size_t used = 0;
  int left_out = 0;
  if (!transcript.is_array()) return {};
  for (auto it = transcript.rbegin(); it != transcript.rend(); ++it) {
    const json& item = *it;
    if (!item.is_object() || Field(item, "turn") == "charter") continue;
    if (left_out > 0) {
      ++left_out;
      continue;
    }
    std::vector<ModelMessage> piece;
    if (Field(item, "caller") == "platform") {
      piece.push_back(Text(ModelMessage::Role::kUser, "[Pulse platform, " + Field(item, "turn") + "] " +
                                                          Cut(Field(item, "text"), kReplayTextBytes)));
    } else {
      const int64_t id = item.contains("id") && item["id"].is_number_integer() ? item["id"].get<int64_t>() : 0;
      auto found = steps.find(id);
      piece = TurnMessages(item, found == steps.end() ? nullptr : &found->second);
      if (used + Bytes(piece) > budget && found != steps.end()) piece = TurnMessages(item, nullptr);
    }
    if (used + Bytes(piece) > budget) {
      left_out = 1;
      continue;
    }
    used += Bytes(piece);
    taken.push_back(std::move(piece));
  }
  std::vector<ModelMessage> out;
  if (left_out > 0) {
    out.push_back(Text(ModelMessage::Role::kUser,
                       "(" + std::to_string(left_out) +
                           " earlier entries of this generation are not replayed here; goal memory holds what lasts)"));
  }
  for (auto it = taken.rbegin(); it != taken.rend(); ++it) {
    for (ModelMessage& m : *it) out.push_back(std::move(m));
  }
  return out;
}

}  // namespace pulse
