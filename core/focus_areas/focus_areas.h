// Focus areas: time-boxed direction for Pulse ("a weekly growth experiment
// until 1 Nov, checked by subscribers +30 a week"). They live in
// workflow.json, where the platform and every other reader look:
//   pulse.focus_areas          the active titles (the list every reader uses)
//   pulse.focus_area_details   each area: id, title, status, end_date, check,
//                              lesson, proposed_by, tracking [{date, note}]
//
// Rules (ApplyFocusChange, pure):
// - Pulse proposes; the owner confirms, rejects, adds (active at once),
//   extends or drops. At most kMaxOpenFocusAreas are open (proposed + active).
// - An end date is a day (YYYY-MM-DD), never before today; a proposal or an
//   addition without one ends kDefaultFocusDays from today.
// - Tracking: one dated line a day at most per area (a second line the same
//   day replaces the first); only an active area is tracked.
// - Closing (done) needs a lesson, which also goes to goal memory as a lesson.
// - The tick expires every open area whose end date has passed.
// A refused change names the area and the problem and writes nothing.
//
// FocusAreas (the service) reads and edits workflow.json through
// EditWorkflowJson, so a concurrent save by somebody else is never lost, and
// keeps the database's configuration snapshot in step (the browser reads the
// areas from it).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/store/db.h"
#include "core/base/env.h"
#include "core/goal/goal_memory.h"
#include "core/base/status.h"

namespace pulse {

constexpr int kMaxOpenFocusAreas = 3;
constexpr int kDefaultFocusDays = 14;

enum class FocusStatus { kProposed, kActive, kDone, kExpired, kDropped };
const char* FocusStatusName(FocusStatus s);
Result<FocusStatus> ParseFocusStatus(const std::string& text);

struct FocusTrack {
  std::string date;  // YYYY-MM-DD
  std::string note;
};

struct FocusArea {
  std::string id;  // fa-<n>
  std::string title;
  FocusStatus status = FocusStatus::kProposed;
  std::string end_date;  // YYYY-MM-DD; "" for an area written before details existed
  std::string check;     // how Pulse tells it worked
  std::string lesson;    // set when it closes
  std::string proposed_by;  // pulse | owner
  std::string created_at, updated_at;
  std::vector<FocusTrack> tracking;

  bool open() const { return status == FocusStatus::kProposed || status == FocusStatus::kActive; }
  nlohmann::json ToJson() const;
};

enum class FocusAction { kPropose, kAdd, kConfirm, kReject, kDrop, kExtend, kTrack, kClose };
const char* FocusActionName(FocusAction a);
Result<FocusAction> ParseFocusAction(const std::string& text);

struct FocusChange {
  FocusAction action = FocusAction::kPropose;
  std::string id;        // every action but propose and add
  std::string title;     // propose, add
  std::string end_date;  // propose, add (optional); extend (required)
  std::string check;     // propose, add (optional)
  std::string note;      // track
  std::string lesson;    // close
};

// The areas in a parsed workflow.json (details first; an active title with
// no details is kept as an active area without an end date). InvalidArgument
// naming the key when they are not the shape above.
Result<std::vector<FocusArea>> ReadFocusAreas(const nlohmann::json& workflow_doc);
// Writes both keys into `workflow_doc` (creating "pulse" when missing).
void WriteFocusAreas(nlohmann::json& workflow_doc, const std::vector<FocusArea>& areas);

// Applies one change at `now`; returns the id of the area it touched.
Result<std::string> ApplyFocusChange(std::vector<FocusArea>& areas, const FocusChange& change, int64_t now);
// Marks every open area whose end date is before `now`'s day expired;
// returns their ids.
std::vector<std::string> ExpireFocusAreas(std::vector<FocusArea>& areas, int64_t now);

// What one change came to.
struct FocusOutcome {
  std::string id;
  FocusAction action = FocusAction::kPropose;
  std::vector<FocusArea> areas;  // all of them, afterwards
  bool lesson_in_memory = false;  // close: the lesson went to goal memory
  std::string memory_error;       // close: why it did not
  int attempts = 1;               // reads of workflow.json (more when another writer raced)
  nlohmann::json ToJson() const;
};

class FocusAreas {
 public:
  // `workflow_json`: the file's path; "" in the browser (reads come from the
  // database's snapshot, edits are refused). `memory` may be null (no
  // lesson lines then).
  FocusAreas(Db& db, Env& env, std::string workflow, std::string workflow_json, GoalMemory* memory);

  Result<std::vector<FocusArea>> List();
  Result<std::vector<FocusArea>> Open();
  Result<FocusOutcome> Apply(const FocusChange& change);
  // The tick's expiry; the ids expired (none: nothing written).
  Result<std::vector<std::string>> Expire();

 private:
  Status RefreshSnapshot(const std::string& text);

  Db& db_;
  Env& env_;
  std::string workflow_;
  std::string path_;
  GoalMemory* memory_;
};

}  // namespace pulse
