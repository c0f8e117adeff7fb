// The files a computation read, stamped as it read them, so the server can
// tell later, from the file system alone, whether running it again would
// read exactly the same bytes. A WatchingEnv wraps the Env a computation is
// given: the first time each path is touched it is stamped before the read,
// so a change made after the stamp (even during the computation) shows as a
// different stamp on the next look.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "core/base/env.h"
#include "server-shim/db_stamp.h"

namespace pulse::serve {

// One path's identity and content marks. A SQLite file (".sqlite") is
// stamped with its WAL and headers (db_stamp.h): every commit moves it. Any
// other file or folder by stat: a new file in its place changes the inode,
// an append the size, a rewrite the modification time, a new entry in a
// folder the folder's time.
struct PathStamp {
  std::string path;
  bool exists = false;
  bool dir = false;
  dev_t dev = 0;
  ino_t ino = 0;
  int64_t size = 0;
  int64_t mtime_ns = 0;
  bool sqlite = false;
  DbStamp db;  // sqlite only
  bool operator==(const PathStamp& o) const {
    return path == o.path && exists == o.exists && dir == o.dir && dev == o.dev && ino == o.ino && size == o.size &&
           mtime_ns == o.mtime_ns && sqlite == o.sqlite && db == o.db;
  }
};

PathStamp StampPath(const std::string& path);

// The wall clock in nanoseconds (the file system's clock, not an Env's).
int64_t WallNanos();

class WatchSet {
 public:
  void Add(PathStamp stamp);
  bool Has(const std::string& path) const { return seen_.count(path) != 0; }
  void Merge(const WatchSet& other);
  // Every path still stamps as it did.
  bool Fresh() const;
  // A file written within the last second (of `wall_ns`) can be written
  // again within the file system's timestamp step without its stamp moving
  // (same size, same time): a result that read it is not kept.
  bool Racy(int64_t wall_ns) const;
  const std::vector<PathStamp>& stamps() const { return stamps_; }

 private:
  std::vector<PathStamp> stamps_;
  std::set<std::string> seen_;
};

// Forwards to `base` with the clock standing at `now`, and stamps each path
// it is asked about (except `skip`: the workflow's own database, which the
// server stamps by its own rule) into `watched`.
class WatchingEnv : public FixedClockEnv {
 public:
  WatchingEnv(Env* base, int64_t now, WatchSet* watched, std::set<std::string> skip = {})
      : FixedClockEnv(base, now), watched_(watched), skip_(std::move(skip)) {}

  Result<std::string> ReadFile(const std::string& path) override;
  Status WriteFileAtomic(const std::string& path, const std::string& content) override;
  Status SwapFile(const std::string& path, const std::string& expected, const std::string& content) override;
  bool FileExists(const std::string& path) override;
  bool IsDirectory(const std::string& path) override;
  Status CreateDirs(const std::string& path) override;
  Result<std::vector<std::string>> ListDir(const std::string& dir) override;
  Result<int64_t> ModifiedAt(const std::string& path) override;
  Result<int64_t> FileSize(const std::string& path) override;

 private:
  void Watch(const std::string& path);
  WatchSet* watched_;
  std::set<std::string> skip_;
};

}  // namespace pulse::serve
