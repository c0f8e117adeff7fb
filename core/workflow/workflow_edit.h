// WorkflowEdit: the one way Pulse changes workflow.json. The file belongs to
// the workflow platform (the Builder saves it too), so an edit is a
// read-modify-write that never loses somebody else's concurrent change:
//
//   read the text, parse it (an invalid file is refused, untouched), apply
//   the change to the parsed document, render it back changing only the
//   bytes of the values that changed (other keys keep their formatting and
//   order), then swap it in with Env::SwapFile, which replaces the file only
//   while it still holds the text that was read. When somebody else wrote in
//   between, the new text is read and the change applied again on top of it.
//
// The change itself is a function of the parsed document, so re-applying it
// to a newer file is the normal path, not an exception; it may refuse (a
// Status), and then nothing is written. A change that leaves the document
// as it was writes nothing.
#pragma once

#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/base/env.h"
#include "core/base/status.h"

namespace pulse {

// Changes `doc` (workflow.json, parsed) in place or refuses.
using WorkflowJsonChange = std::function<Status(nlohmann::json& doc)>;

struct WorkflowEditResult {
  bool changed = false;   // false: the change left the document as it was; nothing written
  int attempts = 0;       // reads of the file (1 unless another writer raced)
  std::string text;       // the file's text afterwards
  nlohmann::json doc;     // the same, parsed
};

// Applies `change` to the workflow.json at `path`. `what` names the edit in
// errors ("focus.confirm"). Errors: the file missing or unreadable, not a
// JSON object, or not a valid workflow.json (ParseWorkflowConfig) — the
// file untouched; whatever `change` returns; Conflict when the file kept
// changing under every one of `max_attempts` tries.
Result<WorkflowEditResult> EditWorkflowJson(Env& env, const std::string& path, const std::string& what,
                                            const WorkflowJsonChange& change, int max_attempts = 200);

// Reads workflow.json, riding over the instant a writer swapping it the
// same way (SwapFile) has it taken aside: NotFound only when it stays
// missing.
Result<std::string> ReadWorkflowJson(Env& env, const std::string& path);
bool WorkflowJsonExists(Env& env, const std::string& path);

// `after` as text, made from `before_text` (which parses to `before`) by
// replacing only the spans of values that differ; members added to an
// object go at its end with the indentation of its other members. Falls
// back to a full two-space rendering of a value when its original spans
// cannot be used (removed members, duplicate keys, single-line objects).
// The result always parses to `after`.
std::string RenderJsonEdit(const std::string& before_text, const nlohmann::json& before, const nlohmann::json& after);

}  // namespace pulse
