// Native bench for the background-agent log: start+completion pairs through
// the BackgroundAgentLog recorder (what a server uses) against a plain
// prepared-statement upsert loop on the same SQLite, the same table and
// indexes, the same WAL settings, interleaved in the same run. Prints one JSON document;
// bench/agent_log.mjs formats it next to the WASM figures.
//
//   agent_log_bench [pairs=5000] [rounds=5]   (files under $TMPDIR)
//   agent_log_bench bytes [pairs=2000]        bytes written per event
#include <sqlite3.h>
#include <stdlib.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>

#include "core/agent_log/agent_log.h"
#include "core/store/db.h"
#include "core/base/time_util.h"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

// CPU seconds this process has used (user + system, the write() calls
// included). On a shared machine the wall clock mostly measures the other
// work queued for the same cores; CPU time measures the work each path does.
double CpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

std::string Workspace(const std::string& root, const std::string& name) {
  std::string ws = root + "/" + name;
  fs::create_directories(ws + "/Workflow/bench");
  return ws;
}

// The recorder, as a server holds it: one per session, kept open.
class RecorderPath {
 public:
  explicit RecorderPath(const std::string& ws)
      : log_(*pulse::DefaultEnv(), pulse::AgentLogScopeFor(ws, "bench")) {
    // The first write opens and creates the database: outside the timing.
    pulse::AgentStart warm;
    warm.session_id = "warm";
    warm.agent_id = "warm";
    if (!log_.Started(warm)) abort();
  }
  void Run(int from, int count) {
    for (int i = from; i < from + count; ++i) {
      pulse::AgentStart s;
      s.session_id = "bench-session";
      s.agent_id = "agent-" + std::to_string(i);
      s.name = "Reviewer";
      s.kind = "reviewer";
      s.pulse_run_id = "run-1";
      if (!log_.Started(s)) abort();
      pulse::AgentCompletion d;
      d.session_id = s.session_id;
      d.agent_id = s.agent_id;
      d.result = "changed";
      d.duration = "1s";
      if (!log_.Completed(d)) abort();
    }
  }

 private:
  pulse::BackgroundAgentLog log_;
};

void Check(int rc, sqlite3* db) {
  if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW) {
    std::fprintf(stderr, "sqlite: %s\n", sqlite3_errmsg(db));
    abort();
  }
}

// The baseline: raw sqlite3 prepared statements, plain upserts (no rules),
// the timestamp formatted per event as any real writer must, the row placed
// (placed_at) as the table's triggers would otherwise do with a second write.
class PlainPath {
 public:
  explicit PlainPath(const std::string& ws) {
    std::string path = ws + "/Workflow/bench/db/db.sqlite";
    fs::create_directories(ws + "/Workflow/bench/db");
    {
      auto made = pulse::Db::Open(path);  // same table and indexes
      if (!made.ok() || !pulse::EnsureAgentLogSchema(**made).ok()) abort();
    }
    Check(sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nullptr), db_);
    sqlite3_busy_timeout(db_, 5000);
    Check(sqlite3_exec(db_, "PRAGMA journal_mode=WAL", nullptr, nullptr, nullptr), db_);
    Check(sqlite3_prepare_v2(db_,
                             "INSERT INTO background_agent_log(workspace_path, session_id, agent_id, name, kind,"
                             " parent_execution_id, pulse_run_id, status, started_at, updated_at, placed_at)"
                             " VALUES(?, ?, ?, ?, ?, ?, ?, 'running', ?, ?, ?8)"
                             " ON CONFLICT(workspace_path, session_id, agent_id) DO UPDATE SET status = 'running'",
                             -1, &start_, nullptr),
          db_);
    Check(sqlite3_prepare_v2(db_,
                             "INSERT INTO background_agent_log(workspace_path, session_id, agent_id, status, result,"
                             " error, duration, completed_at, updated_at, placed_at) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?8)"
                             " ON CONFLICT(workspace_path, session_id, agent_id) DO UPDATE SET"
                             " status = excluded.status, result = excluded.result, duration = excluded.duration,"
                             " completed_at = excluded.completed_at, updated_at = excluded.updated_at",
                             -1, &done_, nullptr),
          db_);
  }
  ~PlainPath() {
    sqlite3_finalize(start_);
    sqlite3_finalize(done_);
    sqlite3_close_v2(db_);
  }
  void Run(int from, int count) {
    auto bind = [](sqlite3_stmt* st, int i, const std::string& v) {
      sqlite3_bind_text(st, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    };
    for (int i = from; i < from + count; ++i) {
      std::string agent = "agent-" + std::to_string(i);
      std::string now = pulse::FormatTime(pulse::DefaultEnv()->NowSeconds());
      bind(start_, 1, "Workflow/bench");
      bind(start_, 2, "bench-session");
      bind(start_, 3, agent);
      bind(start_, 4, "Reviewer");
      bind(start_, 5, "reviewer");
      bind(start_, 6, "");
      bind(start_, 7, "run-1");
      bind(start_, 8, now);
      bind(start_, 9, now);
      Check(sqlite3_step(start_), db_);
      sqlite3_reset(start_);
      now = pulse::FormatTime(pulse::DefaultEnv()->NowSeconds());
      bind(done_, 1, "Workflow/bench");
      bind(done_, 2, "bench-session");
      bind(done_, 3, agent);
      bind(done_, 4, "completed");
      bind(done_, 5, "changed");
      bind(done_, 6, "");
      bind(done_, 7, "1s");
      bind(done_, 8, now);
      bind(done_, 9, now);
      Check(sqlite3_step(done_), db_);
      sqlite3_reset(done_);
    }
  }

 private:
  sqlite3* db_ = nullptr;
  sqlite3_stmt* start_ = nullptr;
  sqlite3_stmt* done_ = nullptr;
};

// Bytes this process has handed to write() so far (/proc/self/io "wchar"):
// every WAL frame, checkpoint and header write, whatever the file system.
int64_t BytesWritten() {
  FILE* f = std::fopen("/proc/self/io", "r");
  if (!f) return -1;
  char key[64];
  long long value = 0;
  int64_t out = -1;
  while (std::fscanf(f, "%63s %lld", key, &value) == 2) {
    if (std::string(key) == "wchar:") out = value;
  }
  std::fclose(f);
  return out;
}

int64_t SizeOr0(const std::string& path) {
  std::error_code ec;
  auto n = fs::file_size(path, ec);
  return ec ? 0 : static_cast<int64_t>(n);
}

// Bytes written per event and the files' sizes afterwards, for the recorder
// (Pulse's WAL settings) and for the plain loop (SQLite's defaults).
template <typename Path>
std::string MeasureBytes(const std::string& ws, int pairs) {
  Path path(ws);
  int64_t before = BytesWritten();
  path.Run(0, pairs);
  int64_t written = BytesWritten() - before;
  std::string db = ws + "/Workflow/bench/db/db.sqlite";
  char buf[256];
  std::snprintf(buf, sizeof buf, "{\"bytes_per_event\": %.0f, \"db_bytes\": %lld, \"wal_bytes\": %lld}",
                static_cast<double>(written) / (2.0 * pairs), static_cast<long long>(SizeOr0(db)),
                static_cast<long long>(SizeOr0(db + "-wal")));
  return buf;
}

int BytesMain(int pairs) {
  const char* tmp = getenv("TMPDIR");
  std::string tmpl = std::string(tmp && *tmp ? tmp : "/tmp") + "/pulse-bench-XXXXXX";
  if (!mkdtemp(tmpl.data())) return 1;
  std::string recorder = MeasureBytes<RecorderPath>(Workspace(tmpl, "recorder"), pairs);
  std::string plain = MeasureBytes<PlainPath>(Workspace(tmpl, "plain"), pairs);
  std::printf("{\"pairs\": %d, \"recorder\": %s, \"plain\": %s}\n", pairs, recorder.c_str(), plain.c_str());
  std::error_code ec;
  fs::remove_all(tmpl, ec);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "bytes") return BytesMain(argc > 2 ? std::atoi(argv[2]) : 2000);
  int pairs = argc > 1 ? std::atoi(argv[1]) : 5000;
  int rounds = argc > 2 ? std::atoi(argv[2]) : 5;
  if (pairs <= 0 || rounds <= 0) {
    std::fprintf(stderr, "usage: agent_log_bench [pairs>0] [rounds>0]\n");
    return 2;
  }
  const char* tmp = getenv("TMPDIR");
  std::string tmpl = std::string(tmp && *tmp ? tmp : "/tmp") + "/pulse-bench-XXXXXX";
  if (!mkdtemp(tmpl.data())) return 1;
  const std::string root = tmpl;
  // Both paths run side by side on their own database files, in alternating
  // chunks of 50 pairs (which goes first alternates too), so a burst of
  // other work on a shared machine, or a WAL checkpoint's fsync, falls on
  // both alike. Each round is one full pass over `pairs`; the best round of
  // each path is reported.
  constexpr int kChunk = 50;
  double best_recorder = 1e9, best_plain = 1e9, best_recorder_cpu = 1e9, best_plain_cpu = 1e9;
  for (int r = 0; r < rounds; ++r) {
    PlainPath plain(Workspace(root, "plain-" + std::to_string(r)));
    RecorderPath recorder(Workspace(root, "recorder-" + std::to_string(r)));
    double wall[2] = {0, 0}, cpu[2] = {0, 0};  // [0] plain, [1] recorder
    for (int from = 0, n = 0; from < pairs; from += kChunk, ++n) {
      int count = std::min(kChunk, pairs - from);
      for (int k = 0; k < 2; ++k) {
        int which = (k + n) % 2;
        auto t0 = Clock::now();
        double c0 = CpuSeconds();
        if (which == 0) plain.Run(from, count); else recorder.Run(from, count);
        cpu[which] += CpuSeconds() - c0;
        wall[which] += Seconds(t0, Clock::now());
      }
    }
    best_plain = std::min(best_plain, wall[0]);
    best_recorder = std::min(best_recorder, wall[1]);
    best_plain_cpu = std::min(best_plain_cpu, cpu[0]);
    best_recorder_cpu = std::min(best_recorder_cpu, cpu[1]);
  }
  std::error_code ec;
  fs::remove_all(root, ec);
  const double events = 2.0 * pairs;
  std::printf(
      "{\"pairs\": %d, \"rounds\": %d, \"sqlite\": \"%s\","
      " \"recorder\": {\"events_per_second\": %.0f, \"us_per_event\": %.2f, \"cpu_us_per_event\": %.2f},"
      " \"plain\": {\"events_per_second\": %.0f, \"us_per_event\": %.2f, \"cpu_us_per_event\": %.2f},"
      " \"ratio\": %.3f, \"cpu_ratio\": %.3f}\n",
      pairs, rounds, sqlite3_libversion(), events / best_recorder, best_recorder / events * 1e6,
      best_recorder_cpu / events * 1e6, events / best_plain, best_plain / events * 1e6,
      best_plain_cpu / events * 1e6, best_plain / best_recorder, best_plain_cpu / best_recorder_cpu);
  return 0;
}
