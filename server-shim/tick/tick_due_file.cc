// The due-index kept over a restart: <workspace>/.pulse/<name>, one JSON
// document. It is input like any other file in the workspace: read only up to
// kMaxFileBytes, every field checked, and a file that fails any check is
// ignored as a whole with one warning line (the index then starts empty and
// the tick rebuilds it by visiting). An entry read from it passes a workflow
// over only while the workflow's files carry exactly the stamp recorded
// (DueIndex::Quiet), so it never decides over a file that moved.
#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/base/sha256.h"
#include "core/store/workspace.h"
#include "server-shim/tick/tick_due.h"

namespace pulse::serve {

using nlohmann::json;

namespace {

constexpr int kFileVersion = 1;
constexpr size_t kMaxFileBytes = 64u << 20;  // 10,000 workflows take about 5 MiB
constexpr size_t kMaxEntries = 1000000;
constexpr size_t kStampFiles = 7;            // StampWorkflow's files besides the database

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

bool Unhex(const std::string& hex, std::string* out) {
  if (hex.size() % 2 != 0 || hex.size() > 200) return false;  // a database header is 100 bytes
  out->clear();
  for (size_t i = 0; i < hex.size(); i += 2) {
    int hi = HexDigit(hex[i]), lo = HexDigit(hex[i + 1]);
    if (hi < 0 || lo < 0) return false;
    out->push_back(static_cast<char>(hi * 16 + lo));
  }
  return true;
}

// 0 for an absent file, else [dev, ino, size, mtime_ns, header hex].
json FileJson(const FileStamp& f) {
  if (!f.exists) return 0;
  return json::array({static_cast<uint64_t>(f.dev), static_cast<uint64_t>(f.ino), f.size, f.mtime_ns, HexEncode(f.header)});
}

bool FileFromJson(const json& j, FileStamp* f) {
  *f = FileStamp{};
  if (j.is_number_integer() && j.get<int64_t>() == 0) return true;
  if (!j.is_array() || j.size() != 5 || !j[0].is_number_unsigned() || !j[1].is_number_unsigned() ||
      !j[2].is_number_integer() || !j[3].is_number_integer() || !j[4].is_string()) {
    return false;
  }
  f->exists = true;
  f->dev = static_cast<dev_t>(j[0].get<uint64_t>());
  f->ino = static_cast<ino_t>(j[1].get<uint64_t>());
  f->size = j[2].get<int64_t>();
  f->mtime_ns = j[3].get<int64_t>();
  return f->size >= 0 && Unhex(j[4].get<std::string>(), &f->header);
}

// Reads at most kMaxFileBytes; "" with *missing when there is no file.
Result<std::string> ReadBounded(const std::string& path, bool* missing) {
  *missing = false;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) {
    *missing = errno == ENOENT;
    return Status::InvalidArgument(std::string("cannot open: ") + std::strerror(errno));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return Status::InvalidArgument("not a regular file");
  }
  if (static_cast<uint64_t>(st.st_size) > kMaxFileBytes) {
    ::close(fd);
    return Status::InvalidArgument("larger than " + std::to_string(kMaxFileBytes >> 20) + " MiB");
  }
  std::string text(static_cast<size_t>(st.st_size), '\0');
  size_t got = 0;
  while (got < text.size()) {
    ssize_t n = ::read(fd, text.data() + got, text.size() - got);
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  ::close(fd);
  if (got != text.size()) return Status::InvalidArgument("shorter than its size (truncated while read)");
  return text;
}

}  // namespace

Status DueIndex::ParseEntries(const std::string& text, std::map<std::string, Entry>* out) const {
  json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded()) return Status::InvalidArgument("not JSON (truncated or damaged)");
  if (!doc.is_object() || doc.value("version", json()) != kFileVersion) {
    return Status::InvalidArgument("not a version " + std::to_string(kFileVersion) + " due-index");
  }
  const json& entries = doc.value("entries", json());
  if (!entries.is_array() || entries.size() > kMaxEntries) return Status::InvalidArgument("entries: not a list");
  for (size_t i = 0; i < entries.size(); ++i) {
    const json& e = entries[i];
    const std::string at = "entries[" + std::to_string(i) + "]";
    if (!e.is_array() || e.size() != 4 || !e[0].is_string() || !e[1].is_number_integer() ||
        !e[2].is_number_integer() || !e[3].is_array() || e[3].size() != kStampFiles + 2) {
      return Status::InvalidArgument(at + ": not [workflow, visited_at, until, stamps]");
    }
    const std::string wf = e[0].get<std::string>();
    if (!ValidateWorkflowName(wf).ok()) return Status::InvalidArgument(at + ": not a workflow name");
    Entry entry;
    entry.visited_at = e[1].get<int64_t>();
    entry.until = e[2].get<int64_t>();
    if (entry.until <= entry.visited_at || entry.until - entry.visited_at > max_quiet_seconds_) {
      return Status::InvalidArgument(at + ": until is not after visited_at within " +
                                     std::to_string(max_quiet_seconds_) + " s");
    }
    const json& s = e[3];
    bool ok = FileFromJson(s[0], &entry.stamp.db.db) && FileFromJson(s[1], &entry.stamp.db.wal);
    entry.stamp.files.resize(kStampFiles);
    for (size_t k = 0; ok && k < kStampFiles; ++k) ok = FileFromJson(s[k + 2], &entry.stamp.files[k]);
    if (!ok) return Status::InvalidArgument(at + ": a stamp is not 0 or [dev, ino, size, mtime_ns, header hex]");
    if (!out->emplace(wf, std::move(entry)).second) return Status::InvalidArgument(at + ": " + wf + " twice");
  }
  return Status::OK();
}

void DueIndex::Load() {
  if (file_.empty()) return;
  bool missing = false;
  Result<std::string> text = ReadBounded(file_, &missing);
  std::map<std::string, Entry> loaded;
  Status parsed = text.ok() ? ParseEntries(*text, &loaded) : text.status();
  if (!parsed.ok()) {
    if (!missing) spdlog::warn("{}: ignored ({}); the index is rebuilt by visiting", file_, parsed.message());
    return;
  }
  std::lock_guard<std::mutex> l(mu_);
  entries_ = std::move(loaded);
  saved_ = true;
}

void DueIndex::Save(bool force) {
  if (file_.empty()) return;
  const auto now = std::chrono::steady_clock::now();
  json entries = json::array();
  {
    std::lock_guard<std::mutex> l(mu_);
    if (saved_ || (!force && now - last_save_ < std::chrono::duration<double>(min_save_seconds_))) return;
    for (const auto& [wf, e] : entries_) {
      json stamps = json::array({FileJson(e.stamp.db.db), FileJson(e.stamp.db.wal)});
      for (const FileStamp& f : e.stamp.files) stamps.push_back(FileJson(f));
      entries.push_back(json::array({wf, e.visited_at, e.until, std::move(stamps)}));
    }
    saved_ = true;
    last_save_ = now;
  }
  const std::string text = json{{"version", kFileVersion}, {"entries", std::move(entries)}}.dump() + "\n";
  const std::string tmp = file_ + ".tmp." + std::to_string(::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
  bool ok = fd >= 0 && ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  if (fd >= 0) ok = (::close(fd) == 0) && ok;
  ok = ok && ::rename(tmp.c_str(), file_.c_str()) == 0;
  if (!ok) {
    const int err = errno;
    ::unlink(tmp.c_str());
    if (!save_warned_) spdlog::warn("{}: not saved: {}", file_, std::strerror(err));
    save_warned_ = true;
    std::lock_guard<std::mutex> l(mu_);
    saved_ = false;
  }
}

}  // namespace pulse::serve
